import Foundation
import Testing
import StrataBench

/// Runs the built `strata-bench` executable (built beside the test bundle by `swift build
/// --build-tests` / `swift test`) and captures its exit status, stdout and stderr.
struct CLI {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: String? {
        var candidates: [URL] = []
        if let url = Bundle.main.executableURL { candidates.append(url.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let path = directory.appendingPathComponent("strata-bench").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func run(_ arguments: [String], in directory: String? = nil) throws -> Outcome {
        let path = try #require(executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently-enough: outputs here are small (well below the pipe buffer).
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }
}

private func scratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-cli-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("command line")
struct CLITests {
    @Test(arguments: [
        (["run", "--duration", "-1"], "--duration"),
        (["run", "--strategy", "fibers"], "--strategy fibers"),
        (["run", "--workload", "nosuch"], "--workload nosuch"),
        (["run", "--suite", "huge"], "--suite huge"),
        (["run", "--durability", "fast"], "--durability fast"),
        (["run", "--encryption", "maybe"], "--encryption maybe"),
        (["run", "--readings", "5", "--duration", "1"], "exclude each other"),
        (["run", "--bogus"], "--bogus"),
        (["run", "--writers", "many"], "--writers"),
        (["compare", "a.csv"], "current"),
        (["compare", "a.csv", "b.csv", "--format", "xml"], "--format"),
        (["compare", "a.csv", "b.csv", "--threshold", "150"], "--threshold"),
        (["baseline", "run.csv"], "--name"),
    ])
    func badUsageExits64WithAClearMessage(arguments: [String], mention: String) throws {
        let outcome = try CLI.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(mention), "stderr: \(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test func listNamesEverything() throws {
        let outcome = try CLI.run(["list"])
        #expect(outcome.status == 0)
        for name in StrategyKind.allCases.map(\.rawValue) + WorkloadKind.allCases.map(\.rawValue) + ["smoke", "sqlite", "strata"] {
            #expect(outcome.stdout.contains(name))
        }
    }

    @Test func runWritesCSVsAndATableThenCompareAndBaselineWork() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // main-sync and main-async need the CLI to drain the main queue.
        let run = try CLI.run(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "main-sync",
                               "--strategy", "main-async", "--readings", "30", "--durability", "unsafe",
                               "--out", "out/run.csv", "--dir", dir], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("main-sync") && run.stdout.contains("main-async"))
        #expect(run.stderr.contains("[1/2]"))
        let table = try CSVReader.read(path: dir + "/out/run.csv")
        #expect(table.rows.count == 2)
        #expect(table.records.allSatisfy { $0["lost"] == "0" && $0["readings"] == "30" && $0["verified"] == "true" })
        let timeline = try CSVReader.read(path: dir + "/out/run.timeline.csv")
        #expect(timeline.header == RunReport.timelineColumns)
        #expect(!timeline.rows.isEmpty)

        let same = try CLI.run(["compare", "out/run.csv", "out/run.csv"], in: dir)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("0 regressed"))

        let saved = try CLI.run(["baseline", "out/run.csv", "--name", "mine"], in: dir)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/results/baselines/mine.csv"))
        let badName = try CLI.run(["baseline", "out/run.csv", "--name", "../escape"], in: dir)
        #expect(badName.status == 1)

        // A run that lost readings fails the gate with status 2.
        var records = table.records
        records[0]["lost"] = "4"
        try CSVWriter.write(CSVWriter.render(columns: table.header, records: records), to: dir + "/lost.csv")
        let lost = try CLI.run(["compare", "out/run.csv", "lost.csv", "--format", "markdown"], in: dir)
        #expect(lost.status == 2)
        #expect(lost.stdout.contains("**Regressions:**"))

        // Malformed input: status 1 and file:line:column on stderr.
        try "workload,engine\n\"oops,sqlite\n".write(toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["compare", "out/run.csv", "bad.csv"], in: dir)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("bad.csv:2:1:"), "stderr: \(bad.stderr)")
        let missing = try CLI.run(["compare", "nope.csv", "out/run.csv"], in: dir)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.csv"))
    }
}
