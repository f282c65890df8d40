import Foundation
import Testing
import StrataBench

/// The reading verbs never create or change a history, and a history refused as damaged is left
/// exactly as it was: same bytes, nothing new beside it.
@Suite("a history left untouched", .serialized)
struct HistoryUntouchedTests {
    static let readingVerbs: [[String]] = [
        ["history", "list"],
        ["history", "show", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated", "--metric", "readings_per_s"],
        ["history", "changes"],
        ["history", "export", "--format", "influx"],
        ["report", "a.csv", "--out", "page.html"],
    ]

    /// The file's bytes and the names beside it: what "untouched" means.
    static func fingerprint(_ dir: String, _ name: String) throws -> (digest: Data, names: [String]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        return (data, try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(name) }.sorted())
    }

    @Test(arguments: readingVerbs)
    func aReadingVerbOnAMissingHistoryCreatesNothing(verb: [String]) throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [10]), to: dir + "/a.csv")
        let outcome = try CLI.run(verb + ["--history", "missing/h.sqlite"], in: dir)
        #expect(outcome.status == 1, "\(verb): status \(outcome.status), stdout: \(outcome.stdout)")
        #expect(outcome.stderr.contains("missing/h.sqlite: no history there"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/missing"), "\(verb) created the history's directory")
        // The default path too.
        let plain = try CLI.run(verb, in: dir)
        if verb[0] == "history" {
            #expect(plain.status == 1, "\(verb): \(plain.stdout)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/results"), "\(verb) created results/")
        }
    }

    @Test func readingVerbsLeaveAHistoryByteForByteAndCreateNothingBesideIt() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [10, 12]), to: dir + "/a.csv")
        try SyntheticRun.write(SyntheticRun.csv(revision: "r2", time: "2026-11-02T00:00:00Z", readingsPerSecond: [11]), to: dir + "/b.csv")
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite", "a.csv", "b.csv"], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        let before = try Self.fingerprint(dir, "h.sqlite")
        #expect(before.names == ["h.sqlite"])
        for verb in Self.readingVerbs {
            let outcome = try CLI.run(verb + ["--history", "h.sqlite"], in: dir)
            #expect(outcome.status == 0, "\(verb): \(outcome.stderr)")
            let after = try Self.fingerprint(dir, "h.sqlite")
            #expect(after.digest == before.digest && after.names == before.names, "\(verb): \(after.names)")
        }
        let list = try CLI.run(["history", "list", "--history", "h.sqlite"], in: dir)
        #expect(list.stdout.contains("r1") && list.stdout.contains("r2"))
    }

    @Test func aDamagedHistoryIsRefusedByEveryVerbAndLeftExactlyAsItWas() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z",
                                                readingsPerSecond: Array(repeating: 5, count: 200)), to: dir + "/a.csv")
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite", "a.csv"], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        // Scribble over the second half of the file (the pages, not the header).
        var data = try Data(contentsOf: URL(fileURLWithPath: dir + "/h.sqlite"))
        for index in stride(from: data.count / 2, to: data.count, by: 1) { data[index] = 0xA5 }
        try data.write(to: URL(fileURLWithPath: dir + "/h.sqlite"))
        let before = try Self.fingerprint(dir, "h.sqlite")
        #expect(before.names == ["h.sqlite"])
        for verb in Self.readingVerbs + [["history", "import", "a.csv"],
                                         ["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                          "--readings", "10", "--durability", "unsafe", "--out", "out/run.csv", "--dir", dir, "--quiet"]] {
            let outcome = try CLI.run(verb + ["--history", "h.sqlite"], in: dir)
            #expect(outcome.status == 1, "\(verb): \(outcome.stderr)")
            #expect(outcome.stderr.contains("left untouched"), "\(verb): \(outcome.stderr)")
            let after = try Self.fingerprint(dir, "h.sqlite")
            #expect(after.digest == before.digest, "\(verb) changed the damaged file")
            #expect(after.names == ["h.sqlite"], "\(verb) left \(after.names)")
        }
    }
}
