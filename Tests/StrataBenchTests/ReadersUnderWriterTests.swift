// `--readers R`: every engine's rows carry the readers' latencies alone and under the writer and
// the writer's commits; the readers see the writer's samples; a failing writer or reader ends the
// case with its error (every thread joined, nothing left running); bad values name the flag.
import Foundation
import Testing
@testable import StrataBench

@Suite("reads under a writer")
struct ReadersUnderWriterTests {
    static func spec(_ engine: EngineKind, objects: Int, readers: Int) -> CaseSpec {
        var spec = ReadsWorkloadTests.spec(engine, objects: objects)
        spec.readers = readers
        return spec
    }

    @Test(arguments: EngineKind.allCases)
    func everyEngineReportsReadersAloneAndUnderTheWriter(engine: EngineKind) async throws {
        guard Engines.readUnavailability(engine) == nil || PeerLibrary.inCI else { return }
        let directory = try ReadsWorkloadTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let objects = 600
        let rows = try await ReadsWorkload.run(kind: engine, configuration: EngineConfiguration(directory: directory, durability: .unsafe),
                                               spec: Self.spec(engine, objects: objects, readers: 2))
        #expect(rows.map(\.spec.op) == ReadOp.reads.map { Optional($0) })
        for row in rows {
            let op = row.spec.op?.rawValue ?? "?"
            #expect(row.verified, "\(engine) \(op): \(row.note)")
            let load = try #require(row.load, "\(engine) \(op) has no readers' figures")
            #expect(load.readers == 2)
            #expect(load.writerCommits > 0, "\(engine): the writer committed nothing")
            #expect((load.writerCommitsPerSecond ?? 0) > 0)
            #expect(load.objectsSeen > objects, "\(engine): the readers never saw a written sample (\(load.objectsSeen))")
            #expect(load.objectsSeen <= objects + load.writerCommits)
            guard row.spec.op != .fill else {
                #expect(load.alone == nil && load.underWriter == nil)
                continue
            }
            let alone = try #require(load.alone, "\(engine) \(op): no latency alone")
            let loaded = try #require(load.underWriter, "\(engine) \(op): no latency under the writer")
            #expect(alone.count > 0 && loaded.count > 0)
            #expect(alone.p50 > 0 && alone.p99 >= alone.p50 && loaded.p99 >= loaded.p50)
            #expect(row.reader == loaded && row.readerOps == Int(loaded.count))
        }
        let csv = RunReport.summaryCSV(rows, machine: MachineInfo.current(), timestamp: RunReport.timestamp())
        let records = try SummaryValidation.records(try CSVReader.parse(csv), path: "readers.csv", role: .current)
        let sum = try #require(records.first { $0.settings.op == .sum })
        #expect(sum.settings.readers == 2)
        #expect(sum.settings.key.contains("/readers2/"))
        for column in ["alone_p50_us", "alone_p99_us", "reader_p50_us", "reader_p99_us", "writer_commits_per_s"] {
            #expect((Double(sum[column] ?? "") ?? 0) > 0, "\(engine): \(column) is '\(sum[column] ?? "absent")'")
        }
        #expect((Int(sum["objects_seen"] ?? "") ?? 0) > objects)
        #expect(RunReport.table(rows).contains("writer p99"))
        let path = directory + "/readers.csv"
        try CSVWriter.write(csv, to: path)
        let html = try RunHTMLReport.render(.init(runPath: path))
        #expect(html.contains("<th>alone_p99_us</th>") && html.contains("<th>writer_commits_per_s</th>"))
    }

    /// Without `--readers` nothing changes: no figures, no key part, empty cells.
    @Test func withoutReadersTheRowsAreAsBefore() async throws {
        let rows = try await ReadsWorkload.run(store: ReferenceReadStore(), spec: ReadsWorkloadTests.spec(.reference, objects: 300))
        #expect(rows.allSatisfy { $0.load == nil && $0.reader == nil })
        let row = try #require(rows.first).row(machine: MachineInfo.current(), timestamp: RunReport.timestamp())
        #expect(row["readers"] == "" && row["writer_commits"] == "")
        #expect(!CaseSettings(try #require(rows.first).spec).key.contains("readers"))
    }

