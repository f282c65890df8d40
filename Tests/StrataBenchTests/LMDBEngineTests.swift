import Foundation
import Testing
@testable import StrataBench

// The same checks as the SQLite engine's (StrategyTests' helpers), plus what is LMDB's own:
// durability read back, the map growing instead of failing, compaction, encryption refused.
@Suite("LMDB engine", .serialized, .enabled(if: PeerLibrary.shouldTest(.lmdb), PeerLibrary.reason(.lmdb)))
struct LMDBEngineTests {
    @Test(arguments: StrategyKind.allCases)
    func everyStrategyLosesNothing(strategy: StrategyKind) async throws {
        try await StrategyTests.checkEveryStrategyLosesNothing(engine: .lmdb, strategy: strategy)
    }

    @Test func trimmingIsAccountedForAsDeletedNotLost() async throws {
        try await StrategyTests.checkTrimmingIsAccountedForAsDeletedNotLost(engine: .lmdb)
    }

    @Test(arguments: [(Durability.full, "store=file;sync=commit"), (.unsafe, "store=file;sync=MDB_NOSYNC"),
                      (.memory, "store=tmpfs;sync=MDB_NOSYNC")])
    func durabilityIsReadBack(durability: Durability, expected: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try LMDBEngine(EngineConfiguration(directory: dir, durability: durability))
        #expect(engine.effectiveSettings.hasPrefix(expected), "\(engine.effectiveSettings)")
        #expect(engine.effectiveSettings.contains("LMDB 0.9"))
        if durability == .memory {
            #expect(engine.fileBytes() == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        } else {
            #expect((engine.fileBytes() ?? 0) > 0)
        }
        try engine.close()
    }

    @Test func addReadingsTrimsTheOldestKeysAndReportsDeletions() throws {
        try StrategyTests.checkAddReadingsTrimsTheOldest(engine: .lmdb)
    }

    /// A map too small for the data grows (doubling) instead of failing the write.
    @Test func aFullMapGrowsInsteadOfFailing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let initial = 64 << 10
        let engine = try LMDBEngine(EngineConfiguration(directory: dir, durability: .unsafe), library: LMDBLibrary.shared,
                                    initialMapSize: initial)
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        for batch in 0..<20 {
            try writer.insertStandalone((1...1_000).map { SensorReading(value: 1, seq: Int64(batch * 1_000 + $0), timestamp: 0) })
        }
        #expect(engine.environment.mapSize > initial)
        #expect(try engine.makeReader(placement: .currentThread).stats().readings == 20_000)
        #expect(try writer.deleteStandalone(seqBelow: 5_001) == 5_000)
        #expect(try engine.makeReader(placement: .currentThread).stats().readings == 15_000)
    }

    @Test func storeWorkloadsLoseNothingAndCompactionShrinks() async throws {
        let bulk = try await runOne(CaseSpec(workload: .bulkInsert, engine: .lmdb, strategy: .dedicated, batchSize: 100,
                                             durability: .unsafe, readings: 1_000))
        #expect(bulk.lost == 0 && bulk.verified, "\(bulk.note)")
        #expect(bulk.transactions == 10)
        let compaction = try await runOne(CaseSpec(workload: .compaction, engine: .lmdb, strategy: .dedicated,
                                                   batchSize: 1_000, durability: .unsafe, readings: 20_000))
        #expect(compaction.lost == 0 && compaction.liveObjects == 4_000, "\(compaction.note)")
        #expect(try #require(compaction.fileBytesCompacted) < #require(compaction.fileBytesEnd))
        let read = try await runOne(CaseSpec(workload: .readWhileWrite, engine: .lmdb, strategy: .dedicated,
                                             durability: .unsafe, readings: 300))
        #expect(read.lost == 0 && (read.readerOps ?? 0) > 0)
    }

    /// A read transaction held open keeps the pages of its version: the file grows past the
    /// unpinned twin's.
    @Test func aPinnedReadTransactionGrowsTheFile() async throws {
        let result = try await runOne(CaseSpec(workload: .pinnedGrowth, engine: .lmdb, strategy: .dedicated,
                                               durability: .unsafe, readings: 2_000))
        #expect(result.lost == 0, "\(result.note)")
        #expect(try #require(result.pinnedExtraBytes) > 1_000_000)
        #expect(try #require(result.fileBytesCompacted) < #require(result.fileBytesPeak))
    }

    @Test func encryptionIsSkippedWithANoteNotFaked() async throws {
        #expect(!Engines.supports(.lmdb, encryption: .on))
        let events = EventLog()
        let spec = CaseSpec(workload: .encryption, engine: .lmdb, strategy: .dedicated, batchSize: 100, encryption: .on,
                            durability: .unsafe, readings: 200)
        #expect(try await BenchRunner(cases: [spec], progress: { events.add($0) }).run().isEmpty)
        #expect(events.skipReasons.contains { $0.contains("LMDB has no encryption") && $0.contains("not faked") })
    }
}

@Suite("optional engine libraries")
struct OptionalLibraryTests {
    @Test func anAbsentLMDBIsUnavailableWithItsInstallLine() throws {
        let missing = LMDBLibrary.load("liblmdb-absent-for-test.so.0")
        let reason = try #require(missing.failure)
        #expect(reason.description.hasPrefix("unavailable: apt-get install -y liblmdb0"), "\(reason)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: BenchError.self) {
            try LMDBEngine(EngineConfiguration(directory: dir, durability: .unsafe), library: missing, initialMapSize: 1 << 20)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("apt-get install -y liblmdb0") == true)
    }

    @Test func anAbsentSQLCipherIsUnavailableWithItsInstallLine() throws {
        let missing = SQLCipherLibrary.load("libsqlcipher-absent-for-test.so.0")
        let reason = try #require(missing.failure)
        #expect(reason.description.hasPrefix("unavailable: apt-get install -y libsqlcipher0"), "\(reason)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: BenchError.self) {
            try SQLCipherEngine(EngineConfiguration(directory: dir, durability: .unsafe), library: missing)
        }
        #expect(error?.code == .unavailable)
    }

    /// A library that loads but is not the one asked for (the system SQLite has no sqlite3_key)
    /// is unavailable too, naming the missing function.
    @Test func aLibraryWithoutSQLCiphersFunctionsIsNotSQLCipher() throws {
        let plain = SQLCipherLibrary.load("libsqlite3.so.0")
        let reason = try #require(plain.failure)
        #expect(reason.detail.contains("sqlite3_key"), "\(reason)")
    }

    /// CI installs both libraries (.ci/run): there, an absent one fails here by name, besides the
    /// failures of its engine's suite, which runs anyway.
    @Test(arguments: [EngineKind.lmdb, .sqlcipher])
    func ciHasEveryPeerLibrary(kind: EngineKind) {
        guard PeerLibrary.inCI else { return }
        #expect(Engines.isAvailable(kind), "\(kind.rawValue): \(Engines.unavailability(kind) ?? "")")
    }

    /// `list`'s line for each engine: available, or the install line.
    @Test func everyEngineIsListedAvailableOrWithTheLineThatInstallsIt() {
        for kind in EngineKind.allCases {
            if let reason = Engines.unavailability(kind) {
                #expect(!kind.isBuiltIn)
                #expect(reason.contains("apt-get install -y"), "\(reason)")
            }
        }
    }
}
