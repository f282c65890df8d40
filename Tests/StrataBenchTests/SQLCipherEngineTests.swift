import Foundation
import Testing
import GRDB
import GRDBSQLite
@testable import StrataBench

// The same checks as the SQLite engine's (StrategyTests' helpers) through SQLCipher, plus the
// key: settings read back, a wrong key refused at open, and SQLCipher kept apart from the system
// SQLite that GRDB links into the same process.
@Suite("SQLCipher engine", .serialized, .enabled(if: PeerLibrary.shouldTest(.sqlcipher), PeerLibrary.reason(.sqlcipher)))
struct SQLCipherEngineTests {
    static let key: [UInt8] = (0..<64).map { UInt8($0 * 7 & 0xff) }

    @Test(arguments: StrategyKind.allCases)
    func everyStrategyLosesNothing(strategy: StrategyKind) async throws {
        try await StrategyTests.checkEveryStrategyLosesNothing(engine: .sqlcipher, strategy: strategy)
    }

    @Test func addReadingsTrimsTheOldest() throws {
        try StrategyTests.checkAddReadingsTrimsTheOldest(engine: .sqlcipher)
    }

    @Test func trimmingIsAccountedForAsDeletedNotLost() async throws {
        try await StrategyTests.checkTrimmingIsAccountedForAsDeletedNotLost(engine: .sqlcipher)
    }

    @Test(arguments: [(Durability.full, "journal_mode=wal;synchronous=FULL"), (.unsafe, "journal_mode=wal;synchronous=OFF"),
                      (.memory, "memory")])
    func durabilityIsSetAndReadBack(durability: Durability, expected: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try SQLCipherEngine(EngineConfiguration(directory: dir, durability: durability, encryptionKey: Self.key))
        defer { try? engine.close() }
        #expect(engine.effectiveSettings.hasPrefix(expected + ";encryption=on;cipher_version="), "\(engine.effectiveSettings)")
        // The version SQLCipher itself answers (3.4.1 on Debian 12), not an empty pragma.
        #expect(engine.effectiveSettings.last?.isNumber == true, "\(engine.effectiveSettings)")
    }

    @Test func aWrongKeyIsRefusedAtOpen() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let configuration = EngineConfiguration(directory: dir, durability: .unsafe, encryptionKey: Self.key)
        let engine = try SQLCipherEngine(configuration)
        let writer = try engine.makeWriter(placement: .currentThread)
        try writer.createSensors(["o3"])
        try engine.close()
        var wrong = configuration
        wrong.encryptionKey = Self.key.map { $0 ^ 1 }
        let error = #expect(throws: BenchError.self) { try SQLCipherEngine(wrong) }
        #expect(error?.code == .wrongKey)
        #expect(error?.message.contains("wrong key") == true, "\(String(describing: error))")
        var none = configuration
        none.encryptionKey = nil
        #expect((#expect(throws: BenchError.self) { try SQLCipherEngine(none) })?.code == .wrongKey)
    }

    @Test func storeWorkloadsLoseNothingAndCompactionShrinks() async throws {
        let bulk = try await runOne(CaseSpec(workload: .bulkInsert, engine: .sqlcipher, strategy: .dedicated, batchSize: 100,
                                             durability: .unsafe, readings: 1_000))
        #expect(bulk.lost == 0 && bulk.verified && bulk.transactions == 10, "\(bulk.note)")
        let compaction = try await runOne(CaseSpec(workload: .compaction, engine: .sqlcipher, strategy: .dedicated,
                                                   batchSize: 1_000, durability: .unsafe, readings: 10_000))
        #expect(compaction.lost == 0 && compaction.liveObjects == 2_000, "\(compaction.note)")
        #expect(try #require(compaction.fileBytesCompacted) < #require(compaction.fileBytesEnd))
        let pinned = try await runOne(CaseSpec(workload: .pinnedGrowth, engine: .sqlcipher, strategy: .dedicated,
                                               durability: .unsafe, readings: 1_500))
        #expect(pinned.lost == 0, "\(pinned.note)")
        #expect(try #require(pinned.pinnedExtraBytes) > 4_000_000)
        let read = try await runOne(CaseSpec(workload: .readWhileWrite, engine: .sqlcipher, strategy: .dedicated,
                                             durability: .unsafe, readings: 300))
        #expect(read.lost == 0 && (read.readerOps ?? 0) > 0)
    }

    /// The encryption workload runs both ways on the same library and reports the ratio.
    @Test func encryptionRunsWithAndWithoutTheKey() async throws {
        #expect(Engines.supports(.sqlcipher, encryption: .on))
        let cases = [EncryptionSetting.off, .on].map {
            CaseSpec(workload: .encryption, engine: .sqlcipher, strategy: .dedicated, batchSize: 100, encryption: $0,
                     durability: .unsafe, readings: 2_000)
        }
        let results = try await BenchRunner(cases: cases).run()
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.lost == 0 && $0.verified })
        #expect(results[0].engineSettings.contains("encryption=off"))
        #expect(results[1].engineSettings.contains("encryption=on"))
    }

    /// In one process: SQLCipher answers `PRAGMA cipher_version` through the engine and reports its
    /// own SQLite, while GRDB's connection is the system SQLite (no cipher_version) and cannot read
    /// the file SQLCipher encrypted.
    @Test func sqlcipherAndTheSystemSQLiteStayApart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = try SQLCipherEngine(EngineConfiguration(directory: dir, durability: .unsafe, encryptionKey: Self.key))
        let writer = try engine.makeWriter(placement: .currentThread)
        try writer.createSensors(["o3"])
        _ = try writer.addReadings(sensor: "o3", readings: [SensorReading(value: 42.5, seq: 1, timestamp: 0)])
        let cipher = try #require(try engine.cipherVersion())
        #expect(cipher.first?.isNumber == true, "\(cipher)")
        // SQL run through SQLCipher reaches SQLCipher's own SQLite, not the one GRDB loaded.
        let sqlcipherSQLite = try #require(try engine.sqliteVersion())
        #expect(sqlcipherSQLite == (try SQLCipherLibrary.shared.get().sqliteVersion))

        let plain = try DatabaseQueue()
        let (systemVersion, systemCipher) = try plain.read { db in
            (try String.fetchOne(db, sql: "SELECT sqlite_version()"), try String.fetchOne(db, sql: "PRAGMA cipher_version"))
        }
        #expect(systemCipher == nil)
        #expect(systemVersion == String(cString: sqlite3_libversion()))
        // On Debian 12 they differ (3.40.1 and SQLCipher 3.4.1's 3.15.2); when they do, each side
        // reports its own.
        if String(cString: sqlite3_libversion()) != (try SQLCipherLibrary.shared.get().sqliteVersion) {
            #expect(systemVersion != sqlcipherSQLite)
        }

        // The encrypted file, to the system SQLite, is not a database; the marker never appears in it.
        let path = (dir as NSString).appendingPathComponent("bench.sqlite")
        try engine.close()
        let refused = #expect(throws: DatabaseError.self) {
            let foreign = try DatabaseQueue(path: path)
            defer { try? foreign.close() }
            return try foreign.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reading") }
        }
        #expect(refused?.resultCode == .SQLITE_NOTADB)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("SQLite format 3".utf8)) == nil)
        #expect(bytes.range(of: Data("CREATE TABLE".utf8)) == nil)
    }
}
