// The reads workload: every engine's answers verify against the generated data, a wrong answer
// fails its row, the rows reach the summary CSV and parse back, and --objects is judged.
import Foundation
import Testing
@testable import StrataBench

@Suite("reads workload")
struct ReadsWorkloadTests {
    static func temporaryDirectory() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("reads-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func spec(_ engine: EngineKind, objects: Int) -> CaseSpec {
        CaseSpec(workload: .reads, engine: engine, strategy: .dedicated, batchSize: 400, durability: .unsafe,
                 readings: objects)
    }

    /// 1,001 objects: the sensors' lists differ in length (334, 334, 333).
    @Test(arguments: EngineKind.allCases)
    func everyEngineAnswersCorrectly(engine: EngineKind) async throws {
        guard Engines.readUnavailability(engine) == nil || PeerLibrary.inCI else { return }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rows = try await ReadsWorkload.run(kind: engine, configuration: EngineConfiguration(directory: directory, durability: .unsafe),
                                               spec: Self.spec(engine, objects: 1_001))
        #expect(rows.map(\.spec.op) == ReadOp.reads.map { Optional($0) })
        for row in rows {
            #expect(row.verified, "\(engine) \(row.spec.op?.rawValue ?? "?"): \(row.note)")
            #expect((row.read?.ops ?? 0) > 0)
            #expect(row.read?.objects == 1_001)
        }
        if engine != .reference {
            #expect((rows.first?.read?.bytesPerObject ?? 0) > 0, "a file store has a size")
        }
    }

    @Test func theGeneratedAnswersMatchABruteForcePass() {
        for objects in [1, 2, 3, 100, 1_001, 7_919] {
            let dataset = ReadDataset(objects: objects)
            let samples = dataset.samples(0..<objects)
            let answers = dataset.answers
            #expect(Set(samples.map(\.value)).count == objects, "values are a permutation")
            #expect(answers.sum == samples.reduce(0) { $0 + $1.value })
            let top = samples.sorted { $0.value > $1.value }.prefix(ReadDataset.topCount).map(\.id)
            #expect(answers.topIds == Array(top))
            #expect(answers.seqSum == samples.reduce(0) { $0 + Double($1.seq) })
            for selectivity in [0.001, 0.1, 0.9] {
                let (threshold, expected) = dataset.threshold(keeping: selectivity)
                #expect(samples.filter { $0.value > threshold }.count == expected)
            }
            for seq in [Int64(1), dataset.maxSeq, dataset.maxSeq + 1] {
                #expect(dataset.seqCount(seq...(seq + 5)) == samples.filter { (seq...(seq + 5)).contains($0.seq) }.count)
            }
        }
    }

    /// A store whose queries give one wrong answer: the operation's row fails, the others pass.
    @Test(arguments: [ReadOp.sum, .filter10, .top100, .primaryKey, .seqRange, .listTraversal, .iterateAll])
    func aWrongAnswerFailsItsRow(op: ReadOp) async throws {
        let store = WrongAnswerStore(wrong: op)
        let rows = try await ReadsWorkload.run(store: store, spec: Self.spec(.reference, objects: 500))
        for row in rows {
            if row.spec.op == op {
                #expect(!row.verified, "\(op.rawValue) returned a wrong answer and passed")
                #expect(row.note.contains(op.rawValue))
            } else {
                #expect(row.verified, "\(row.spec.op?.rawValue ?? "?"): \(row.note)")
            }
        }
    }

    /// A fill that loses a sample fails every row, whatever the queries answer.
    @Test func aLostSampleFailsEveryRow() async throws {
        let store = WrongAnswerStore(wrong: nil, dropLastSample: true)
        let rows = try await ReadsWorkload.run(store: store, spec: Self.spec(.reference, objects: 500))
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { !$0.verified })
    }

    @Test func theRunnerWritesOneRowPerOperationThatParsesBack() async throws {
        let outcome = try await BenchRunner(cases: [Self.spec(.reference, objects: 300)]).execute()
        #expect(outcome.results.count == ReadOp.reads.count)
        let csv = RunReport.summaryCSV(outcome.results, machine: MachineInfo.current(), timestamp: RunReport.timestamp())
        let table = try CSVReader.parse(csv)
        let records = try SummaryValidation.records(table, path: "reads.csv", role: .current)
        #expect(records.map(\.settings.op) == ReadOp.reads.map { Optional($0) })
        #expect(Set(records.map(\.settings.key)).count == records.count, "each operation is a case of its own")
        let sum = try #require(records.first { $0.settings.op == .sum })
        #expect(sum["objects"] == "300")
        #expect(Double(sum["ops_per_s"] ?? "") ?? 0 > 0)
        #expect(Double(sum["ns_per_object"] ?? "") ?? 0 > 0)
        // Each operation's thread CPU time, which the paired gate judges; the fill is judged
        // per reading instead and leaves it empty.
        for record in records where record.settings.op != .fill {
            #expect(Double(record["cpu_us_per_op"] ?? "") ?? 0 > 0, "\(record.settings.op?.rawValue ?? "?")")
        }
        #expect(records.first { $0.settings.op == .fill }?["cpu_us_per_op"] == "")
        #expect(RunReport.table(outcome.results).contains("pk-lookup"))
    }

    @Test func aSummaryWithoutTheReadColumnsStillParses() throws {
        var header = SummaryColumns.all
        header.removeAll { SummaryColumns.reads.contains($0) }
        let row = CaseResult(spec: CaseSpec(workload: .bulkInsert, engine: .strata, strategy: .dedicated, readings: 10))
            .row(machine: MachineInfo.current(), timestamp: RunReport.timestamp())
        let table = try CSVReader.parse(CSVWriter.render(columns: header, records: [row]))
        let records = try SummaryValidation.records(table, path: "old.csv", role: .baseline)
        #expect(records.first?.settings.op == nil)
        #expect(records.first?.settings.key.contains("op-") == false)
    }

    @Test func anUnknownOperationIsRefused() throws {
        var row = CaseResult(spec: Self.spec(.reference, objects: 10)).row(machine: MachineInfo.current(), timestamp: RunReport.timestamp())
        row["op"] = "teleport"
        let table = try CSVReader.parse(CSVWriter.render(columns: SummaryColumns.all, records: [row]))
        #expect(throws: BenchError.self) { try SummaryValidation.records(table, path: "bad.csv", role: .current) }
    }

    @Test func objectCountsTakeSuffixes() throws {
        #expect(try NumericFlag.count("10k", flag: "--objects") == 10_000)
        #expect(try NumericFlag.count("1M", flag: "--objects") == 1_000_000)
        #expect(try NumericFlag.count("1.5k", flag: "--objects") == 1_500)
        #expect(try NumericFlag.count("2500", flag: "--objects") == 2_500)
        for bad in ["", "k", "ten", "1.5", "1.0001k", "10x", "1e400k", "nanM", "0x10k"] {
            do {
                _ = try NumericFlag.count(bad, flag: "--objects")
                Issue.record("--objects \(bad) accepted")
            } catch let error as BenchError {
                #expect(error.code == .invalidOption)
                #expect(error.message.hasPrefix("--objects"))
            }
        }
    }

    @Test func objectsOutOfRangeOrWithoutTheReadsWorkloadAreRefused() throws {
        for (objects, workloads) in [(0, [WorkloadKind.reads]), (RunOptions.maxReadings + 1, [.reads]), (1_000, [.bulkInsert])] {
            var options = RunOptions()
            options.objects = [objects]
            options.workloads = workloads
            #expect(throws: BenchError.self) { try RunPlan.make(options) }
        }
        var options = RunOptions()
        options.objects = [2_000]
        options.workloads = [.reads]
        options.engines = ["reference"]
        let cases = try RunPlan.make(options)
        #expect(cases.map(\.readings) == [2_000])
    }
}

