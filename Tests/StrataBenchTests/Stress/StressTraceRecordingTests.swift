import Foundation
import Testing
import StrataBench

/// libStrataIOTrace.so under a scripted probe: what it records, with which data, in which order.
@Suite("I/O trace recording")
struct StressTraceRecordingTests {
    @Test func aScriptIsRecordedInOrderWithItsData() throws {
        let run = try TracedRun.run(["opendir:.", "create:f", "pwrite:f:0:1024:1", "fdatasync:f", "fsync:.",
                                     "writev:f:2,3:4", "ack:one", "rename:f:g", "fsync:."])
        defer { run.remove() }
        #expect(run.status == 0)
        #expect(run.acknowledged == "one\n")
        let trace = try run.trace()
        #expect(trace.truncatedTail == nil)
        #expect(trace.records.map(\.kind) == [.snapshot, .open, .open, .write, .fdatasync, .fsync, .write, .ack,
                                              .rename, .fsync, .exit])
        #expect(trace.records.map(\.sequence) == Array(1...11))
        let root = trace.records[0], f = trace.records[2]
        #expect(root.path == "." && root.flags == [.directory])
        #expect(f.path == "f" && f.flags == [.created] && f.file != root.file)
        #expect(trace.records[3].offset == 0 && trace.data(trace.records[3]) == [UInt8](repeating: 1, count: 1024))
        #expect(trace.records[4].file == f.file && trace.records[5].file == root.file)
        // writev: one record, the pieces gathered, at the descriptor's position (0: pwrite does not move it).
        #expect(trace.records[6].offset == 0 && trace.data(trace.records[6]) == [4, 4, 4, 4, 4])
        #expect(trace.data(trace.records[7]) == Array("one\n".utf8))
        #expect(trace.records[8].path == "f" && trace.records[8].newPath == "g" && trace.records[8].file == f.file)
        #expect(trace.acknowledgements(before: 7).isEmpty && trace.acknowledgements(before: 8) == [Array("one\n".utf8)])
    }

    @Test func onlyPathsUnderTheRootAreTracedAndPreexistingFilesAreSnapshotted() throws {
        let run = try TracedRun.run(["open:old", "pwrite:old:1:1:9", "create:../outside", "pwrite:../outside:0:4:1",
                                     "unlink:old"]) { root in
            try Data("abc".utf8).write(to: URL(fileURLWithPath: root).appendingPathComponent("old"))
        }
        defer {
            run.remove()
        }
        let trace = try run.trace()
        #expect(trace.records.map(\.kind) == [.snapshot, .open, .write, .unlink, .exit])
        #expect(trace.records[0].path == "old" && trace.data(trace.records[0]) == Array("abc".utf8))
        #expect(trace.records[3].path == "old" && trace.records[3].file == trace.records[0].file)
    }

    @Test func appendsAreRecordedWhereTheyLanded() throws {
        // Linux appends even a pwrite on an O_APPEND descriptor: its offset is ignored.
        let run = try TracedRun.run(["create:f", "pwrite:f:0:100:1", "close:f", "append:f", "write:f:10:2",
                                     "pwrite:f:0:5:3"])
        defer { run.remove() }
        let writes = try run.trace().records(.write)
        #expect(writes.map(\.offset) == [0, 100, 110] && writes.map(\.length) == [100, 10, 5])
        #expect(run.disk("f")?.count == 115)
    }

    @Test func sizeChangesAndRangeSyncsAreRecorded() throws {
        let run = try TracedRun.run(["create:f", "truncate:f:100", "fallocate:f:0:8192", "pfallocate:f:0:12288", "sfr:f:0:4096"])
        defer { run.remove() }
        let trace = try run.trace()
        #expect(trace.records.map(\.kind) == [.open, .truncate, .fallocate, .fallocate, .syncFileRange, .exit])
        #expect(trace.records[1].length == 100)
        #expect(trace.records[3].offset == 0 && trace.records[3].length == 12288 && trace.records[3].aux == 0)
        #expect(trace.records[4].length == 4096)
        #expect(run.report.allSatisfy { $0.hasSuffix(" ok") })
    }

    @Test func storesThroughASharedMappingBecomeMappedWritesBeforeTheNextFlushOrAck() throws {
        let run = try TracedRun.run(["create:m", "truncate:m:8192", "mmap:m:8192", "mset:m:4096:100:7", "ack:a",
                                     "mset:m:10:1:8", "msync:m:0:4096", "mset:m:8000:2:9", "munmap:m"])
        defer { run.remove() }
        let trace = try run.trace()
        #expect(trace.records.map(\.kind) == [.open, .truncate, .mmap, .write, .ack, .write, .msync, .write, .munmap, .exit])
        let first = trace.records[3], second = trace.records[5], third = trace.records[7]
        #expect(first.flags == [.mapped] && first.offset == 4096 && first.length == 4096)
        var block = [UInt8](repeating: 0, count: 4096)
        block.replaceSubrange(0..<100, with: repeatElement(7, count: 100))
        #expect(trace.data(first) == block)
        // The msync's scan finds the block at 0 (before the msync record); munmap's the one at 4096.
        #expect(second.flags == [.mapped] && second.offset == 0 && trace.data(second)[10] == 8)
        #expect(third.offset == 4096 && trace.data(third)[8000 - 4096] == 9 && trace.data(third)[0] == 7)
        #expect(trace.records[6].offset == 0 && trace.records[6].length == 4096)
    }

    @Test func theNthMatchingWriteFailsWithTheChosenErrnoAndOnlyIt() throws {
        let script = ["create:e", "pwrite:e:0:10:1", "pwrite:e:10:10:2", "fdatasync:e", "pwrite:e:20:10:3", "fdatasync:e"]
        let run = try TracedRun.run(script, environment: ["IOTRACE_FAIL_AT": "2", "IOTRACE_FAIL_OPS": "write",
                                                          "IOTRACE_FAIL_ERRNO": "ENOSPC"])
        defer { run.remove() }
        #expect(run.report == ["1 create ok", "2 pwrite ok", "3 pwrite errno=\(ENOSPC)", "4 fdatasync ok", "5 pwrite ok",
                               "6 fdatasync ok"])
        let trace = try run.trace()
        let writes = trace.records(.write)
        #expect(writes.map(\.flags) == [[], [.failed, .injected], []])
        #expect(writes[1].result == ENOSPC && writes[1].offset == 10 && trace.data(writes[1]).isEmpty)
        // Not performed: the bytes it would have written are a hole.
        let disk = try Data(contentsOf: URL(fileURLWithPath: run.root).appendingPathComponent("e"))
        #expect([UInt8](disk) == [UInt8](repeating: 1, count: 10) + [UInt8](repeating: 0, count: 10) + [UInt8](repeating: 3, count: 10))
        // And the crash states agree: the failed write did nothing.
        let state = CrashStateBuilder(trace: trace).state(CrashStateID(crashPoint: trace.records.count, variant: .kept))
        #expect(state.files["e"] == [UInt8](disk))
    }

    @Test func flushFailuresCountOnlyFlushesAndStickyFailsEveryLaterOne() throws {
        let script = ["create:e", "pwrite:e:0:10:1", "fdatasync:e", "pwrite:e:10:10:2", "fsync:e", "fdatasync:e"]
        let once = try TracedRun.run(script, environment: ["IOTRACE_FAIL_AT": "2", "IOTRACE_FAIL_OPS": "flush"])
        defer { once.remove() }
        #expect(once.report == ["1 create ok", "2 pwrite ok", "3 fdatasync ok", "4 pwrite ok", "5 fsync errno=\(EIO)",
                                "6 fdatasync ok"])
        let trace = try once.trace()
        #expect(trace.records(.fsync).map(\.flags) == [[.failed, .injected]])
        #expect(trace.records(.fsync)[0].result == EIO)

        let sticky = try TracedRun.run(script, environment: ["IOTRACE_FAIL_AT": "2", "IOTRACE_FAIL_STICKY": "1"])
        defer { sticky.remove() }
        // any: pwrite 1, fdatasync 2 (fails), then everything fails.
        #expect(sticky.report == ["1 create ok", "2 pwrite ok", "3 fdatasync errno=\(EIO)", "4 pwrite errno=\(EIO)",
                                  "5 fsync errno=\(EIO)", "6 fdatasync errno=\(EIO)"])
    }

    @Test func writesFromSeveralThreadsAreRecordedWholeAndInOrder() throws {
        let run = try TracedRun.run(["opendir:.", "create:t", "fsync:.", "threads:t:8:25", "ack:done"])
        defer { run.remove() }
        #expect(run.report.allSatisfy { $0.hasSuffix(" ok") })
        let trace = try run.trace()
        #expect(trace.truncatedTail == nil)
        #expect(trace.records.map(\.sequence) == Array(1...UInt64(trace.records.count)))
        let writes = trace.records(.write)
        #expect(writes.count == 200 && trace.records(.fdatasync).count == 200)
        #expect(Set(writes.map(\.thread)).count == 8)
        for write in writes {
            let fill = UInt8(write.offset / 512 / 25 + 1)
            #expect(write.length == 512 && trace.data(write) == [UInt8](repeating: fill, count: 512))
        }
        let end = CrashStateBuilder(trace: trace).state(CrashStateID(crashPoint: trace.records.count, variant: .kept))
        #expect(end.files["t"] == run.disk("t"))
    }

    @Test func withoutTheVariablesTheInterposerDoesNothing() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try IOTraceProducts.probe())
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iotrace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        process.arguments = ["--dir", dir.path, "create:f", "pwrite:f:0:3:1", "fsync:f"]
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IOTRACE_") }
        env["LD_PRELOAD"] = try IOTraceProducts.interposer()
        process.environment = env
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["f"])
    }
}
