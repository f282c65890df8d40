import Foundation
import Testing
import GRDB
import StrataBench

func runOne(_ spec: CaseSpec) async throws -> CaseResult {
    try await BenchRunner(cases: [spec]).run().first.unwrap()
}

extension Optional {
    func unwrap() throws -> Wrapped {
        guard let self else { throw BenchError(.verification, "no result") }
        return self
    }
}

func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-test-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A moment on the monotonic clock, set on one thread and read on another.
private final class MonotonicStamp: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: UInt64?

    func set() {
        lock.withLock { stored = DispatchTime.now().uptimeNanoseconds }
    }

    var value: UInt64? { lock.withLock { stored } }
}

@Suite("SQLite engine")
struct SQLiteEngineTests {
    /// A fresh `.unsafe` store in a temporary directory with the sensor "o3", closed and removed
    /// after `body`.
    private func withUnsafeStore(_ body: (String, SQLiteEngine, any SensorWriter) throws -> Void) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try SQLiteEngine(EngineConfiguration(directory: dir, durability: .unsafe))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        try writer.createSensors(["o3"])
        try body(dir, engine, writer)
    }

    @Test(arguments: [(Durability.full, "synchronous=FULL"), (.unsafe, "synchronous=OFF"), (.memory, "memory")])
    func durabilityIsSetOnTheWriterAndReadBack(durability: Durability, expected: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try SQLiteEngine(EngineConfiguration(directory: dir, durability: durability))
        defer { try? engine.close() }
        #expect(engine.effectiveSettings.contains(expected))
        if durability != .memory {
            #expect(engine.effectiveSettings.contains("journal_mode=wal"))
            #expect((engine.fileBytes() ?? 0) > 0)
        } else {
            #expect(engine.fileBytes() == nil)
        }
    }

    @Test func encryptionIsRefusedNotFaked() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: BenchError.self) {
            try SQLiteEngine(EngineConfiguration(directory: dir, durability: .full, encryptionKey: Array(repeating: 1, count: 64)))
        }
        #expect(error?.code == .unsupported)
        #expect(!Engines.supports(.sqlite, encryption: .on))
    }

    /// Another connection (here a second handle; in a run, a WAL reader re-reading a changing
    /// wal-index header) may hold SQLite's write lock for a moment. The engine's writer waits
    /// for it instead of failing the transaction with SQLITE_BUSY and losing the reading.
    @Test func aWriteWaitsForAWriteLockHeldBrieflyElsewhere() throws {
        try withUnsafeStore { dir, engine, writer in
            let other = try DatabaseQueue(path: (dir as NSString).appendingPathComponent("bench.sqlite"))
            defer { try? other.close() }
            let holding = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            let commitStarted = MonotonicStamp()
            Thread {
                try? other.inDatabase { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    holding.signal()
                    usleep(150_000)
                    commitStarted.set()
                    try db.execute(sql: "COMMIT")
                }
                released.signal()
            }.start()
            try #require(holding.wait(timeout: .now() + 10) == .success, "the other handle never took the write lock")
            let deleted = try writer.addReadings(sensor: "o3", readings: [SensorReading(value: 1, seq: 1, timestamp: 0)])
            let returned = DispatchTime.now().uptimeNanoseconds
            released.wait()
            #expect(deleted == 0)
            // It returned only after the other handle began to let go: it waited, not raced.
            #expect(returned > (commitStarted.value ?? .max))
            let reader = try engine.makeReader(placement: .currentThread)
            #expect(try reader.sequences(sensor: "o3") == [1])
        }
    }

    @Test func aPinnedReaderGrowsTheWAL() throws {
        try withUnsafeStore { _, engine, writer in
            func write(_ count: Int) throws {
                for seq in 1...count {
                    _ = try writer.addReadings(sensor: "o3", readings: [SensorReading(value: 1, seq: Int64(seq), timestamp: 0)])
                }
            }
            // Unpinned: the WAL wraps at the auto-checkpoint (1,000 pages) and stays near 4 MB.
            try write(1_500)
            let unpinned = try #require(engine.fileBytes())
            let reader = try engine.makeReader(placement: .currentThread)
            try reader.pin()
            try write(1_500)
            let pinned = try #require(engine.fileBytes())
            reader.unpin()
            #expect(pinned > unpinned + 4_000_000)
            try engine.compact()
            #expect(try #require(engine.fileBytes()) < 1_000_000)
        }
    }
}

