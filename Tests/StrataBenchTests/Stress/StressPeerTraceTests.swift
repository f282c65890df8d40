import Foundation
import Testing
import StrataBench

/// The peers under the I/O tracer: their traces hold their own file calls, so a crash state is
/// the store the engine could really have left, and a verdict on it is about the engine.
@Suite("stress traces of the peer engines", .serialized)
struct StressPeerTraceTests {
    private static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-peer-trace-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// SQLCipher is opened with deep binding, which hides its calls from an LD_PRELOAD
    /// interposer: with an empty trace every acknowledged commit looked lost. Routed through the
    /// tracer, its states are judged on SQLCipher's own writes and flushes: it keeps every ack.
    @Test(.enabled(if: PeerLibrary.shouldTest(.sqlcipher), PeerLibrary.reason(.sqlcipher)))
    func sqlcipherAtFullKeepsEveryAcknowledgedCommitInItsCrashStates() throws {
        var options = StressOptions.scenario("power-loss", engines: ["sqlcipher"])
        options.encryption = .both
        options.states = 8
        let rows = try ScenarioHarness.rows(options)
        #expect(rows.count == 2)
        ScenarioHarness.expectEveryAckKept(rows, states: 8)
    }

    /// The trace itself: SQLCipher's database file is created, written and flushed in it.
    @Test(.enabled(if: PeerLibrary.shouldTest(.sqlcipher), PeerLibrary.reason(.sqlcipher)))
    func sqlcipherWritesAndFlushesAppearInTheTrace() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        let stressCase = StressCase(engine: .sqlcipher, durability: .full, encryption: .on, strategy: .dedicated)
        let run = try TracedWriterRun.run(stressCase, directory: directory, commits: 3, timeout: 60,
                                       context: StressContext(executable: executable, directory: directory))
        #expect(run.exit == .exited(0), "\(run.errorOutput)")
        let trace = try run.trace()
        let files = Set(trace.records.filter { $0.kind == .open && $0.path == "bench.sqlite" }.map(\.file))
        #expect(!files.isEmpty, "no open of bench.sqlite in the trace")
        let writes = trace.records.filter { $0.kind == .write && files.contains($0.file) }
        #expect(!writes.isEmpty)
        #expect(trace.records.contains { ($0.kind == .fdatasync || $0.kind == .fsync) && files.contains($0.file) })
    }

    /// LMDB never flushes its directory after creating its file. On the strict model a power cut
    /// may take the name, and every acknowledged commit with it: a real finding, failed. On
    /// ext4's journal the file's first fdatasync commits the name, and LMDB keeps every ack.
    @Test(.enabled(if: PeerLibrary.shouldTest(.lmdb), PeerLibrary.reason(.lmdb)))
    func lmdbLosesItsFileOnlyWhereANameNeedsItsDirectorysFlush() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StressOptions()
        options.scenarios = ["power-loss"]
        options.engines = ["lmdb"]
        options.durability = .full
        options.strategies = ["dedicated"]
        options.rounds = 1
        options.states = 12
        options.seed = 45
        options.fileSystem = "posix"
        let strict = try StressKillTests.runner(options, in: directory + "/posix").run()
        #expect(strict.count == 1 && strict[0].verdict == .fail && strict[0].counts.lost > 0, "\(strict.map(\.findings))")
        #expect(strict.first?.fileSystem == .posix)
        options.fileSystem = "ext4"
        let journal = try StressKillTests.runner(options, in: directory + "/ext4").run()
        #expect(journal.count == 1 && journal[0].verdict == .pass, "\(journal.map(\.findings))")
        #expect(journal.first?.counts.lost == 0 && (journal.first?.counts.acknowledged ?? 0) > 0)
        #expect(journal.first?.fileSystem == .ext4)
    }

    /// After a failed fdatasync LMDB abandons that commit and its other writers go on committing:
    /// acknowledged after a failed flush, which LMDB's copy-on-write makes safe. The row notes it
    /// with the source instead of failing, and the power-loss state after the failure still has
    /// to hold every one of those acknowledgements.
    @Test(.enabled(if: PeerLibrary.shouldTest(.lmdb), PeerLibrary.reason(.lmdb)))
    func lmdbsAcknowledgementsAfterAFailedFlushAreNotedAndStillChecked() throws {
        var options = StressOptions.scenario("io-error", engines: ["lmdb"], strategy: "threads")
        options.writers = 3
        options.rounds = 8
        options.states = 8
        options.fileSystem = "ext4"
        let rows = try ScenarioHarness.rows(options)
        #expect(rows.count == 1)
        guard let row = rows.first else { return }
        #expect(row.verdict == .pass, "\(row.findings)")
        #expect(row.counts.lost == 0)
        #expect(row.findings.contains { $0.contains("acknowledged after a failed flush") && $0.contains("documented as safe") },
                "\(row.findings)")
    }

    /// SQLite with several writers: after one commit's WAL sync fails, another connection's
    /// commit is acknowledged. SQLite never publishes the failed commit (the wal-index is appended
    /// only after a successful sync), so that is noted with its source, not failed, and the
    /// power-loss state after the failure must still hold every acknowledgement. Which injection
    /// meets another writer's commit depends on the threads' interleaving, so the sweep is long
    /// enough to meet one in most runs; whenever it does, the case must not fail for it.
    @Test
    func sqlitesAcknowledgementsAfterAFailedWALSyncAreNotedAndStillChecked() throws {
        var options = StressOptions.scenario("io-error", engines: ["sqlite"], strategy: "threads")
        options.writers = 2
        options.injections = 30
        let rows = try ScenarioHarness.rows(options)
        #expect(rows.count == 1)
        guard let row = rows.first else { return }
        #expect(row.verdict != .fail, "\(row.findings)")
        #expect(row.counts.lost == 0 || row.verdict == .documentedLoss)
        let later = row.findings.filter { $0.contains("acknowledged after a failed flush") }
        #expect(later.allSatisfy { $0.contains("documented as safe") && $0.contains("wal.c") }, "\(later)")
    }
}
