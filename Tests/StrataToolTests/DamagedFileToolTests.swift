// Every verb of `strata` over damaged files: the corpus file (Tests/StrataCorpus: 3,000 objects,
// lists, links, a durable delete), plain and encrypted, damaged in 40 ways each with a fixed
// seed — bit flips and inverted bytes across the whole file, random bytes over a range, a zeroed
// page, a truncation.
//
// The requirements, for each variant and verb:
// - the process exits 0 or 1 (never a crash or a hang), and on 1 names the cause on stderr;
// - the damaged file is byte-identical afterwards (every verb but `compact` opens it read-only;
//   a compaction that succeeds must leave the same data, one that fails the same bytes);
// - no silent change: an export that succeeds is the undamaged file's export, byte for byte, and
//   so is the export of a file `verify` passes (damage in free pages changes nothing read).
// The counts by outcome are printed.
import Foundation
import Strata
import StrataCorpus
import StrataTool
import Testing

@Suite("strata over damaged files", .serialized)
struct DamagedFileToolTests {
    /// SplitMix64: a fixed-seed generator, so every run damages the same bytes.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    enum Damage: CaseIterable {
        case bitFlip, byteInverted, randomRange, zeroedPage, truncation

        var count: Int {
            switch self {
            case .bitFlip: 14
            case .byteInverted, .randomRange: 8
            case .zeroedPage: 6
            case .truncation: 4
            }
        }
    }

    /// Applies one damage of `kind` to the bytes of a file.
    static func damage(_ bytes: inout [UInt8], _ kind: Damage, _ random: inout Generator) -> String {
        let pages = bytes.count / 4096
        switch kind {
        case .bitFlip:
            let at = random.below(bytes.count), bit = random.below(8)
            bytes[at] ^= 1 << UInt8(bit)
            return "bit \(bit) of byte \(at)"
        case .byteInverted:
            let at = random.below(bytes.count)
            bytes[at] = ~bytes[at]
            return "byte \(at) inverted"
        case .randomRange:
            let at = random.below(bytes.count - 64)
            for i in at..<(at + 64) { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
            return "64 random bytes at \(at)"
        case .zeroedPage:
            let page = random.below(pages)
            for i in (page * 4096)..<((page + 1) * 4096) { bytes[i] = 0 }
            return "page \(page) zeroed"
        case .truncation:
            let keep = random.below(bytes.count)
            bytes.removeLast(bytes.count - keep)
            return "cut to \(keep) bytes"
        }
    }

    struct Tally {
        var counts: [String: Int] = [:]
        mutating func add(_ outcome: String) { counts[outcome, default: 0] += 1 }
        var text: String { counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", ") }
    }

    @Test(arguments: [false, true])
    func everyVerbOverTheDamagedCorpus(encrypted: Bool) throws {
        let dir = toolTestDirectory()
        let pristine = dir + "/corpus.realm"
        _ = try Corpus.build(try Realm(configuration: Corpus.configuration(path: pristine, encrypted: encrypted)))
        let keyFile = dir + "/key.bin"
        try Corpus.key.write(to: URL(fileURLWithPath: keyFile))
        let keyArguments = encrypted ? ["--key-file", keyFile] : []
        let expectedExport = try StrataCLI.run(["export", pristine] + keyArguments)
        #expect(expectedExport.status == 0)
        let expectedCSV = try StrataCLI.run(["export", pristine, "--class", "CorpusItem", "--format", "csv"] + keyArguments)
        let original = [UInt8](fileBytes(pristine))
        var random = Generator(state: encrypted ? 0x5EED_0002 : 0x5EED_0001)
        var tally = Tally()
        var variant = 0
        for kind in Damage.allCases {
            for _ in 0..<kind.count {
                variant += 1
                var bytes = original
                let detail = Self.damage(&bytes, kind, &random)
                let path = dir + "/v\(variant).realm"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let damaged = Data(bytes)
                let verbs: [[String]] = [
                    ["info", path], ["schema", path], ["stat", path], ["verify", path], ["export", path],
                    ["export", path, "--class", "CorpusItem", "--format", "csv"], ["copy", path, dir + "/v\(variant).copy"],
                ]
                var verified = false
                for verb in verbs {
                    let run = try StrataCLI.run(verb + keyArguments, timeout: 60)
                    let label = "\(detail): \(verb[0])"
                    #expect(!run.signaled && !run.timedOut, "\(label): crashed or hung")
                    #expect(run.status == 0 || run.status == 1, "\(label): exit \(run.status)")
                    if run.status == 1 {
                        #expect(run.stderr.hasPrefix("strata: "), "\(label): \(run.stderr)")
                    }
                    #expect(fileBytes(path) == damaged, "\(label): the damaged file was written")
                    tally.add("\(verb[0]) \(run.status == 0 ? "ok" : "refused")")
                    if verb[0] == "verify" { verified = run.status == 0 }
                    if verb[0] == "export", run.status == 0 {
                        let expected = verb.contains("csv") ? expectedCSV.stdout : expectedExport.stdout
                        #expect(run.stdout == expected, "\(label): read different data without an error")
                    }
                    if verb[0] == "copy", run.status == 0 {
                        let copied = try StrataCLI.run(["export", dir + "/v\(variant).copy"] + keyArguments)
                        #expect(copied.stdout == expectedExport.stdout, "\(label): the copy holds different data")
                    }
                }
                if verified {
                    // A file that verifies must read exactly as the undamaged one.
                    let export = try StrataCLI.run(["export", path] + keyArguments)
                    #expect(export.stdout == expectedExport.stdout, "\(detail): verify passed but the data differs")
                }
                let compact = try StrataCLI.run(["compact", path] + keyArguments, timeout: 60)
                #expect(!compact.signaled && !compact.timedOut && (compact.status == 0 || compact.status == 1), "\(detail): compact")
                if compact.status == 0 {
                    #expect(try StrataCLI.run(["export", path] + keyArguments).stdout == expectedExport.stdout, "\(detail): compaction changed the data")
                } else {
                    #expect(fileBytes(path) == damaged, "\(detail): a refused compaction wrote the file")
                }
                tally.add("compact \(compact.status == 0 ? "ok" : "refused")")
            }
        }
        print("strata over \(variant) damaged \(encrypted ? "encrypted" : "plain") corpus files: \(tally.text)")
    }
}
