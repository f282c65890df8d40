import Foundation
import Testing
import StrataBench

/// The plot script is Python; this test runs it on the committed sample run
/// (results/examples/sample.csv) and checks that every chart is a non-empty PNG.
enum PlotEnvironment {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `strata-bench list --json` of this build, which plot.py reads for engine colours and orders.
    static let vocabulary: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-vocabulary-\(UUID()).json").path
        try? (try? Vocabulary.current().json())?.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    /// Runs python3 with `arguments`; a plot.py run gets this build's vocabulary.
    static func python(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let plotting = arguments.first == "scripts/plot.py" && !arguments.contains("--vocabulary")
        process.arguments = ["python3"] + arguments + (plotting ? ["--vocabulary", vocabulary] : [])
        process.currentDirectoryURL = root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (-1, "cannot start python3: \(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let hasMatplotlib: Bool = {
        let available = python(["-c", "import matplotlib"]).status == 0
        if !available {
            print("PlotScriptTests skipped: python3 with matplotlib is not installed (python3 -m pip install -r scripts/requirements.txt)")
        }
        return available
    }()
}

@Suite("plot.py")
struct PlotScriptTests {
    /// `compare --format csv` of the sample run against itself, as the CLI prints it.
    static func comparisonCSV(_ run: String) throws -> String {
        let report = try Comparison.compare(baselinePath: run, currentPath: run, options: ComparisonOptions())
        return Comparison.render(report, format: .csv)
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func rendersEveryChartFromTheSampleRun() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("strata-plots-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let sample = "results/examples/sample.csv"
        let comparison = out + ".comparison.csv"
        try Self.comparisonCSV(PlotEnvironment.root.path + "/" + sample).write(toFile: comparison, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: comparison) }
        let result = PlotEnvironment.python(["scripts/plot.py", sample, "--timeline", "results/examples/sample.timeline.csv",
                                             "--comparison", comparison, "--out", out])
        #expect(result.status == 0, "\(result.output)")
        for chart in ["throughput", "latency", "file_size", "encryption_compaction", "baseline_ratio"] {
            let path = out + "/\(chart).png"
            let data = try #require(FileManager.default.contents(atPath: path), "\(chart).png missing: \(result.output)")
            #expect(data.count > 10_000)
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() ==
            ["baseline_ratio.png", "encryption_compaction.png", "file_size.png", "latency.png", "throughput.png"])
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func aRunWithoutEncryptionOrCompactionWritesNoEmptyChart() throws {
        // The sensors example: one workload, time-bound, no timeline given and no comparison.
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("strata-plots-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let table = try CSVReader.read(path: PlotEnvironment.root.path + "/results/examples/sensors.csv")
        let run = out + ".run.csv"
        var records = table.records
        for index in records.indices { records[index]["file_bytes_compacted"] = "" }
        try CSVWriter.write(CSVWriter.render(columns: table.header, records: records), to: run)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let result = PlotEnvironment.python(["scripts/plot.py", run, "--out", out])
        #expect(result.status == 0, "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["latency.png", "throughput.png"])
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func neverReplacesAnythingButARegularChartFile() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("strata-plots-\(UUID())").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        try FileManager.default.createSymbolicLink(atPath: out + "/throughput.png", withDestinationPath: "/dev/null")
        let result = PlotEnvironment.python(["scripts/plot.py", "results/examples/sample.csv", "--out", out])
        #expect(result.status != 0)
        #expect(result.output.contains("not a regular file"), "\(result.output)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/throughput.png") == "/dev/null")
        let file = out + "/not-a-dir"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let notDirectory = PlotEnvironment.python(["scripts/plot.py", "results/examples/sample.csv", "--out", file])
        #expect(notDirectory.status != 0)
        #expect(notDirectory.output.contains("is not a directory"), "\(notDirectory.output)")
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func refusesAVocabularyThatIsNotStrataBenchs() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vocabulary-\(UUID()).json").path
        try #"{"engines": 3}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = PlotEnvironment.python(["scripts/plot.py", "results/examples/sample.csv", "--out", path + ".d",
                                             "--vocabulary", path])
        #expect(result.status != 0)
        #expect(result.output.contains("not `strata-bench list --json` output"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: path + ".d"))
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func refusesAFileThatIsNotARun() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-run-\(UUID()).csv").path
        try "a,b\n1,2\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = PlotEnvironment.python(["scripts/plot.py", path, "--out", path + ".d"])
        #expect(result.status != 0)
        #expect(result.output.contains("not a strata-bench summary CSV"))
    }
}
