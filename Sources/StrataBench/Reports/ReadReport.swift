// The reads workload's rows in the terminal table: one line per operation, engines side by side
// in run order.

import Foundation

public enum ReadReport {
    public static func table(_ results: [CaseResult]) -> String {
        let header = ["engine", "dur", "rep", "objects", "op", "ops", "ops/s", "us/op", "ns/object", "B/object", "ok"]
        let rows = results.compactMap { result -> [String]? in
            guard let read = result.read else { return nil }
            let spec = result.spec
            func num(_ value: Double?, _ digits: Int) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
            return [spec.engine.rawValue, spec.durability.rawValue, String(spec.repetition), String(read.objects),
                    read.op.rawValue, String(read.ops), num(read.opsPerSecond, 0), num(read.microsPerOp, 3),
                    num(read.nanosPerObject, 2), num(read.bytesPerObject, 1), result.verified ? "yes" : "NO"]
        }
        return TextTable.render(header: header, rows: rows, rightAligned: Set([3] + Array(5..<10)))
    }
}
