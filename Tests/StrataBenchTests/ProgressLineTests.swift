// The line printed when a case finishes: a read operation names itself and its time per
// operation; a case that stores readings gives its rate and losses.
import Testing
@testable import StrataBench

@Suite struct ProgressLineTests {
    static func readsResult(_ op: ReadOp, ops: Int, nanos: UInt64) -> CaseResult {
        var spec = CaseSpec(workload: .reads, engine: .strata, strategy: .dedicated, batchSize: 10_000,
                            durability: .unsafe, readings: 1_000)
        spec.op = op
        var result = CaseResult(spec: spec)
        result.durationSeconds = Double(nanos) / 1e9
        result.read = ReadFigures(op: op, ops: ops, nanos: nanos, objectsScanned: ops, objects: 1_000, bytesPerObject: 120)
        if op == .fill { result.readings = ops }
        return result
    }

    @Test func aReadOperationGivesItsOperationsNotReadings() {
        let line = ProgressLine.finished(Self.readsResult(.primaryKey, ops: 10_000, nanos: 7_640_000))
        #expect(line.contains("pk-lookup: 10000 operations, 0.764 µs per operation"), "\(line)")
        #expect(!line.contains("readings/s"), "\(line)")
    }

    @Test func theFillAndWritingCasesGiveTheirRateAndLosses() {
        let fill = ProgressLine.finished(Self.readsResult(.fill, ops: 1_000, nanos: 500_000_000))
        #expect(fill.contains("2000 readings/s, lost 0"), "\(fill)")
        var sensors = CaseResult(spec: CaseSpec(workload: .sensors, engine: .sqlite, strategy: .gcd, writers: 8, readings: 90))
        sensors.durationSeconds = 3
        sensors.readings = 900
        sensors.lost = 2
        sensors.note = "interrupted"
        let line = ProgressLine.finished(sensors)
        #expect(line.contains("done in 3.0s: 300 readings/s, lost 2 — interrupted"), "\(line)")
    }
}