/// The reference read store with one query answering wrong (or a fill that drops a sample).
final class WrongAnswerStore: ReadStore, @unchecked Sendable {
    let inner = ReferenceReadStore()
    let wrong: ReadOp?
    let dropLastSample: Bool
    var effectiveSettings: String { "test double" }

    init(wrong: ReadOp?, dropLastSample: Bool = false) {
        self.wrong = wrong
        self.dropLastSample = dropLastSample
    }

    func insert(_ samples: [ReadSample]) throws {
        try inner.insert(dropLastSample && samples.last?.id == 500 ? Array(samples.dropLast()) : samples)
    }

    func makeQueries() throws -> any ReadQueries { WrongAnswers(try inner.makeQueries(), wrong: wrong) }
    func fileBytes() -> Int64? { nil }
    func close() throws {}
}

final class WrongAnswers: ReadQueries {
    let inner: any ReadQueries
    let wrong: ReadOp?

    init(_ inner: any ReadQueries, wrong: ReadOp?) {
        self.inner = inner
        self.wrong = wrong
    }

    func iterateValues() throws -> Double { try inner.iterateValues() }
    func iterateAll() throws -> ReadTotals {
        var totals = try inner.iterateAll()
        if wrong == .iterateAll { totals.seqSum += 1 }
        return totals
    }
    func sum() throws -> Double { try inner.sum() + (wrong == .sum ? 1 : 0) }
    func average() throws -> Double? { try inner.average() }
    func min() throws -> Double? { try inner.min() }
    func max() throws -> Double? { try inner.max() }
    func count(valueAbove threshold: Double) throws -> Int {
        try inner.count(valueAbove: threshold) + (wrong == .filter10 && threshold > 0 && threshold < 460 && threshold > 440 ? 1 : 0)
    }
    func topIds(limit: Int) throws -> [Int64] {
        let ids = try inner.topIds(limit: limit)
        return wrong == .top100 ? Array(ids.reversed()) : ids
    }
    func value(id: Int64) throws -> Double? {
        let value = try inner.value(id: id)
        return wrong == .primaryKey && id == 7_920 % 500 ? value.map { $0 + 1 } : value
    }
    func count(seq: Int64) throws -> Int { try inner.count(seq: seq) }
    func count(seqIn range: ClosedRange<Int64>) throws -> Int {
        try inner.count(seqIn: range) + (wrong == .seqRange && range.lowerBound == 1 ? 1 : 0)
    }
    func listTotals(sensor: String) throws -> ReadTotals {
        var totals = try inner.listTotals(sensor: sensor)
        if wrong == .listTraversal && sensor == ReadDataset.sensors[1] { totals.count -= 1 }
        return totals
    }
    func close() {}
}

@Suite("reads in the HTML report")
struct ReadsHTMLTests {
    @Test func theReportDrawsAndListsTheReadRows() async throws {
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await BenchRunner(cases: [ReadsWorkloadTests.spec(.reference, objects: 200)]).execute()
        let path = directory + "/run.csv"
        try CSVWriter.write(RunReport.summaryCSV(outcome.results, machine: MachineInfo.current(), timestamp: RunReport.timestamp()),
                            to: path)
        let html = try RunHTMLReport.render(.init(runPath: path))
        #expect(html.contains("id=\"reads-table\""))
        #expect(html.contains("data-category=\"sum\" data-series=\"reference\""))
        #expect(html.contains("<td data-col=\"op\">pk-lookup</td>"))
    }
}
