// The damaged-file corpus: a realistic file (Tests/StrataCorpus/CorpusModel.swift: 3,000 objects
// with strings, ints, doubles, an optional and a link, Lists of 2,400 and 50 links, the last
// commit a durable delete of 1,000 of the objects), plain and AES-GCM encrypted, damaged in
// ~100 ways each — single bit flips and 8-bit flips (one byte inverted) at offsets drawn across
// the whole file, its meta slots and the pages its newest version uses, random bytes over a
// range, a zeroed page, two pages swapped, a page copied over another, truncation — with a fixed
// seed.
// Each variant is opened and fully read (every object, every property, every list entry, counts,
// primary-key lookups) by a child `strata-probe read` with a timeout, and classified:
//
//   typed error   a throwing call (the open) failed with a Realm.Error
//   identical     it read exactly the newest version
//   rolled back   it read an older version of the file
//   different     it read something else, without an error
//   stopped       a non-throwing read met the damage and stopped the process with its message
//   crash / hang / untyped error
//
// The requirement: damage present before the open is found by a throwing call, or does not
// change what is read. So: 0 different, 0 crashes, 0 hangs, 0 untyped errors, 0 stopped (a stop
// is for damage that appears after the open), and 0 rolled back — every commit of the file was
// acknowledged as durable, so falling back to an older version would lose an acknowledged commit.
// The fixed-seed generator is QueryFuzzTests' SplitMix64.
// The counts by outcome are printed.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport
import StrataCorpus
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized)
struct DamageCorpusTests {
    enum Outcome: String, CaseIterable {
        case typedError = "typed error", identical, rolledBack = "rolled back", different
        case stopped, crash, hang, untypedError = "untyped error"
    }

    enum Damage: String, CaseIterable {
        case bitFlip = "bit flip", byteFlip = "8-bit flip", randomRange = "random bytes", zeroedPage = "zeroed page"
        case swappedPages = "swapped pages", copiedPage = "page copied over another", truncation

        /// Variants per file kind (100 in all).
        var count: Int {
            switch self {
            case .bitFlip, .byteFlip: return 24
            case .randomRange, .zeroedPage: return 12
            case .swappedPages, .copiedPage: return 10
            case .truncation: return 8
            }
        }
    }

    struct Variant {
        let damage: Damage
        let detail: String
        /// Bytes written over the base file, then the length it is cut to (nil: not cut).
        var edits: [(offset: Int, bytes: [UInt8])] = []
        var truncatedTo: Int?

        func write(base: [UInt8], to path: String) throws {
            var b = base
            for e in edits { b.replaceSubrange(e.offset..<(e.offset + e.bytes.count), with: e.bytes) }
            if let n = truncatedTo { b.removeSubrange(n..<b.count) }
            try Data(b).write(to: URL(fileURLWithPath: path))
        }
    }

    static let pageSize = FileBytes.pageSize
    static let metaRingPages = 8

