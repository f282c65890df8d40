// swift-tools-version: 6.1
// Strata: an embedded object database for Swift on Linux with Realm's programming model,
// and strata-bench, the harness that measures it against SQLite.
//
// Dependencies point one way: strata-bench → StrataBench → Strata → StrataStorage, and
// strata (the file tool) → StrataTool → Strata → StrataStorage; Strata also → StrataQuery (the
// query language, which depends on nothing).
// package-benchmark micro-benchmarks live in the nested package `Benchmarks/` so that
// `swift build` / `swift test` of this package never pay for building it.
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataBench", targets: ["StrataBench"]),
        .executable(name: "strata-bench", targets: ["strata-bench"]),
        .executable(name: "strata", targets: ["strata"]),
        // The power-loss stress's LD_PRELOAD interposer (Sources/CStrataIOTrace): built by a plain
        // `swift build` as .build/<config>/libStrataIOTrace.so, preloaded into a writer, never linked.
        .library(name: "StrataIOTrace", type: .dynamic, targets: ["CStrataIOTrace"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        // The stripe hash's accumulator loop on AVX2/AVX-512F, chosen at run time
        // (Sources/CStrataHash; StrataStorage's Pages/StripeHash.swift has the portable loop).
        .target(name: "CStrataHash"),
        // Thread-local words for Strata (the @Persisted ordinal counter, thread identity):
        // C11 _Thread_local behind static inline accessors (Sources/CStrataThreadLocal).
        .target(name: "CStrataThreadLocal"),
        // A cache prefetch hint for leaf scans (Sources/CStrataPrefetch): Swift has none.
        .target(name: "CStrataPrefetch"),
        // The column scan's inner loop over a slotted leaf, on a 64-byte boundary of its own
        // (Sources/CStrataLeafScan says why).
        .target(name: "CStrataLeafScan"),
        // strata-bench's counters that need C (Sources/CStrataBenchCounters): the hardware
        // instruction counter (perf_event_open has no libc wrapper and syscall(2) is variadic,
        // which Swift cannot call) and SQLite's flushes (a VFS counting xSync; sqlite3 is the
        // library GRDB links).
        .target(name: "CStrataBenchCounters", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The file-operation recorder of the power-loss stress (only preloaded: no target depends on it).
        .target(name: "CStrataIOTrace", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "StrataStorage",
            dependencies: [
                "CStrataHash",
                "CStrataLeafScan",
                "CStrataPrefetch",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The query language (Sources/StrataQuery): text and typed predicates to a checked expression
        // tree, and its evaluation over any value source. It knows nothing of objects or files;
        // Strata joins it to rows, indexes and classes, and re-exports it.
        .target(name: "StrataQuery"),
        .target(
            name: "Strata",
            dependencies: ["StrataQuery", "StrataStorage", "CStrataThreadLocal"]
        ),
        // The revision a binary is built from (written at build time by the BuildRevision plugin).
        .target(name: "StrataBuildRevision", plugins: ["BuildRevision"]),
        .plugin(name: "BuildRevision", capability: .buildTool()),
        .target(
            name: "StrataBench",
            dependencies: [
                "Strata",
                "StrataBuildRevision",
                "CStrataBenchCounters",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
                // The digest that identifies a run in the history (History/RunDigest.swift).
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "StrataBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The `strata` tool's verbs (reports, export, key files), testable without a process;
        // the executable `strata` is only their command line.
        .target(name: "StrataTool", dependencies: ["Strata"]),
        .executableTarget(
            name: "strata",
            dependencies: [
                "StrataTool",
                "Strata",
                "StrataBuildRevision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Child process used by the crash and two-process tests of StrataStorage.
        .executableTarget(
            name: "strata-storage-probe",
            dependencies: ["StrataStorage"],
            path: "Tests/StrataStorageProbe"
        ),
        // The damaged-file corpus's model, file and digest: one declaration for the child that
        // writes and reads the corpus and for the tests that damage it.
        .target(
            name: "StrataCorpus",
            dependencies: ["Strata"],
            path: "Tests/StrataCorpus"
        ),
        // The cross-process notification check's model and commits: one declaration for the
        // child that writes and for the test that observes.
        .target(
            name: "StrataCrossProcess",
            dependencies: ["Strata"],
            path: "Tests/StrataCrossProcess"
        ),
        // Child process of the cross-process notification and damage tests of Strata.
        .executableTarget(
            name: "strata-probe",
            dependencies: ["Strata", "StrataCorpus", "StrataCrossProcess"],
            path: "Tests/StrataProbe"
        ),
        // Child process of the interposer's tests (Tests/StrataBenchTests/Stress): runs a scripted
        // sequence of file operations under libStrataIOTrace.so.
        .executableTarget(name: "strata-iotrace-probe", path: "Tests/StrataIOTraceProbe"),
        // One temporary folder per test process, removed at exit (Tests/CStrataTestScratch).
        .target(name: "CStrataTestScratch", path: "Tests/CStrataTestScratch"),
        // The models and helpers the object-layer test targets share (through Strata's public API).
        .target(
            name: "StrataTestSupport",
            dependencies: ["Strata", "StrataStorage", "CStrataTestScratch"],
            path: "Tests/StrataTestSupport"
        ),
        // The fuzz targets (Fuzz/StrataFuzz: one file per target, each with its invariant), their
        // one executable (libFuzzer's driver when built by scripts/fuzz with -DFUZZING, else a
        // replayer of corpus files), and the test that replays every committed corpus and
        // regression in process (Tests/StrataFuzzTests).
        .target(
            name: "StrataFuzz",
            dependencies: ["Strata", "StrataTool", "StrataBench", "StrataCorpus"],
            path: "Fuzz/StrataFuzz"
        ),
        .executableTarget(name: "strata-fuzz", dependencies: ["StrataFuzz"], path: "Fuzz/strata-fuzz"),
        .testTarget(name: "StrataStorageTests", dependencies: ["StrataStorage"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataQuery", "StrataCorpus", "StrataTestSupport"]),
        // The public API as an app uses it: `import Strata`, never `@testable`.
        .testTarget(name: "StrataAPITests", dependencies: ["Strata", "StrataCrossProcess", "StrataTestSupport"]),
        .testTarget(name: "StrataToolTests", dependencies: ["StrataTool", "Strata", "StrataStorage", "StrataCorpus", "StrataTestSupport"]),
        .testTarget(name: "StrataFuzzTests", dependencies: ["StrataFuzz"]),
        .testTarget(name: "StrataBenchTests", dependencies: [
            "StrataBench",
            "StrataBuildRevision",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