// Serialized: cases run one at a time in the harness too. In parallel, two Strata realms confined
// to the main queue clobber each other's queue tag: Strata identifies a queue by the
// ObjectIdentifier of its DispatchQueue wrapper, and on Linux every `DispatchQueue.main` access
// returns a new wrapper (reported to the lead as a Strata confinement bug).
@Suite("writer strategies persist exactly what was produced", .serialized)
struct StrategyTests {
    /// The built-in engines; the peers loaded at run time run the same checks in their own
    /// suites (PeerEngineTests), which report an absent library instead of passing silently.
    static let engines = Engines.defaultKinds

    @Test(arguments: engines, StrategyKind.allCases)
    func everyStrategyLosesNothing(engine: EngineKind, strategy: StrategyKind) async throws {
        try await Self.checkEveryStrategyLosesNothing(engine: engine, strategy: strategy)
    }

    @Test(arguments: engines)
    func trimmingIsAccountedForAsDeletedNotLost(engine: EngineKind) async throws {
        try await Self.checkTrimmingIsAccountedForAsDeletedNotLost(engine: engine)
    }

    /// 301 readings through `strategy`: every one stored, one transaction each (fewer batched).
    static func checkEveryStrategyLosesNothing(engine: EngineKind, strategy: StrategyKind) async throws {
        let spec = CaseSpec(workload: .sensors, engine: engine, strategy: strategy, writers: 8, batchSize: 25,
                            maxDelayMs: 5, durability: .unsafe, readings: 301)
        let result = try await runOne(spec)
        #expect(result.lost == 0)
        #expect(result.verified, "\(result.note)")
        #expect(result.readings == 301)
        #expect(result.liveObjects == 301 + 3)
        #expect(result.deleted == 0)
        if strategy == .batched {
            #expect(result.transactions < 301)
        } else {
            #expect(result.transactions == 301)
        }
        #expect(result.commit?.count == UInt64(result.transactions))
        switch strategy {
        case .gcd: #expect((1...8).contains(result.writerHandles ?? 0))
        case .threads: #expect(result.writerHandles == 8)
        default: #expect(result.writerHandles == 1)
        }
        #expect(result.endToEnd?.count == 301)
    }

    @Test(arguments: engines)
    func addReadingsTrimsTheOldest(engine: EngineKind) throws {
        try Self.checkAddReadingsTrimsTheOldest(engine: engine)
    }

