import Foundation
import Testing
import Strata
import StrataBench
import StrataBuildRevision

private func scratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-cli-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A `strata-bench run` child whose stderr is read while it runs, so a test can signal it at a
/// chosen moment.
private final class RunningChild {
    let process = Process()
    let stderrPath: String
    let stdoutPath: String

    init(_ arguments: [String], in directory: String) throws {
        let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        stderrPath = directory + "/child.stderr"
        stdoutPath = directory + "/child.stdout"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// Waits (up to `seconds`) until stderr contains `text`.
    func waitFor(_ text: String, seconds: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            if !process.isRunning { return stderr.contains(text) }
            usleep(20_000)
        }
        return false
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("run as a user meets it", .serialized)
struct CLIRunTests {
    // MARK: Interruption

    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func aSignalKeepsTheFinishedCasesAndRemovesTheStores(signal: Int32, status: Int32, name: String) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stores = dir + "/stores"
        try FileManager.default.createDirectory(atPath: stores, withIntermediateDirectories: true)
        // Three time-bound cases of 3 s; the signal arrives early in the second.
        let child = try RunningChild(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                      "--strategy", "batched", "--strategy", "async", "--durability", "unsafe",
                                      "--duration", "3", "--out", "out/run.csv", "--dir", stores], in: dir)
        #expect(child.waitFor("[2/3]"), "stderr: \(child.stderr)")
        usleep(300_000)
        // The second case's store exists while it runs.
        let during = try FileManager.default.contentsOfDirectory(atPath: stores)
        #expect(!during.isEmpty)
        kill(child.process.processIdentifier, signal)
        let exit = child.wait()
        #expect(exit == status, "stderr: \(child.stderr)")
        let lines = child.stderr.split(separator: "\n")
        let last = String(lines.last ?? "")
        #expect(last.hasPrefix("interrupted by \(name): kept the 1 finished case of 3 in out/run.csv"), "\(last)")
        #expect(last.contains("stores removed"))
        let table = try CSVReader.read(path: dir + "/out/run.csv")
        #expect(table.rows.count == 1)
        let row = try #require(table.records.first)
        #expect(row["strategy"] == "dedicated" && row["interrupted"] == "true" && row["verified"] == "true" && row["lost"] == "0")
        #expect(FileManager.default.fileExists(atPath: dir + "/out/run.timeline.csv"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: stores).isEmpty, "stores left behind")
        // The table of the finished case is on stdout.
        #expect(child.stdout.contains("dedicated"))

        // An interrupted run is refused as a baseline, by `baseline` and by `compare`.
        let saved = try CLI.run(["baseline", "out/run.csv", "--name", "cut"], in: dir)
        #expect(saved.status == 1)
        #expect(saved.stderr.contains("interrupted"), "\(saved.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/results/baselines/cut.csv"))
        let compared = try CLI.run(["compare", "out/run.csv", "out/run.csv"], in: dir)
        #expect(compared.status == 1)
        #expect(compared.stderr.contains("out/run.csv:2:"), "\(compared.stderr)")
    }

