// swift-tools-version: 6.1
// package-benchmark micro-benchmarks of StrataStorage primitives and of Strata's object layer. A nested package so that the
// main package's `swift build` / `swift test` never build package-benchmark.
//
// Run (release, from this directory):  swift package --disable-sandbox benchmark
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StorageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ObjectBenchmarks",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ObjectBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