    /// The pages of the newest version of the file at `path`: every page below its page count
    /// that is not a meta slot, free, held for a reader, or a page of the free list or commit
    /// record (read through the storage layer's own accounting).
    static func livePages(path: String, encrypted: Bool) throws -> [Int] {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full,
                                                       encryptionKey: encrypted ? [UInt8](Corpus.key) : nil))
        defer { file.close() }
        let w = try file.beginWrite()  // the free space is the writer's
        defer { w.rollback() }
        let core = file.core
        var live = Set(metaRingPages..<Int(try core.currentVersion().pageCount))
        for run in core.freeSpace.reusable { for p in run.start..<(run.start + run.count) { live.remove(Int(p)) } }
        for run in core.freeSpace.held { for p in run.start..<(run.start + run.count) { live.remove(Int(p)) } }
        for p in core.freeListPages + core.overflowPages { live.remove(Int(p)) }
        return live.sorted()
    }

    /// The variants of `base` (whose newest version uses `live`), drawn with `rng`: a quarter of
    /// the flips in the meta slots, a quarter anywhere in the file, half in live pages.
    static func variants(of base: [UInt8], live: [Int], rng: inout SplitMix64) -> [Variant] {
        func anyOffset(_ i: Int) -> Int {
            switch i % 4 {
            case 0: return Int(rng.next() % UInt64(metaRingPages * pageSize))
            case 1: return Int(rng.next() % UInt64(base.count))
            default: return livePage() * pageSize + Int(rng.next() % UInt64(pageSize))
            }
        }
        func livePage() -> Int { live[Int(rng.next() % UInt64(live.count))] }
        func page(_ p: Int) -> [UInt8] { Array(base[(p * pageSize)..<((p + 1) * pageSize)]) }
        var out: [Variant] = []
        for damage in Damage.allCases {
            for i in 0..<damage.count {
                var v: Variant
                switch damage {
                case .bitFlip:
                    let o = anyOffset(i)
                    let bit = Int(rng.next() % 8)
                    v = Variant(damage: damage, detail: "offset \(o) bit \(bit)", edits: [(o, [base[o] ^ UInt8(1 << bit)])])
                case .byteFlip:
                    let o = anyOffset(i)
                    v = Variant(damage: damage, detail: "offset \(o)", edits: [(o, [base[o] ^ 0xFF])])
                case .randomRange:
                    let o = anyOffset(i)
                    let n = min(base.count - o, 1 + Int(rng.next() % 2048))
                    v = Variant(damage: damage, detail: "offset \(o) length \(n)",
                                edits: [(o, (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) })])
                case .zeroedPage:
                    let p = i % 4 == 0 ? Int(rng.next() % UInt64(metaRingPages)) : livePage()
                    v = Variant(damage: damage, detail: "page \(p)", edits: [(p * pageSize, [UInt8](repeating: 0, count: pageSize))])
                case .swappedPages, .copiedPage:
                    let p = livePage()
                    var q = livePage()
                    while q == p { q = livePage() }
                    if damage == .swappedPages {
                        v = Variant(damage: damage, detail: "pages \(p) and \(q)", edits: [(q * pageSize, page(p)), (p * pageSize, page(q))])
                    } else {
                        v = Variant(damage: damage, detail: "page \(p) over \(q)", edits: [(q * pageSize, page(p))])
                    }
                case .truncation:
                    let end = (live.last ?? metaRingPages) + 1
                    let n = i % 2 == 0 ? Int(rng.next() % UInt64(end)) * pageSize : Int(rng.next() % UInt64(end * pageSize))
                    v = Variant(damage: damage, detail: "to \(n) bytes")
                    v.truncatedTo = n
                }
                out.append(v)
            }
        }
        return out
    }

    static func classify(_ run: ProbeRun, newest: String, older: [String]) -> Outcome {
        if run.timedOut { return .hang }
        if run.signal != nil { return run.stderr.contains("Strata: ") ? .stopped : .crash }
        let first = run.lines.first ?? ""
        switch run.exitStatus {
        case 0:
            let digest = first.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            if digest == newest { return .identical }
            return older.contains(digest) ? .rolledBack : .different
        case 3: return .typedError
        default: return .untypedError
        }
    }

    @Test(arguments: [false, true])
    func noDamagedFileReadsBackAsDifferentData(encrypted: Bool) throws {
        let dir = CorpusFile.directory("corpus")
        let basePath = dir + "/base.realm"
        let digests = try CorpusFile.build(at: basePath, encrypted: encrypted)
        let newest = digests[digests.count - 1]
        let older = Array(digests.dropLast())
        let base = try [UInt8](Data(contentsOf: URL(fileURLWithPath: basePath)))
        let live = try Self.livePages(path: basePath, encrypted: encrypted)
        var rng = SplitMix64(seed: encrypted ? 0xE17C_0D5E : 0x91A1_17E5)
        let variants = Self.variants(of: base, live: live, rng: &rng)

        let results = Mutex([(Variant, Outcome, ProbeRun)?](repeating: nil, count: variants.count))
        let failures = Mutex([String]())
        let workers = 2
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            for i in stride(from: w, to: variants.count, by: workers) {
                let path = dir + "/v\(i).realm"
                do {
                    try variants[i].write(base: base, to: path)
                    let run = try ProbeRun.run(["read", path, encrypted ? "encrypted" : "plain"], timeout: 30)
                    let outcome = Self.classify(run, newest: newest, older: older)
                    results.withLock { $0[i] = (variants[i], outcome, run) }
                } catch {
                    failures.withLock { $0.append("variant \(i): \(error)") }
                }
                for name in [path, path + ".lock", path + ".compact", path + ".copy"] { unlink(name) }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let all = results.withLock { $0 }.compactMap { $0 }

        // The counts, by damage and outcome.
        var table = "damaged-file corpus, \(encrypted ? "AES-GCM encrypted" : "plain") (\(all.count) variants of a \(base.count / 1024) KiB file, \(live.count) live pages):\n"
        for damage in Damage.allCases {
            let mine = all.filter { $0.0.damage == damage }
            let counts = Outcome.allCases.compactMap { o -> String? in
                let n = mine.filter { $0.1 == o }.count
                return n == 0 ? nil : "\(o.rawValue) \(n)"
            }
            table += "  \(damage.rawValue): \(counts.joined(separator: ", "))\n"
        }
        let totals = Outcome.allCases.map { o in "\(o.rawValue) \(all.filter { $0.1 == o }.count)" }
        table += "  total: \(totals.joined(separator: ", "))"
        print(table)

        // One issue per outcome that must not happen, with its first examples.
        for outcome in Outcome.allCases where outcome != .typedError && outcome != .identical {
            let bad = all.filter { $0.1 == outcome }
            guard !bad.isEmpty else { continue }
            let examples = bad.prefix(4).map { "\($0.0.damage.rawValue) at \($0.0.detail): \($0.2)" }
            let message = "\(bad.count) variants \(outcome.rawValue), e.g.\n  " + examples.joined(separator: "\n  ")
            Issue.record(Comment(rawValue: message))
        }
        #expect(all.count == variants.count)
    }
}