    @Test func aSecondSignalStopsAtOnceAndStillKeepsWhatFinished() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stores = dir + "/stores"
        try FileManager.default.createDirectory(atPath: stores, withIntermediateDirectories: true)
        // One transaction of 2,000,000 readings: seconds without a point where the stop is seen.
        let child = try RunningChild(["run", "--workload", "bulk-insert", "--engine", "sqlite", "--readings", "2000000",
                                      "--batch-size", "2000000", "--durability", "unsafe", "--out", "out/run.csv",
                                      "--dir", stores], in: dir)
        #expect(child.waitFor("[1/1]"), "stderr: \(child.stderr)")
        usleep(300_000)
        kill(child.process.processIdentifier, SIGINT)
        usleep(300_000)
        kill(child.process.processIdentifier, SIGINT)
        let exit = child.wait()
        #expect(exit == 130, "stderr: \(child.stderr)")
        let last = String(child.stderr.split(separator: "\n").last ?? "")
        #expect(last.hasPrefix("interrupted by SIGINT: kept the 0 finished cases of 1 in out/run.csv"), "\(last)")
        #expect(last.contains("stopped at once on a second signal"), "\(last)")
        let table = try CSVReader.read(path: dir + "/out/run.csv")
        #expect(table.header == SummaryColumns.all && table.rows.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: stores).isEmpty, "stores left behind")
    }

    // MARK: Outputs

    @Test func outputTargetsThatAreNotRegularFilesAreRefusedBeforeTheFirstCase() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try "precious\n".write(toFile: dir + "/precious.txt", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: dir + "/precious.txt")
        #expect(mkfifo(dir + "/fifo.csv", 0o600) == 0)
        try fm.createDirectory(atPath: dir + "/adir.csv", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        let cases: [(arguments: [String], mention: String)] = [
            (["--out", "link.csv"], "is a symbolic link"),
            (["--out", "fifo.csv"], "is a FIFO"),
            (["--out", "/dev/null"], "is a character device"),
            (["--out", "adir.csv"], "is a directory"),
            (["--out", "file/x.csv"], "cannot create the directory"),
            (["--out", "/proc/strata-bench-test.csv"], "/proc"),
            (["--out", "same.csv", "--timeline", "same.csv"], "the same file as --out"),
            (["--out", "same.csv", "--timeline", "./sub/../same.csv"], "the same file as --out"),
            (["--out", "run.csv", "--timeline", "link.csv"], "--timeline link.csv: is a symbolic link"),
        ]
        for (arguments, mention) in cases {
            let outcome = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                                       "--readings", "30", "--durability", "unsafe", "--quiet"] + arguments, in: dir)
            #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(mention), "\(arguments): \(outcome.stderr)")
            #expect(!outcome.stderr.contains("[1/1]"), "a case ran before the check")
        }
        // Nothing was replaced.
        #expect(try fm.destinationOfSymbolicLink(atPath: dir + "/link.csv") == dir + "/precious.txt")
        #expect(try String(contentsOfFile: dir + "/precious.txt", encoding: .utf8) == "precious\n")
        var status = stat()
        #expect(lstat(dir + "/fifo.csv", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(fm.fileExists(atPath: dir + "/adir.csv/") && !fm.fileExists(atPath: dir + "/same.csv"))
    }

    @Test func aLateWriteFailureRescuesTheResultsToAFallbackFile() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The target was a fine path when checked; by the time the run ends it is a directory.
        let target = dir + "/late.csv"
        try OutputFiles.check([OutputFiles.Target(flag: "--out", path: target)])
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let outcome = OutputFiles.writeKeeping("a,b\n1,2\n", to: target, fallbackDirectory: dir + "/fallback")
        guard case .rescued(let fallback, let error) = outcome else {
            Issue.record("expected a rescue, got \(outcome)")
            return
        }
        #expect(error.message.contains("is a directory"))
        #expect(fallback.hasPrefix(dir + "/fallback/") && fallback.hasSuffix("late.csv"))
        #expect(try String(contentsOfFile: fallback, encoding: .utf8) == "a,b\n1,2\n")
        // Both unwritable: the caller keeps the text (the CLI prints it).
        try "x".write(toFile: dir + "/blocker", atomically: true, encoding: .utf8)
        if case .unwritten = OutputFiles.writeKeeping("a\n", to: target, fallbackDirectory: dir + "/blocker/sub") {} else {
            Issue.record("expected both writes to fail")
        }
    }

    @Test func writingReplacesARegularFileOnlyAndNeverFollowsALink() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try OutputFiles.write("one\n", to: dir + "/a/b.csv")
        try OutputFiles.write("two\n", to: dir + "/a/b.csv")
        #expect(try String(contentsOfFile: dir + "/a/b.csv", encoding: .utf8) == "two\n")
        try FileManager.default.createSymbolicLink(atPath: dir + "/l.csv", withDestinationPath: dir + "/a/b.csv")
        #expect(throws: BenchError.self) { try OutputFiles.write("three\n", to: dir + "/l.csv") }
        #expect(try String(contentsOfFile: dir + "/a/b.csv", encoding: .utf8) == "two\n")
        // No temporary files are left beside the target.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/a") == ["b.csv"])
    }

    // MARK: Flags and commands

    @Test(arguments: [
        (["run", "--duration", "-1"], "--duration -1: must be a positive number of seconds"),
        (["run", "--duration", "nan"], "--duration nan: not a number"),
        (["run", "--duration", "inf"], "--duration inf: must be a finite number"),
        (["run", "--duration", "0.001"], "--duration 0.001: too short"),
        (["run", "--batch-size", "1e12"], "--batch-size 1,000,000,000,000: at most"),
        (["run", "--readings", "9223372036854775807"], "--readings 9,223,372,036,854,775,807: at most 100,000,000"),
        (["run", "--rate", "1e12"], "--rate 1,000,000,000,000: must be between"),
        (["run", "--rate", "0.001", "--readings", "300"], "would take 300,000 s"),
        (["run", "--writers", "-3"], "--writers -3: must be between 1 and"),
        (["run", "--max-delay", "ten"], "--max-delay ten: not a number"),
        (["rnu", "--duration", "1"], "unknown command 'rnu' — did you mean 'run'?"),
        (["compaer", "a.csv", "b.csv"], "did you mean 'compare'?"),
        (["compare", "a.csv", "b.csv", "--threshold", "-5"], "--threshold -5: must be between 0 and 100"),
    ])
    func badValuesGetAClearMessageAndExit64(arguments: [String], mention: String) throws {
        let outcome = try CLI.run(arguments)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(mention), "stderr: \(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test func versionAndHelpSpeakPlainly() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("strata-bench \(StrataVersion.release) (revision "), "\(version.stdout)")
        let help = try CLI.run(["baseline", "--help"])
        #expect(help.stdout.contains("<run.csv>"), "\(help.stdout)")
        #expect(help.stdout.contains("--force"))
        #expect(!help.stdout.contains("run-cs-vs"))
    }

    /// The revision is the one the binary was built from, wherever it runs: from inside another
    /// git repository, `--version` and a run's git_rev still name this build, never that
    /// repository's revision.
    @Test func versionAndGitRevNameTheBuildNotTheWorkingDirectory() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let git = { (arguments: [String]) throws -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(try git(["init", "-q"]) == 0)
        try "x".write(toFile: dir + "/f", atomically: true, encoding: .utf8)
        #expect(try git(["add", "f"]) == 0 && git(["commit", "-q", "-m", "other"]) == 0)
        let version = try CLI.run(["--version"], in: dir)
        #expect(version.stdout.contains("(revision \(BuildRevision.current),"), "\(version.stdout)")
        let run = try CLI.run(["run", "--workload", "sensors", "--engine", "strata", "--strategy", "dedicated", "--readings", "10",
                               "--durability", "unsafe", "--out", "run.csv", "--dir", dir, "--quiet", "--no-history"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let table = try CSVReader.parse(String(contentsOfFile: dir + "/run.csv", encoding: .utf8))
        let column = try #require(table.header.firstIndex(of: "git_rev"))
        #expect(!table.rows.isEmpty && table.rows.allSatisfy { $0[column] == BuildRevision.current }, "\(table.rows.map { $0[column] })")
    }

    @Test func quietRunsPrintNothingButTheTableAndItsMeaning() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try CLI.run(["run", "--workload", "sensors", "--workload", "encryption", "--engine", "all",
                               "--strategy", "dedicated", "--readings", "30", "--batch-size", "10", "--durability", "unsafe",
                               "--out", "run.csv", "--dir", dir, "--quiet"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")  // no skip (SQLite + key) or wrote lines
        let last = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("note: dur unsafe = no flush per commit"), "\(last)")
        #expect(last.contains("sqlite = SQLite through GRDB"))
    }

    @Test func baselineRefusesToReplaceWithoutForceAndSaysWhatChanges() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "dedicated",
                               "--strategy", "batched", "--readings", "30", "--durability", "unsafe", "--out", "two.csv",
                               "--dir", dir, "--quiet"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let table = try CSVReader.read(path: dir + "/two.csv")
        try CSVWriter.write(CSVWriter.render(header: table.header, rows: [table.rows[0]]), to: dir + "/one.csv")
        #expect(try CLI.run(["baseline", "two.csv", "--name", "mine"], in: dir).status == 0)
        let refused = try CLI.run(["baseline", "one.csv", "--name", "mine"], in: dir)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("exists and is not replaced without --force"), "\(refused.stderr)")
        #expect(refused.stderr.contains("rows 2 -> 1; cases 2 -> 1; 1 dropped (sensors/sqlite/batched"), "\(refused.stderr)")
        #expect(try CSVReader.read(path: dir + "/results/baselines/mine.csv").rows.count == 2)
        let forced = try CLI.run(["baseline", "one.csv", "--name", "mine", "--force"], in: dir)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("replaced results/baselines/mine.csv: rows 2 -> 1"), "\(forced.stderr)")
        #expect(try CSVReader.read(path: dir + "/results/baselines/mine.csv").rows.count == 1)
    }
}
