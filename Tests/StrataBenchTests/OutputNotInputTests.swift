import Foundation
import Testing
import StrataBench

/// No verb writes its output over one of its inputs, however the two are spelled: the same name,
/// a relative spelling, a symbolic link, a hard link. Refused before anything is written.
@Suite("an output is never an input", .serialized)
struct OutputNotInputTests {
    static func scratchWithRun() throws -> (dir: String, run: String, bytes: Data) {
        let dir = try historyScratch()
        let run = dir + "/RUN.csv"
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [10, 11]), to: run)
        return (dir, run, try Data(contentsOf: URL(fileURLWithPath: run)))
    }

    @Test(arguments: ["same name", "relative", "symbolic link", "hard link", "dot segments"])
    func reportRefusesToWriteOverItsRunCSV(spelling: String) throws {
        let (dir, run, before) = try Self.scratchWithRun()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        let out: String
        switch spelling {
        case "same name": out = "RUN.csv"
        case "relative": out = "./RUN.csv"
        case "dot segments": out = "sub/../RUN.csv"
        case "symbolic link":
            try FileManager.default.createSymbolicLink(atPath: dir + "/sub/link.csv", withDestinationPath: run)
            out = "sub/link.csv"
        default:
            try FileManager.default.linkItem(atPath: run, toPath: dir + "/sub/hard.csv")
            out = "sub/hard.csv"
        }
        let outcome = try CLI.run(["report", "RUN.csv", "--out", out], in: dir)
        #expect(outcome.status == 64, "\(spelling): status \(outcome.status), stderr: \(outcome.stderr)")
        #expect(outcome.stderr.contains("--out \(out): the same file as run CSV RUN.csv"), "\(outcome.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: run)) == before, "\(spelling): the run's CSV changed")
    }

    @Test func reportRefusesToWriteOverItsBaselineTimelineOrHistory() throws {
        let (dir, _, _) = try Self.scratchWithRun()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r0", time: "2026-10-01T00:00:00Z", readingsPerSecond: [9]), to: dir + "/base.csv")
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite", "base.csv"], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        for (arguments, input) in [(["--baseline", "base.csv", "--out", "base.csv"], "base.csv"),
                                   (["--history", "h.sqlite", "--out", "h.sqlite"], "h.sqlite"),
                                   (["--timeline", "base.csv", "--out", dir + "/base.csv"], "base.csv")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + input))
            let outcome = try CLI.run(["report", "RUN.csv"] + arguments, in: dir)
            #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("which this command reads"), "\(outcome.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + input)) == before, "\(arguments)")
        }
        // A new path is still written.
        let fine = try CLI.run(["report", "RUN.csv", "--baseline", "base.csv", "--out", "page.html"], in: dir)
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test func aBaselineIsNeverWrittenOverOneOfTheRunsItMerges() throws {
        let (dir, run, _) = try Self.scratchWithRun()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let existing = dir + "/baselines/smoke.csv"
        try SyntheticRun.write(SyntheticRun.csv(revision: "r0", time: "2026-10-01T00:00:00Z", readingsPerSecond: [9]), to: existing)
        let before = try Data(contentsOf: URL(fileURLWithPath: existing))
        let error = #expect(throws: BenchError.self) {
            try Baselines.save(runPaths: [run, dir + "/baselines/../baselines/smoke.csv"], name: "smoke",
                               directory: dir + "/baselines", force: true)
        }
        #expect(error?.code == .invalidOption)
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == before)
    }

    @Test func aRunsCSVIsNeverWrittenOverItsHistory() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outcome = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                   "--readings", "10", "--durability", "unsafe", "--dir", dir, "--quiet",
                                   "--history", "h.sqlite", "--timeline", "./h.sqlite", "--out", "run.csv"], in: dir)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("--timeline ./h.sqlite: the same file as --history h.sqlite"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/run.csv"))
    }
}
