// Copies and compaction are all or nothing: a `writeCopy` or compaction killed at any instant
// (SIGKILL of a child `strata-probe` looping over them, at delays drawn from a fixed seed) leaves
// no partial file under the destination's name, the original opens with its data, and the
// temporaries it left are removed at the next open or the next copy to that name. A compaction
// on launch that cannot run (its copy does not fit on the disk, another copier holds its
// temporary) is skipped and the realm opens.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataCorpus
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized)
struct CopyAtomicityTests {
    static let rounds = 6

    static func read(_ path: String) throws -> ProbeRun {
        try ProbeRun.run(["read", path, "plain"], timeout: 120)
    }

    @Test func aKilledWriteCopyLeavesNoPartialDestination() throws {
        let dir = CorpusFile.directory("kill-copy")
        let source = dir + "/source.realm"
        let newest = try #require(try CorpusFile.copy(to: source, encrypted: false).last)
        var rng = SplitMix64(seed: 0xC0B1)
        var copiesSeen = 0
        var leftovers = 0
        for round in 0..<Self.rounds {
            let copies = dir + "/round\(round)"
            try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
            let child = try ProbeChild(["copy-loop", source, "plain", copies + "/c"])
            usleep(UInt32(50_000 + rng.next() % 600_000))
            child.kill()
            _ = child.finish(timeout: 60)
            let names = try FileManager.default.contentsOfDirectory(atPath: copies)
            let complete = names.filter { $0.hasPrefix("c") && !$0.contains(".") }
                .sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
            let temporaries = names.filter { $0.hasSuffix(".copy") }
            leftovers += temporaries.count
            copiesSeen += complete.count
            // The newest copy is the one a kill could have cut: it must be whole.
            if let last = complete.last {
                let run = try Self.read(copies + "/" + last)
                #expect(run.lines.first?.hasPrefix("digest \(newest) ") == true, "copy \(last) of round \(round): \(run)")
            }
            // A temporary is left when the kill came before its name was given (then the name can
            // be copied to again, which removes it) or in the instant after (then the copy under
            // the name is whole, and opening it removes the temporary).
            for t in temporaries {
                let target = copies + "/" + String(t.dropLast(".copy".count))
                if FileManager.default.fileExists(atPath: target) {
                    let run = try Self.read(target)
                    #expect(run.lines.first?.hasPrefix("digest \(newest) ") == true, "copy \(target): \(run)")
                } else {
                    let realm = try Realm(configuration: Corpus.configuration(path: source, encrypted: false))
                    try realm.writeCopy(toFile: URL(fileURLWithPath: target))
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: copies).allSatisfy { !$0.hasSuffix(".copy") })
        }
        let run = try Self.read(source)
        #expect(run.lines.first?.hasPrefix("digest \(newest) ") == true, "\(run)")
        print("killed writeCopy: \(Self.rounds) rounds, \(copiesSeen) complete copies, \(leftovers) temporaries of cut copies, 0 partial destinations")
    }

    @Test func aKilledCompactionLeavesTheFileWholeAndItsTemporaryGoesAtTheNextOpen() throws {
        let dir = CorpusFile.directory("kill-compact")
        let source = dir + "/source.realm"
        let newest = try #require(try CorpusFile.copy(to: source, encrypted: false).last)
        var rng = SplitMix64(seed: 0xC0FAC7)
        var leftovers = 0
        for round in 0..<Self.rounds {
            let child = try ProbeChild(["compact-loop", source, "plain"])
            usleep(UInt32(50_000 + rng.next() % 600_000))
            child.kill()
            _ = child.finish(timeout: 60)
            if FileManager.default.fileExists(atPath: source + ".compact") { leftovers += 1 }
            let run = try Self.read(source)
            #expect(run.lines.first?.hasPrefix("digest \(newest) ") == true, "round \(round): \(run)")
            #expect(!FileManager.default.fileExists(atPath: source + ".compact"), "round \(round): the killed compaction's copy survived the next open")
        }
        print("killed compaction: \(Self.rounds) rounds, \(leftovers) left a .compact file, removed at the next open")
    }

    @Test func aCompactionOnLaunchWhoseCopyDoesNotFitIsSkipped() throws {
        let dir = CorpusFile.directory("compact-full")
        let source = dir + "/source.realm"
        let newest = try #require(try CorpusFile.copy(to: source, encrypted: false).last)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        // Files limited to 256 KiB: the copy cannot be written, the original (larger) is only read.
        let run = try ProbeRun.run(["compact-limited", source, "plain", "\(256 * 1024)"], timeout: 120)
        #expect(run.lines.first?.hasPrefix("digest \(newest) ") == true, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: source + ".compact"))
        #expect(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int == size)
        // The control: with room for the copy the same open does compact the file.
        let roomy = try ProbeRun.run(["compact-limited", source, "plain", "\(1 << 30)"], timeout: 120)
        #expect(roomy.lines.first?.hasPrefix("digest \(newest) ") == true, "\(roomy)")
        let compacted = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        #expect(compacted < size)
    }

    @Test func aCompactionOnLaunchWhileAnotherCopierHoldsItsTemporaryIsSkipped() throws {
        var config = tempConfig("compact-held", durability: .full)
        let path = try #require(config.fileURL?.path)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<100 { realm.add(CorpusMarker(value: [i])) } }
        }
        // A live copier's temporary: created and locked (as CopyTemporary does).
        let held = open(path + ".compact", O_RDWR | O_CREAT | O_EXCL, 0o644)
        #expect(held >= 0)
        defer { close(held) }
        #expect(LockFile.setLock(held, type: Int32(F_WRLCK), byte: 0, wait: false))
        config.shouldCompactOnLaunch = { _, _ in true }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(CorpusMarker.self).count == 100)
        #expect(FileManager.default.fileExists(atPath: path + ".compact"), "a temporary held by a live copier was removed")
    }

    @Test func aStaleTemporaryOfAKilledCopyIsRemovedAtTheNextOpen() throws {
        let config = tempConfig("stale", durability: .full)
        let path = try #require(config.fileURL?.path)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(CorpusMarker(value: [1])) }
        }
        // A copy of an uncommitted write is a page file under the temporary name: it has a lock file.
        for suffix in [".compact", ".copy", ".copy.lock"] {
            _ = FileManager.default.createFile(atPath: path + suffix, contents: Data(repeating: 1, count: 8192))
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(CorpusMarker.self).count == 1)
        for suffix in [".compact", ".copy", ".copy.lock"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) survived the open")
        }
    }
}
