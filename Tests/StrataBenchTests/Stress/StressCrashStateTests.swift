import Foundation
import PropertyBased
import Testing
import StrataBench

/// Crash states built from probe traces: exactly the disks a power cut could leave.
@Suite("crash states")
struct StressCrashStateTests {
    private func bytes(_ runs: (UInt8, Int)...) -> [UInt8] { runs.flatMap { [UInt8](repeating: $0.0, count: $0.1) } }

    @Test func aKnownSequenceGivesExactlyItsStates() throws {
        // 0 snapshot ., 1 open ., 2 open f (created), 3 write, 4 fdatasync f, 5 fsync ., 6 write, 7 write, 8 ack, 9 exit
        let run = try TracedRun.run(["opendir:.", "create:f", "pwrite:f:0:1024:1", "fdatasync:f", "fsync:.",
                                     "pwrite:f:0:512:2", "pwrite:f:1024:1024:3", "ack:one"])
        defer { run.remove() }
        let trace = try run.trace()
        #expect(trace.records.count == 10 && trace.records[8].kind == .ack)
        let builder = CrashStateBuilder(trace: trace)

        // After the create, before any flush: f absent, or present and empty.
        let created = builder.states(at: 3, budget: 20, seed: 1)
        #expect(Set(created.map { $0.files["f"] }) == [nil, []])
        // Data flushed, name not yet: absent, or present with the flushed bytes only.
        let flushedData = builder.states(at: 5, budget: 20, seed: 1)
        #expect(Set(flushedData.map { $0.files["f"] }) == [nil, bytes((1, 1024))])

        // After the ack: w6 (one sector: kept or dropped) × w7 (kept, dropped or torn after its
        // first sector, at 1536) = 6 disks, every one holding the flushed 1024 bytes.
        let acked = builder.states(at: 9, budget: 50, seed: 7)
        let w6 = [bytes((1, 1024)), bytes((2, 512), (1, 512))]
        let w7: [[UInt8]] = [[], bytes((3, 1024)), bytes((3, 512))]
        let expected = Set(w6.flatMap { base in w7.map { base + $0 } })
        #expect(acked.count == 6)
        #expect(Set(acked.compactMap { $0.files["f"] }) == expected)
        #expect(acked.allSatisfy { $0.acknowledgements == [Array("one\n".utf8)] && $0.files.count == 1 })
        #expect(acked[0].id.description == "k=9:dropped" && acked[0].files["f"] == bytes((1, 1024)))
        #expect(acked[1].id.description == "k=9:kept" && acked[1].files["f"] == bytes((2, 512), (1, 512), (3, 1024)))
        #expect(acked[1].files["f"] == run.disk("f"))
        #expect(acked[0].summary.hasPrefix("k=9:dropped acks=1 data[#6 dropped, #7 dropped] names[]"))
    }

    /// A commit that grows its file, writes a page in the new room and then its meta, and flushes
    /// once: a file system may keep the meta and lose the growth (fdatasync orders neither). The
    /// state just before that flush which holds the meta without the growth is the third one built
    /// there — all dropped, all kept, then the flushed file's growth omitted, ahead of another
    /// file's unflushed growth — so a budget of three per point reaches it, where random mixes (a
    /// third of them at best) do not reliably.
    @Test func aFlushPointOmitsTheFlushedFilesGrowthFirst() throws {
        // 0 snapshot ., 1 open ., 2 create f, 3 write, 4 fdatasync f, 5 fsync ., 6 ack, 7 create g,
        // 8 write g (never flushed), 9 growth of f (zeros 4096..<12288), 10 page at 4096, 11 meta at 0,
        // 12 fdatasync f, 13 ack, 14 exit
        let run = try TracedRun.run(["opendir:.", "create:f", "pwrite:f:0:4096:1", "fdatasync:f", "fsync:.", "ack:one",
                                     "create:g", "pwrite:g:0:512:9",
                                     "pwrite:f:4096:8192:0", "pwrite:f:4096:512:2", "pwrite:f:0:512:3", "fdatasync:f", "ack:two"])
        defer { run.remove() }
        let trace = try run.trace()
        #expect(trace.records[12].kind == .fdatasync)
        #expect(trace.flushPoints == [4, 5, 12])
        #expect(trace.isFlushPoint(12) && !trace.isFlushPoint(13) && !trace.isFlushPoint(trace.records.count))
        let builder = CrashStateBuilder(trace: trace)
        #expect(builder.crashPoints(randomBetweenAcks: 1, seed: 3).contains(12))

        // Pending at 12: g's write (0), f's growth (1), page (2), meta (3).
        let states = builder.states(at: 12, budget: 3, seed: 1)
        #expect(states.map(\.id.description) == ["k=12:dropped", "k=12:kept", "k=12:omit=1"])
        let torn = try #require(states.last?.files["f"])
        // The meta (3) and the page (2) reached the disk, the zeros that grew the file to 12288 did
        // not: the file ends where the page does.
        #expect(torn.count == 4608 && torn.first == 3 && torn[4096] == 2)
        #expect(builder.state(try #require(CrashStateID("k=12:omit=1"))).files == states[2].files)
        // Every single omission is built when the budget allows: f's others in trace order, then g's.
        let all = builder.states(at: 12, budget: 10, seed: 1).map(\.id.description)
        #expect(all.prefix(6) == ["k=12:dropped", "k=12:kept", "k=12:omit=1", "k=12:omit=2", "k=12:omit=3", "k=12:omit=0"])
        // Not a flush point: no omissions, as before.
        #expect(!builder.states(at: 11, budget: 10, seed: 1).contains { $0.id.description.contains("omit") })
        #expect(CrashStateID("k=12:omit=-1") == nil && CrashStateID("k=12:omit=x") == nil)
    }

