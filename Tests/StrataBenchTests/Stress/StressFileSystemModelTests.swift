import Foundation
import Testing
import StrataBench

/// `--fs-model`: the same trace gives the states of a strict POSIX file system or of ext4's
/// journal, which makes earlier name changes durable with the flush that commits it.
@Suite("crash states per file-system model")
struct StressFileSystemModelTests {
    private func bytes(_ value: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: value, count: count) }

    @Test func aNewFileFlushedWithoutItsDirectoryIsKeptOnlyByExt4() throws {
        let run = try TracedRun.run(["create:g", "pwrite:g:0:100:5", "fdatasync:g", "ack:done"])
        defer { run.remove() }
        let trace = try run.trace()
        let end = trace.records.count
        let posix = CrashStateBuilder(trace: trace, fileSystem: .posix).states(at: end, budget: 10, seed: 3)
        #expect(posix.contains { $0.files["g"] == nil }, "POSIX: the name waits for its directory's flush")
        let ext4 = CrashStateBuilder(trace: trace, fileSystem: .ext4).states(at: end, budget: 10, seed: 3)
        #expect(!ext4.isEmpty && ext4.allSatisfy { $0.files["g"] == bytes(5, 100) }, "ext4: the fdatasync of a new file commits its name")
        // Before the flush, ext4 too may lose the name.
        let flush = try #require(trace.records.firstIndex { $0.kind == .fdatasync })
        let before = CrashStateBuilder(trace: trace, fileSystem: .ext4).states(at: flush, budget: 10, seed: 3)
        #expect(before.contains { $0.files["g"] == nil })
    }

    @Test func ext4sDataOnlyFlushCommitsNoNameButItsFullFlushDoes() throws {
        // h exists and is flushed; g is created; h is rewritten in place (same size) and
        // fdatasync'd: data only, g's name still pending; then h is fsync'd: the journal commits.
        let run = try TracedRun.run(["opendir:.", "create:h", "pwrite:h:0:10:1", "fdatasync:h", "fsync:.",
                                     "create:g", "pwrite:h:0:10:2", "fdatasync:h", "ack:one", "fsync:h", "ack:two"])
        defer { run.remove() }
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace, fileSystem: .ext4)
        let acks = trace.acknowledgementPoints
        #expect(acks.count == 2)
        let afterDataSync = builder.states(at: acks[0], budget: 10, seed: 1)
        #expect(afterDataSync.contains { $0.files["g"] == nil }, "a same-size fdatasync commits no journal")
        #expect(afterDataSync.allSatisfy { $0.files["h"] == bytes(2, 10) })
        let afterFullSync = builder.states(at: acks[1], budget: 10, seed: 1)
        #expect(afterFullSync.allSatisfy { $0.files["g"] == [] }, "fsync commits the journal, and g's name with it")
    }

    @Test func anUnknownModelIsATypedError() {
        var options = StressOptions()
        options.scenarios = ["power-loss"]
        options.fileSystem = "zfs"
        #expect(throws: BenchError.self) { try StressPlan.make(options) }
        do {
            _ = try StressPlan.make(options)
        } catch let error as BenchError {
            #expect(error.message.contains("--fs-model") && error.message.contains("posix") && error.message.contains("ext4"))
        } catch {
            Issue.record("not a BenchError: \(error)")
        }
    }

    @Test func theModelIsInTheRowsAndTheReplayCommand() throws {
        var options = StressOptions()
        options.scenarios = ["power-loss"]
        options.fileSystem = "ext4"
        #expect(try StressPlan.make(options).fileSystem == .ext4)
        options.fileSystem = nil
        #expect(try StressPlan.make(options).fileSystem == .posix)
        let stressCase = StressCase(engine: .lmdb, durability: .full, encryption: .off, strategy: .dedicated)
        let line = CrashStateReplay.command(stressCase, trace: "t.iot", state: CrashStateID(crashPoint: 3, variant: .dropped),
                                            out: "o", fileSystem: .ext4)
        #expect(line.contains("--fs-model ext4"))
        #expect(StressReport.columns.last == "fs_model")
    }
}
