import Foundation
import Testing
import StrataBench

/// The engine registry: every consumer reads an engine's facts from its adapter, and an engine
/// added in one file (the in-memory reference engine) runs everywhere the others do.
@Suite("engine registry")
struct EngineRegistryTests {
    @Test func namesAndColoursAreUniqueAndWellFormed() {
        let names = Engines.registered.map { $0.kind.rawValue }
        #expect(Set(names).count == names.count)
        let colours = Engines.registered.map { $0.colour }
        #expect(Set(colours).count == colours.count)
        for colour in colours {
            #expect(colour.count == 7 && colour.hasPrefix("#") && colour.dropFirst().allSatisfy(\.isHexDigit), "\(colour)")
        }
        #expect(EngineKind.allCases.map(\.rawValue) == names)
    }

    @Test func onlyRegisteredNamesAreEngines() throws {
        #expect(EngineKind(rawValue: "nosuch") == nil)
        #expect(EngineKind(rawValue: "reference") == .reference)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([EngineKind].self, from: Data(#"["nosuch"]"#.utf8)) }
        #expect(try JSONDecoder().decode([EngineKind].self, from: Data(#"["lmdb"]"#.utf8)) == [.lmdb])
        var table = try CSVReader.parse(SyntheticRun.csv(revision: "a", time: "2026-11-01T00:00:00Z", readingsPerSecond: [1]))
        let column = try #require(table.header.firstIndex(of: "engine"))
        table.rows[0][column] = "nosuch"
        #expect(throws: BenchError.self) { try SummaryValidation.validate(table, path: "x.csv", role: .current) }
    }

    @Test func theReferenceEngineRunsOnlyWhenNamed() throws {
        #expect(!Engines.defaultKinds.contains(.reference))
        #expect(!Engines.allKinds.contains(.reference))
        #expect(Engines.allKinds.contains(.strata) && Engines.allKinds.contains(.sqlite))
        var options = RunOptions()
        options.engines = ["all"]
        options.workloads = [.sensors]
        options.readings = 10
        #expect(!(try RunPlan.make(options)).contains { $0.engine == .reference })
        options.engines = ["reference"]
        #expect(try RunPlan.make(options).allSatisfy { $0.engine == .reference })
    }

    @Test func theReferenceEngineHasNoEncryptionAndSaysWhy() {
        #expect(!Engines.supports(.reference, encryption: .on))
        #expect(Engines.supports(.reference, encryption: .off))
        #expect(Engines.encryptionUnavailability(.reference)?.contains("plain values") == true)
        #expect(throws: BenchError.self) {
            _ = try Engines.open(.reference, EngineConfiguration(directory: "/nonexistent", durability: .memory,
                                                                  encryptionKey: Array(repeating: 1, count: 64)))
        }
    }

    @Test(arguments: StrategyKind.allCases)
    func theReferenceEngineKeepsTheEngineContract(strategy: StrategyKind) async throws {
        try await StrategyTests.checkEveryStrategyLosesNothing(engine: .reference, strategy: strategy)
    }

    @Test func theReferenceEngineTrimsLikeTheOthers() async throws {
        try StrategyTests.checkAddReadingsTrimsTheOldest(engine: .reference)
        try await StrategyTests.checkTrimmingIsAccountedForAsDeletedNotLost(engine: .reference)
    }

    /// The whole path a user takes: the flag, the runner, the CSV, the table's note, the HTML
    /// report's chart in the registered colour.
    @Test func theReferenceEngineRunsFromTheCommandLineIntoEveryReport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-registry-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try CLI.run(["run", "--workload", "sensors", "--engine", "reference", "--engine", "sqlite",
                               "--strategy", "dedicated", "--readings", "40", "--durability", "unsafe",
                               "--out", "run.csv", "--dir", dir], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains(ReferenceEngine.reportNote))
        let table = try CSVReader.read(path: dir + "/run.csv")
        let reference = table.records.filter { $0["engine"] == "reference" }
        #expect(reference.count == 1)
        #expect(reference.first?["lost"] == "0" && reference.first?["verified"] == "true" && reference.first?["readings"] == "40")
        let html = try RunHTMLReport.render(.init(runPath: dir + "/run.csv"))
        #expect(html.contains("data-series=\"reference\""))
        #expect(html.contains("fill=\"\(ReferenceEngine.colour)\""))
        #expect(html.contains("fill=\"\(SQLiteEngine.colour)\""))
    }

    @Test func listPrintsTheRegistryAsJSON() throws {
        let outcome = try CLI.run(["list", "--json"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let printed = try JSONDecoder().decode(Vocabulary.self, from: Data(outcome.stdout.utf8))
        #expect(printed == Vocabulary.current())
        #expect(printed.engines.map(\.name) == EngineKind.allCases.map(\.rawValue))
        #expect(printed.engines.first { $0.name == "reference" }?.role == .reference)
        let text = try CLI.run(["list"])
        #expect(text.stdout.contains("reference") && text.stdout.contains("--engine reference"))
    }
}