    /// One writer's `addReadings` directly: 10,000 readings stored, 50 more trim the 50 oldest
    /// (reported as deleted); the reader sees the newest 10,000, both sensors, their averages (nil
    /// for one without readings) and counts; an unknown sensor is an engine error.
    static func checkAddReadingsTrimsTheOldest(engine kind: EngineKind) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try Engines.open(kind, EngineConfiguration(directory: dir, durability: .unsafe))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        defer { writer.close() }
        try writer.createSensors(["o3", "no2"])
        let readings = (1...10_050).map { SensorReading(value: Double($0), seq: Int64($0), timestamp: 0) }
        #expect(try writer.addReadings(sensor: "o3", readings: Array(readings.prefix(10_000))) == 0)
        #expect(try writer.addReadings(sensor: "o3", readings: Array(readings.suffix(50))) == 50)
        let reader = try engine.makeReader(placement: .currentThread)
        defer { reader.close() }
        let sequences = try reader.sequences(sensor: "o3")
        #expect(sequences.count == 10_000)
        #expect(sequences.first == 51)
        #expect(sequences.last == 10_050)
        let stats = try reader.stats()
        #expect(stats.readings == 10_000)
        #expect(stats.sensors == 2)
        #expect(abs(try #require(stats.averages["o3"] ?? nil) - 5050.5) < 1e-9)
        #expect(stats.averages["no2"] == .some(nil))
        #expect(try reader.readingCount(sensor: "o3") == 10_000)
        #expect(try reader.readingCount(sensor: "none") == nil)
        let unknown = #expect(throws: BenchError.self) { try writer.addReadings(sensor: "none", readings: [readings[0]]) }
        #expect(unknown?.code == .engine)
    }

    /// 30,300 readings in memory: the lists are trimmed to 10,000 each, 300 deleted, none lost.
    static func checkTrimmingIsAccountedForAsDeletedNotLost(engine: EngineKind) async throws {
        let spec = CaseSpec(workload: .sensors, engine: engine, strategy: .batched, batchSize: 500, durability: .memory,
                            readings: 30_300)
        let result = try await runOne(spec)
        #expect(result.lost == 0)
        #expect(result.verified, "\(result.note)")
        #expect(result.deleted == 300)
        #expect(result.liveObjects == 30_003)
        #expect(result.fileBytesEnd == nil)
    }

    @Test func batchedFlushesOnMaxDelayWhenProductionIsSlow() async throws {
        // 40 readings/s in batches of 1,000: only the max-delay rule (and shutdown) can flush.
        let spec = CaseSpec(workload: .sensors, engine: .sqlite, strategy: .batched, batchSize: 1_000, maxDelayMs: 20,
                            rate: 60, durability: .unsafe, readings: 12)
        let result = try await runOne(spec)
        #expect(result.lost == 0)
        #expect(result.readings == 12)
        #expect(result.transactions >= 3)
        let e2e = try #require(result.endToEnd)
        #expect(e2e.max < 1_000_000)
    }

    @Test func openLoopRunsAtTheRequestedRate() async throws {
        let spec = CaseSpec(workload: .sensors, engine: .sqlite, strategy: .dedicated, rate: 300, durability: .unsafe,
                            readings: 90)
        let result = try await runOne(spec)
        #expect(result.lost == 0)
        #expect(result.durationSeconds > 0.25)
    }

    @Test func timeBoundCasesStopOnTime() async throws {
        let spec = CaseSpec(workload: .sensors, engine: .sqlite, strategy: .async, durability: .memory, duration: 0.3)
        let result = try await runOne(spec)
        #expect(result.lost == 0)
        #expect(result.verified, "\(result.note)")
        #expect(result.readings > 0)
        #expect(result.durationSeconds < 5)
    }

    @Test func encryptedSQLiteCasesAreSkippedWithAReason() async throws {
        let events = EventLog()
        let spec = CaseSpec(workload: .encryption, engine: .sqlite, strategy: .dedicated, batchSize: 100,
                            encryption: .on, durability: .unsafe, readings: 200)
        let results = try await BenchRunner(cases: [spec], progress: { events.add($0) }).run()
        #expect(results.isEmpty)
        #expect(events.skipReasons.contains { $0.contains("skipped, not faked") })
    }
}

@Suite("store workloads")
struct StoreWorkloadTests {
    @Test func bulkInsertStoresEveryReading() async throws {
        let result = try await runOne(CaseSpec(workload: .bulkInsert, engine: .sqlite, strategy: .dedicated, batchSize: 100,
                                               durability: .unsafe, readings: 1_000))
        #expect(result.lost == 0)
        #expect(result.transactions == 10)
        #expect(result.liveObjects == 1_000)
        #expect(result.fileBytesCompacted != nil && result.compactMs != nil)
    }

    @Test func compactionShrinksAMostlyGarbageFile() async throws {
        let result = try await runOne(CaseSpec(workload: .compaction, engine: .sqlite, strategy: .dedicated, batchSize: 1_000,
                                               durability: .unsafe, readings: 10_000))
        #expect(result.lost == 0)
        #expect(result.liveObjects == 2_000)
        let before = try #require(result.fileBytesEnd)
        let after = try #require(result.fileBytesCompacted)
        #expect(after < before)
    }

    @Test func pinnedGrowthShowsTheWALGrowingUnderThePin() async throws {
        let result = try await runOne(CaseSpec(workload: .pinnedGrowth, engine: .sqlite, strategy: .dedicated,
                                               durability: .unsafe, readings: 1_500))
        #expect(result.lost == 0, "\(result.note)")
        #expect(result.readings == 375 + 1_500 + 150)  // the unpinned control, pinned, after the release
        let slowdown = try #require(result.pinnedSlowdown)
        #expect(slowdown > 0 && slowdown.isFinite)
        let start = try #require(result.fileBytesStart)
        let peak = try #require(result.fileBytesPeak)
        #expect(peak > start + 4_000_000)
        // The unpinned twin's WAL is checkpointed as it goes; the pinned one cannot be.
        let twin = try #require(result.unpinnedTwinBytes)
        #expect(twin > 0 && twin < peak)
        #expect(try #require(result.pinnedExtraBytes) > 4_000_000)
        #expect(try #require(result.fileBytesCompacted) < peak)
        #expect(result.timeline.count >= 2)
    }

