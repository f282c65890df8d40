import Foundation
import Testing
import StrataBench

@Suite("history on the command line", .serialized)
struct HistoryCLITests {
    @Test func aRunIsAppendedAndShowGivesTheCSVsMedian() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                               "--readings", "200", "--durability", "unsafe", "--repetitions", "3",
                               "--out", "out/run.csv", "--dir", dir, "--quiet"], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        // The default place, relative to the working directory.
        #expect(FileManager.default.fileExists(atPath: dir + "/results/history.sqlite"))
        let table = try CSVReader.read(path: dir + "/out/run.csv")
        let values = table.records.compactMap { Double($0["readings_per_s"] ?? "") }
        #expect(values.count == 3)

        let show = try CLI.run(["history", "show", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                "--metric", "readings_per_s"], in: dir)
        #expect(show.status == 0, "stderr: \(show.stderr)")
        let revision = try #require(table.records.first?["git_rev"])
        let line = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix(revision + " ") })
        let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // revision, first run, runs, values, median, min, max, spread
        #expect(cells[2] == "1" && cells[3] == "3")
        #expect(cells[4] == CSVNumber.format(Statistics.median(values)))
        #expect(cells[5] == CSVNumber.format(values.min()!) && cells[6] == CSVNumber.format(values.max()!))

        let list = try CLI.run(["history", "list"], in: dir)
        #expect(list.status == 0)
        #expect(list.stdout.contains(revision) && list.stdout.contains("custom"))

        // The run's own CSV imported afterwards is the same run.
        let again = try CLI.run(["history", "import", "out/run.csv"], in: dir)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.contains("already in the history as run 1; nothing added"))

        // --no-history leaves no trace; --history chooses the file.
        let other = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                 "--readings", "50", "--durability", "unsafe", "--out", "out/two.csv", "--dir", dir,
                                 "--quiet", "--no-history"], in: dir)
        #expect(other.status == 0, "stderr: \(other.stderr)")
        #expect(try HistoryStore(path: dir + "/results/history.sqlite").runs().count == 1)
    }

    @Test func importIsIdempotentAndABadFileAmongGoodOnesAddsNothing() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [10, 11]), to: dir + "/a.csv")
        try SyntheticRun.write(SyntheticRun.csv(revision: "r2", time: "2026-11-02T00:00:00Z", readingsPerSecond: [12]), to: dir + "/b.csv")
        try SyntheticRun.write("not,a,run\n1,2,3\n", to: dir + "/c.csv")
        let bad = try CLI.run(["history", "import", "--history", "h.sqlite", "a.csv", "c.csv"], in: dir)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("c.csv") && bad.stderr.contains("invalidCSV"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/h.sqlite"))

        let first = try CLI.run(["history", "import", "--history", "h.sqlite", "a.csv", "b.csv"], in: dir)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("a.csv: added as run 1 (2 rows, rev r1)"))
        let second = try CLI.run(["history", "import", "--history", "h.sqlite", "b.csv", "a.csv"], in: dir)
        #expect(second.status == 0)
        #expect(second.stdout.contains("b.csv: already in the history as run 2; nothing added"))
        #expect(second.stdout.contains("a.csv: already in the history as run 1; nothing added"))
        #expect(try HistoryStore(path: dir + "/h.sqlite").runs().count == 2)
    }

    @Test func aHistoryThatIsNotOursFailsEveryVerbWithExit1AndStaysUntouched() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = "my notes, not a database\n"
        try SyntheticRun.write(text, to: dir + "/notes.sqlite")
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "t", readingsPerSecond: [1]), to: dir + "/a.csv")
        for arguments in [["history", "list"], ["history", "import", "a.csv"],
                          ["history", "show", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated", "--metric", "lost"],
                          ["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated", "--readings", "10",
                           "--durability", "unsafe", "--out", "out/run.csv", "--dir", dir, "--quiet"]] {
            let outcome = try CLI.run(arguments + ["--history", "notes.sqlite"], in: dir)
            #expect(outcome.status == 1, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains("notes.sqlite: not a SQLite database"), "\(outcome.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/notes.sqlite", encoding: .utf8) == text)
        // The run refused before its first case: no CSV.
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/run.csv"))
    }

    /// Two processes importing runs into one (new) history at the same time: every run is there.
    @Test func twoProcessesAppendingAtOnceLoseNothing() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let perProcess = 60
        var batches: [[String]] = [[], []]
        for process in 0..<2 {
            for index in 0..<perProcess {
                let name = "p\(process)-\(index).csv"
                try SyntheticRun.write(SyntheticRun.csv(revision: "r\(index)", time: String(format: "2026-11-01T00:%02d:%02dZ", index / 60, index % 60),
                                                        readingsPerSecond: [Double(1000 * process + index), 1, 2],
                                                        host: "host\(process)/00000000"), to: dir + "/" + name)
                batches[process].append(name)
            }
        }
        let executable = try #require(CLI.executable)
        let children = batches.enumerated().map { process, files -> Process in
            let child = Process()
            // One import per file: every append opens the store, as parallel CI jobs would. Each
            // child's errors go to its own file, so that a failed import says why.
            child.arguments = ["-c", files.map { "'\(executable)' history import --history h.sqlite \($0) >/dev/null 2>>errors-\(process).txt || exit 1" }.joined(separator: "; ")]
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            child.currentDirectoryURL = URL(fileURLWithPath: dir)
            child.standardInput = FileHandle.nullDevice
            return child
        }
        for child in children { try child.run() }
        for child in children { child.waitUntilExit() }
        let errors = (0..<2).map { (try? String(contentsOfFile: dir + "/errors-\($0).txt", encoding: .utf8)) ?? "" }
        #expect(children.map(\.terminationStatus) == [0, 0], "stderr of the imports: \(errors)")
        let store = try HistoryStore(path: dir + "/h.sqlite")
        let runs = try store.runs()
        #expect(runs.count == 2 * perProcess)
        #expect(Set(runs.map(\.host)) == ["host0/00000000", "host1/00000000"])
        #expect(try store.observations(metric: "readings_per_s", filter: .init()).count == 2 * perProcess * 3)
    }

    @Test func changesNamesTheRevisionWhereThroughputStepped() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var noise = SeededNoise(state: 42)
        var files: [String] = []
        for index in 0..<14 {
            let level = index < 9 ? 1000.0 : 880.0
            let name = "run\(index).csv"
            try SyntheticRun.write(SyntheticRun.csv(revision: "rev\(index)", time: String(format: "2026-11-%02dT00:00:00Z", index + 1),
                                                    readingsPerSecond: noise.points(3, level: level, relative: 0.02)),
                                   to: dir + "/" + name)
            files.append(name)
        }
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite"] + files, in: dir)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let changes = try CLI.run(["history", "changes", "--history", "h.sqlite", "--metric", "readings_per_s"], in: dir)
        #expect(changes.status == 0, "stderr: \(changes.stderr)")
        let lines = changes.stdout.split(separator: "\n").filter { $0.contains("readings_per_s") }
        #expect(lines.count == 1, "\(changes.stdout)")
        #expect(lines.first?.contains("rev8 -> rev9") == true, "\(changes.stdout)")
        // The commit latency of those runs never moved.
        let latency = try CLI.run(["history", "changes", "--history", "h.sqlite", "--metric", "commit_p50_us"], in: dir)
        #expect(latency.stdout == "no changes beyond the noise in 1 series\n", "\(latency.stdout)")
    }
}