    /// A store whose writes fail once the fill is in: the case ends with the writer's error.
    @Test func aFailingWriterEndsTheCaseWithItsError() async throws {
        let store = FailingStore(failWritesAfter: 300, failReads: false)
        await #expect(throws: BenchError.self) {
            _ = try await ReadsWorkload.run(store: store, spec: Self.spec(.reference, objects: 300, readers: 3))
        }
    }

    /// A reader that fails ends the case too, and the writer it leaves behind stops.
    @Test func aFailingReaderEndsTheCaseAndStopsTheWriter() async throws {
        let store = FailingStore(failWritesAfter: nil, failReads: true)
        await #expect(throws: BenchError.self) {
            _ = try await ReadsWorkload.run(store: store, spec: Self.spec(.reference, objects: 300, readers: 2))
        }
        let written = store.inserts
        try await Task.sleep(for: .milliseconds(50))
        #expect(store.inserts == written, "the writer still commits after the case ended")
    }

    @Test(arguments: ["0", "-1", "65", "99999999999999999999", "two", "1.5"])
    func badReaderCountsAreRefusedNamingTheFlag(value: String) throws {
        do {
            var options = RunOptions()
            options.workloads = [.reads]
            options.readers = try NumericFlag.integer(value, flag: "--readers")
            _ = try RunPlan.make(options)
            Issue.record("--readers \(value) accepted")
        } catch let error as BenchError {
            #expect(error.code == .invalidOption)
            #expect(error.message.hasPrefix("--readers"), "\(error.message)")
        }
    }

    @Test func readersWithoutTheReadsWorkloadAreRefused() throws {
        var options = RunOptions()
        options.readers = 2
        options.workloads = [.sensors]
        #expect(throws: BenchError.self) { try RunPlan.make(options) }
        options.suite = .smoke
        options.workloads = []
        #expect(throws: BenchError.self) { try RunPlan.make(options) }
        options.workloads = [.reads, .bulkInsert]
        options.engines = ["reference"]
        let cases = try RunPlan.make(options)
        #expect(cases.first { $0.workload == .reads }?.readers == 2)
        #expect(cases.first { $0.workload == .bulkInsert }?.readers == 0)
    }

    @Test func theCommandLineRefusesABadReaderCount() throws {
        let outcome = try CLI.run(["run", "--workload", "reads", "--readers", "0", "--no-history"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--readers 0"), "stderr: \(outcome.stderr)")
    }
}

/// The reference read store whose inserts fail after `failWritesAfter` samples, or whose
/// queries fail once a sample beyond the fill is stored.
final class FailingStore: ReadStore, @unchecked Sendable {
    let inner = ReferenceReadStore()
    let failWritesAfter: Int?
    let failReads: Bool
    private let lock = NSLock()
    private var stored = 0
    private var insertCalls = 0
    var effectiveSettings: String { "test double" }

    init(failWritesAfter: Int?, failReads: Bool) {
        self.failWritesAfter = failWritesAfter
        self.failReads = failReads
    }

    var inserts: Int { lock.withLock { insertCalls } }

    func insert(_ samples: [ReadSample]) throws {
        let total = lock.withLock { () -> Int in
            insertCalls += 1
            return stored
        }
        if let limit = failWritesAfter, total >= limit { throw BenchError(.engine, "the disk is gone") }
        try inner.insert(samples)
        lock.withLock { stored += samples.count }
    }

    func makeQueries() throws -> any ReadQueries {
        FailingQueries(try inner.makeQueries(), fail: failReads ? { [weak self] in (self?.lock.withLock { self?.stored ?? 0 } ?? 0) > 300 } : { false })
    }

    func fileBytes() -> Int64? { nil }
    func close() throws {}
}

final class FailingQueries: ReadQueries {
    let inner: any ReadQueries
    let fail: () -> Bool

    init(_ inner: any ReadQueries, fail: @escaping () -> Bool) {
        self.inner = inner
        self.fail = fail
    }

    func check() throws { if fail() { throw BenchError(.engine, "the reader's page is unreadable") } }
    func iterateValues() throws -> Double { try check(); return try inner.iterateValues() }
    func iterateAll() throws -> ReadTotals { try check(); return try inner.iterateAll() }
    func sum() throws -> Double { try check(); return try inner.sum() }
    func average() throws -> Double? { try check(); return try inner.average() }
    func min() throws -> Double? { try check(); return try inner.min() }
    func max() throws -> Double? { try check(); return try inner.max() }
    func count(valueAbove threshold: Double) throws -> Int { try check(); return try inner.count(valueAbove: threshold) }
    func topIds(limit: Int) throws -> [Int64] { try check(); return try inner.topIds(limit: limit) }
    func value(id: Int64) throws -> Double? { try check(); return try inner.value(id: id) }
    func count(seq: Int64) throws -> Int { try check(); return try inner.count(seq: seq) }
    func count(seqIn range: ClosedRange<Int64>) throws -> Int { try check(); return try inner.count(seqIn: range) }
    func listTotals(sensor: String) throws -> ReadTotals { try check(); return try inner.listTotals(sensor: sensor) }
    func close() {}
}