    @Test func readWhileWriteMeasuresTheReader() async throws {
        let result = try await runOne(CaseSpec(workload: .readWhileWrite, engine: .sqlite, strategy: .dedicated,
                                               durability: .unsafe, readings: 300))
        #expect(result.lost == 0)
        #expect((result.readerOps ?? 0) > 0)
        #expect(result.reader != nil)
    }
}

/// Collects progress events from any thread. `@unchecked Sendable`: `events` is guarded by `lock`.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ProgressEvent] = []

    func add(_ event: ProgressEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var skipReasons: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events.compactMap { if case .skipped(_, let reason) = $0 { return reason } else { return nil } }
    }
}

@Suite("Strata engine", .enabled(if: Engines.isAvailable(.strata), "the Strata object layer is not in this build"))
struct StrataEngineTests {
    @Test(arguments: [Durability.full, .unsafe, .memory])
    func opensWithTheRequestedDurability(durability: Durability) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try StrataEngine(EngineConfiguration(directory: dir, durability: durability))
        defer { try? engine.close() }
        let expected = durability == .memory ? "memOnly" : durability.rawValue
        #expect(engine.effectiveSettings.contains("durability=\(expected)"))
        #expect((engine.fileBytes() == nil) == (durability == .memory))
    }

    @Test func addReadingsTrimsAndDeletesAndReadsBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try StrataEngine(EngineConfiguration(directory: dir, durability: .unsafe))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        defer { writer.close() }
        try writer.createSensors(["o3", "aqi"])
        let readings = (1...10_020).map { SensorReading(value: Double($0), seq: Int64($0), timestamp: 0) }
        #expect(try writer.addReadings(batch: [(sensor: "o3", readings: readings), (sensor: "aqi", readings: [readings[0]])]) == 20)
        let reader = try engine.makeReader(placement: .currentThread)
        defer { reader.close() }
        let sequences = try reader.sequences(sensor: "o3")
        #expect(sequences.count == 10_000 && sequences.first == 21 && sequences.last == 10_020)
        let stats = try reader.stats()
        #expect(stats.readings == 10_001 && stats.sensors == 2)
        #expect(stats.averages["aqi"] == .some(1.0))
        #expect(try reader.readingCount(sensor: "nope") == nil)
        let error = #expect(throws: BenchError.self) { try writer.addReadings(sensor: "nope", readings: [readings[0]]) }
        #expect(error?.code == .engine)
    }

    @Test func encryptedStoresRunTheEncryptionWorkload() async throws {
        let spec = CaseSpec(workload: .encryption, engine: .strata, strategy: .dedicated, batchSize: 100, encryption: .on,
                            durability: .unsafe, readings: 500)
        let result = try await runOne(spec)
        #expect(result.lost == 0, "\(result.note)")
        #expect(result.liveObjects == 500)
    }

    @Test func aPinnedReaderCostsStrataNoFileGrowthOverItsUnpinnedTwin() async throws {
        let result = try await runOne(CaseSpec(workload: .pinnedGrowth, engine: .strata, strategy: .dedicated,
                                               durability: .unsafe, readings: 1_500))
        #expect(result.lost == 0, "\(result.note)")
        #expect(result.verified, "\(result.note)")
        let twin = try #require(result.unpinnedTwinBytes)
        let extra = try #require(result.pinnedExtraBytes)
        #expect(twin > 0)
        // A pinned version keeps only its own pages (issue #2's bound is 1 MiB over 20,000 commits).
        #expect(extra <= 1 << 20, "pinned store \(twin + extra) bytes vs unpinned twin \(twin)")
        let slowdown = try #require(result.pinnedSlowdown)
        #expect(slowdown > 0 && slowdown.isFinite)
    }

    @Test func compactionIsMeasuredOrHonestlyAbsent() async throws {
        let result = try await runOne(CaseSpec(workload: .compaction, engine: .strata, strategy: .dedicated, batchSize: 500,
                                               durability: .unsafe, readings: 2_000))
        #expect(result.lost == 0, "\(result.note)")
        #expect(result.liveObjects == 400)
        if result.fileBytesCompacted == nil {
            #expect(result.compactMs == nil)
            #expect(result.note.contains("no compaction"))
        } else {
            #expect(result.compactMs != nil)
        }
    }
}