    @Test func aCreatedFileIsPresentInEveryStateOnlyAfterItsDirectoryIsFlushed() throws {
        let without = try TracedRun.run(["create:g", "pwrite:g:0:100:5", "fdatasync:g", "ack:done"])
        defer { without.remove() }
        let loose = CrashStateBuilder(trace: try without.trace())
        let end = try without.trace().records.count
        #expect(loose.states(at: end, budget: 10, seed: 3).contains { $0.files["g"] == nil })

        let with = try TracedRun.run(["opendir:.", "create:g", "pwrite:g:0:100:5", "fdatasync:g", "fsync:.", "ack:done"])
        defer { with.remove() }
        let trace = try with.trace()
        let strict = CrashStateBuilder(trace: trace)
        for k in strict.crashPoints(randomBetweenAcks: 3, seed: 9) where k > 5 {
            #expect(strict.states(at: k, budget: 10, seed: 3).allSatisfy { $0.files["g"] == bytes((5, 100)) }, "k=\(k)")
        }
    }

    @Test func aRenameWithoutADirectoryFlushLeavesEitherName() throws {
        let run = try TracedRun.run(["opendir:.", "create:tmp", "pwrite:tmp:0:10:1", "fdatasync:tmp", "fsync:.",
                                     "rename:tmp:db", "ack:renamed", "fsync:."])
        defer { run.remove() }
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace)
        let ack = try #require(trace.acknowledgementPoints.first)
        #expect(Set(builder.states(at: ack, budget: 10, seed: 1).map { $0.files.keys.sorted() }) == [["tmp"], ["db"]])
        #expect(builder.states(at: trace.records.count, budget: 10, seed: 1).map { $0.files.keys.sorted() } == [["db"]])
    }

    @Test func anAtomicReplaceLeavesTheOldFileTheNewOneOrBothUntilTheDirectoryIsFlushed() throws {
        let run = try TracedRun.run(["create:tmp", "pwrite:tmp:0:4:2", "fdatasync:tmp", "rename:tmp:db", "ack:replaced",
                                     "unlink:other", "ack:unlinked", "opendir:.", "fsync:."]) { root in
            try Data([1, 1]).write(to: URL(fileURLWithPath: root).appendingPathComponent("db"))
            try Data([9]).write(to: URL(fileURLWithPath: root).appendingPathComponent("other"))
        }
        defer { run.remove() }
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace)
        let points = trace.acknowledgementPoints
        // Pending: create tmp, rename tmp→db (a prefix of them reaches the disk). "other" was never
        // opened: it is snapshotted when the unlink names it.
        let replaced = Set(builder.states(at: points[0], budget: 20, seed: 5).map { $0.files })
        #expect(replaced == [["db": [1, 1]], ["db": [1, 1], "tmp": [2, 2, 2, 2]], ["db": [2, 2, 2, 2]]])
        let unlinked = Set(builder.states(at: points[1], budget: 20, seed: 5).map { $0.files })
        #expect(unlinked.contains(["db": [1, 1], "other": [9]]) && unlinked.contains(["db": [2, 2, 2, 2]]))
        #expect(unlinked.count == 4)
        let end = builder.states(at: trace.records.count, budget: 20, seed: 5).map { $0.files }
        #expect(end == [["db": [2, 2, 2, 2]]])
    }

    @Test func mappedWritesAreUnflushedUntilTheirFileIsFlushed() throws {
        let run = try TracedRun.run(["opendir:.", "create:m", "truncate:m:8192", "fdatasync:m", "fsync:.", "mmap:m:8192",
                                     "mset:m:4096:100:7", "ack:stored", "msync:m:0:8192", "ack:synced", "munmap:m"])
        defer { run.remove() }
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace)
        let points = trace.acknowledgementPoints
        // (dropFirst, not a subscript: a wrong model's shorter file must fail the test, not crash it.)
        let stored = builder.states(at: points[0], budget: 10, seed: 2).map { $0.files["m"]?.dropFirst(4096).first }
        #expect(Set(stored) == [0, 7])
        let synced = builder.states(at: points[1], budget: 10, seed: 2)
        #expect(!synced.isEmpty && synced.allSatisfy { $0.files["m"]?.dropFirst(4096).first == 7 && $0.files["m"]?.count == 8192 })
    }

    /// A write durable on its own (RWF_DSYNC, or any write through an O_DSYNC descriptor) makes
    /// the pages it touches durable, with every earlier pending write's bytes in them, and no
    /// other page: a log flushed this way must survive losing what it did not flush.
    @Test func aRangeSyncedWriteFlushesItsOwnPagesOnly() throws {
        let run = try TracedRun.run(["opendir:.", "create:f", "pwrite:f:0:12288:1", "fdatasync:f", "fsync:.",
                                     "pwrite:f:0:4096:2", "pwrite:f:8292:100:4", "dsyncwrite:f:8192:50:3", "ack:logged",
                                     "opendsync:f", "pwrite:f:4096:4096:5", "ack:again"])
        defer { run.remove() }
        let trace = try run.trace()
        let builder = CrashStateBuilder(trace: trace)
        let points = trace.acknowledgementPoints
        #expect(points.count == 2)
        let page2 = bytes((3, 50), (1, 50), (4, 100), (1, 4096 - 200))
        func page(_ file: [UInt8], _ n: Int) -> [UInt8] { Array(file.dropFirst(n * 4096).prefix(4096)) }

        let logged = builder.states(at: points[0], budget: 30, seed: 3).compactMap { $0.files["f"] }
        #expect(!logged.isEmpty && logged.allSatisfy { $0.count == 12288 && page($0, 2) == page2 })
        // Page 0's rewrite was never flushed: kept in some disks, lost in others.
        #expect(logged.contains { page($0, 0) == bytes((1, 4096)) })
        #expect(logged.contains { page($0, 0) == bytes((2, 4096)) })

        let again = builder.states(at: points[1], budget: 30, seed: 3).compactMap { $0.files["f"] }
        #expect(!again.isEmpty && again.allSatisfy { page($0, 1) == bytes((5, 4096)) && page($0, 2) == page2 })
        #expect(again.contains { page($0, 0) == bytes((1, 4096)) })
        #expect(run.disk("f").map { page($0, 0) } == bytes((2, 4096)))
    }

    @Test func aStateIsRebuiltFromItsIDAndMaterialised() throws {
        let run = try TracedRun.run(["opendir:.", "create:f", "pwrite:f:0:2048:1", "ack:x", "fsync:.", "pwrite:f:100:3000:2"])
        defer { run.remove() }
        let builder = CrashStateBuilder(trace: try run.trace())
        for state in builder.states(at: 6, budget: 8, seed: 11) {
            let id = try #require(CrashStateID(state.id.description))
            #expect(id == state.id)
            #expect(builder.state(id).files == state.files)
        }
        let state = builder.state(CrashStateID(crashPoint: 6, variant: .kept))
        let dir = URL(fileURLWithPath: run.root).deletingLastPathComponent().appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try state.materialise(into: dir)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent("f"))) == state.files["f"])
        #expect(throws: BenchError.self) { try state.materialise(into: dir) }
    }

    /// Over random pwrite/fdatasync sequences: every byte a flushed write put there is, in every
    /// state at every crash point, that write's or a later write's.
    @Test func nothingFlushedIsEverDropped() async throws {
        await propertyCheck(count: 12, input: Gen.int(in: 0...Int.max)) { seedValue in
            var rng = SplitMix64(seed: UInt64(seedValue))
            var script = ["opendir:.", "create:p", "fsync:."]
            for op in 1...30 {
                if rng.below(4) == 0 { script.append("fdatasync:p"); continue }
                script.append("pwrite:p:\(rng.below(6000)):\(1 + rng.below(1500)):\(op)")
            }
            guard let run = try? TracedRun.run(script), let trace = try? run.trace() else {
                Issue.record("the probe did not run")
                return
            }
            defer { run.remove() }
            let builder = CrashStateBuilder(trace: trace)
            // With everything kept, the model's disk is the one the run left.
            let end = builder.state(CrashStateID(crashPoint: trace.records.count, variant: .kept))
            #expect(end.files["p"] == run.disk("p"))
            for k in 0...trace.records.count {
                let lastFlush = trace.records.prefix(k).last { $0.kind == .fdatasync }?.index ?? -1
                // allowed[x]: the fill bytes of the last flushed write over x and of the writes after
                // it (nil: no flushed write covers x, anything the writes or zeros give is fine).
                var allowed = [[UInt8]?](repeating: nil, count: 7500)
                for w in trace.records.prefix(k) where w.kind == .write {
                    guard let fill = trace.data(w).first else { continue }
                    for x in Int(w.offset)..<Int(w.offset + w.length) {
                        if w.index < lastFlush { allowed[x] = [fill] } else { allowed[x]?.append(fill) }
                    }
                }
                for state in builder.states(at: k, budget: 6, seed: UInt64(k)) {
                    guard let content = state.files["p"] else { continue }
                    for x in 0..<7500 {
                        guard let values = allowed[x] else { continue }
                        let ok = x < content.count && values.contains(content[x])
                        #expect(ok, "\(state.summary) byte \(x)")
                        if !ok { return }
                    }
                }
            }
        }
    }
}
