// The scale workload and suite: a tiny sweep gives every size and engine its fill, size, first
// open, commits, compaction and reads rows with plausible figures; `--objects` lists are judged;
// the report draws each figure against size.
import Foundation
import Testing
@testable import StrataBench

@Suite("scale sweeps")
struct ScaleWorkloadTests {
    static func sweep(_ sizes: String, engines: [String]) throws -> [CaseSpec] {
        var options = RunOptions()
        options.suite = .scale
        options.engines = engines
        options.objects = try NumericFlag.counts(sizes, flag: "--objects")
        return try RunPlan.make(options)
    }

    /// The tiny sweep of the issue, on the two engines every build has.
    @Test func aTinySweepGivesEverySizeAndEngineItsRows() async throws {
        let executable = try #require(CLI.executable, "strata-bench is not built beside the tests: run `swift build --build-tests`")
        let cases = try Self.sweep("1k,2k", engines: ["strata", "sqlite"])
        #expect(cases.map(\.readings) == [1_000, 1_000, 2_000, 2_000])
        let outcome = try await BenchRunner(cases: cases, executable: executable).execute()
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/scale.csv"
        try CSVWriter.write(RunReport.summaryCSV(outcome.results, machine: MachineInfo.current(), timestamp: RunReport.timestamp()),
                            to: path)
        let records = try SummaryValidation.records(try CSVReader.read(path: path), path: path, role: .current)
        #expect(Set(records.map(\.settings.key)).count == records.count, "each size, engine and operation is a case of its own")
        for engine in [EngineKind.strata, .sqlite] {
            for size in [1_000, 2_000] {
                let rows = records.filter { $0.settings.engine == engine && $0["objects"] == String(size) }
                #expect(rows.map(\.settings.op) == (ReadOp.reads + ReadOp.scale).map { Optional($0) }, "\(engine) \(size)")
                func figure(_ op: ReadOp, _ column: String) -> Double {
                    DecimalText.double(rows.first { $0.settings.op == op }?[column] ?? "") ?? 0
                }
                #expect(figure(.fill, "ops_per_s") > 0, "\(engine) \(size): fill rate")
                #expect(figure(.fill, "bytes_per_object") > 0, "\(engine) \(size): bytes per object")
                #expect(figure(.firstOpen, "us_per_op") > 0, "\(engine) \(size): first open")
                for op in [ReadOp.commitFull, .commitUnsafe] {
                    #expect(figure(op, "commit_p50_us") > 0 && figure(op, "commit_p99_us") >= figure(op, "commit_p50_us"),
                            "\(engine) \(size): \(op.rawValue)")
                }
                #expect(figure(.compact, "compact_ms") > 0, "\(engine) \(size): compaction")
                #expect(figure(.sum, "ns_per_object") > 0)
                #expect(rows.allSatisfy { $0["verified"] == "true" }, "\(engine) \(size): \(rows.map { $0["note"] ?? "" })")
            }
        }
        let html = try RunHTMLReport.render(.init(runPath: path))
        for figure in ScaleHTMLSection.figures {
            #expect(html.contains("id=\"scale-\(figure.name)-unsafe\""), "no chart for \(figure.name)")
        }
        #expect(html.contains("class=\"scale-line\" data-series=\"strata\" data-points=\"2\""))
        #expect(html.contains("stroke=\"\(StrataEngine.colour)\""))
        let fill = try #require(records.first { $0.settings.engine == .sqlite && $0.settings.op == .fill && $0["objects"] == "2000" })
        #expect(html.contains("data-x=\"2000\" data-value=\"\(fill["ops_per_s"] ?? "")\""))
    }

    /// The first-open child opens a filled store only: in an empty directory it would time a create.
    @Test func theFirstOpenChildRefusesADirectoryWithoutAStore() throws {
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try CLI.run(["open-store", "--engine", "strata", "--dir", directory])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("holds no store"))
    }

    /// An in-memory store reopens empty: its case keeps the reads rows, all verified, and no more.
    @Test func aStoreWithoutAFileHasTheReadsRowsOnly() async throws {
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var spec = ReadsWorkloadTests.spec(.reference, objects: 300)
        spec.workload = .scale
        let rows = try await ScaleWorkload.run(kind: .reference, configuration: EngineConfiguration(directory: directory, durability: .unsafe),
                                               spec: spec, executable: nil, stop: StopRequest())
        let ops = rows.map { $0.spec.op }
        let notes = rows.map { $0.note }
        #expect(ops == ReadOp.reads.map { Optional($0) })
        #expect(rows.allSatisfy { $0.verified }, "\(notes)")
    }

    @Test func theScaleSuiteSweepsItsDefaultSizesOnTheBuiltInEngines() throws {
        var options = RunOptions()
        options.suite = .scale
        let cases = try RunPlan.make(options)
        #expect(cases.allSatisfy { $0.workload == .scale && $0.durability == .unsafe })
        #expect(cases.compactMap(\.readings) == RunPlan.defaultScaleSizes.flatMap { size in Engines.defaultKinds.map { _ in size } })
        options.readings = 5_000
        #expect(try RunPlan.make(options).compactMap(\.readings) == Engines.defaultKinds.map { _ in 5_000 })
    }

    @Test func objectListsTakeSuffixesInOrder() throws {
        #expect(try NumericFlag.counts("10k,100k,1M,10M", flag: "--objects") == [10_000, 100_000, 1_000_000, 10_000_000])
        #expect(try NumericFlag.counts("2500", flag: "--objects") == [2_500])
        var options = RunOptions()
        options.workloads = [.reads]
        options.engines = ["reference"]
        options.objects = [1_000, 3_000]
        #expect(try RunPlan.make(options).map(\.readings) == [1_000, 3_000])
    }

    @Test(arguments: ["10k,,1M", ",10k", "10k,", "10k,ten", "1k,1000", "10k;100k", "0,1k", "1k,-5", "1k,200M"])
    func badObjectListsAreRefusedNamingTheFlag(list: String) throws {
        do {
            var options = RunOptions()
            options.suite = .scale
            options.objects = try NumericFlag.counts(list, flag: "--objects")
            _ = try RunPlan.make(options)
            Issue.record("--objects \(list) accepted")
        } catch let error as BenchError {
            #expect(error.code == .invalidOption)
            #expect(error.message.hasPrefix("--objects"), "\(error.message)")
        }
    }

    @Test func theCommandLineRefusesABadList() throws {
        let outcome = try CLI.run(["run", "--suite", "scale", "--objects", "10k,,1M", "--no-history"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--objects"), "stderr: \(outcome.stderr)")
    }
}

@Suite("scale in the plots")
struct ScalePlotTests {
    /// Scale rows as a run writes them: two engines, two sizes, every operation, made-up figures.
    static func rows() -> [CaseResult] {
        var results: [CaseResult] = []
        for (index, engine) in [EngineKind.strata, .sqlite].enumerated() {
            for objects in [1_000, 10_000] {
                for op in ReadOp.reads + ReadOp.scale {
                    var spec = CaseSpec(workload: .scale, engine: engine, strategy: .dedicated, batchSize: 10_000,
                                        durability: .unsafe, readings: objects)
                    spec.op = op
                    var result = CaseResult(spec: spec)
                    let nanos = UInt64(objects * (index + 2) * 100)
                    result.read = ReadFigures(op: op, ops: op == .fill ? objects : 10, nanos: nanos, objectsScanned: objects,
                                              objects: objects, bytesPerObject: Double(100 + index))
                    if op == .commitFull || op == .commitUnsafe {
                        result.commit = LatencySummary(count: 10, p50: Double(objects) / 100, p90: Double(objects) / 50,
                                                       p99: Double(objects) / 10, max: Double(objects))
                    }
                    if op == .compact { result.compactMs = Double(objects) / 1_000 }
                    results.append(result)
                }
            }
        }
        return results
    }

    @Test(.enabled(if: PlotEnvironment.hasMatplotlib, "needs python3 with matplotlib (scripts/requirements.txt)"))
    func plotDrawsTheScaleFigures() throws {
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = directory + "/scale.csv"
        try CSVWriter.write(RunReport.summaryCSV(Self.rows(), machine: MachineInfo.current(), timestamp: RunReport.timestamp()), to: run)
        let result = PlotEnvironment.python(["scripts/plot.py", run, "--out", directory + "/plots"])
        #expect(result.status == 0, "\(result.output)")
        let data = try #require(FileManager.default.contents(atPath: directory + "/plots/scale.png"), "scale.png missing: \(result.output)")
        #expect(data.count > 10_000 && data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    /// The report's scale points are the CSV's medians, and the DOM check says so (and notices a
    /// changed point); the browser-rendered form of this check runs in scripts/check-report.
    @Test func theReportsScalePointsPassTheDOMCheck() throws {
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = directory + "/scale.csv"
        try CSVWriter.write(RunReport.summaryCSV(Self.rows(), machine: MachineInfo.current(), timestamp: RunReport.timestamp()), to: run)
        let page = directory + "/scale.html"
        try RunHTMLReport.render(.init(runPath: run)).write(toFile: page, atomically: true, encoding: .utf8)
        let result = PlotEnvironment.python(["scripts/check_report_dom.py", page, run])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("a scale point"), "\(result.output)")
    }
}
