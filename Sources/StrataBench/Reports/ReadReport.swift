// The reads workload's rows in the terminal table: one line per operation, engines side by side
// in run order. With `--readers`, each line adds the operation's per-call p50/p99 with the
// readers alone and under the writer, and the writer's commits per second.

import Foundation

public enum ReadReport {
    public static func table(_ results: [CaseResult]) -> String {
        var header = ["engine", "dur", "rep", "objects", "op", "ops", "ops/s", "us/op", "ns/object", "B/object", "ok"]
        let loaded = results.contains { $0.load != nil }
        if loaded {
            header += ["readers", "alone p50", "alone p99", "writer p50", "writer p99", "commits/s"]
        }
        let rows = results.compactMap { result -> [String]? in
            guard let read = result.read else { return nil }
            let spec = result.spec
            func num(_ value: Double?, _ digits: Int) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
            var row = [spec.engine.rawValue, spec.durability.rawValue, String(spec.repetition), String(read.objects),
                       read.op.rawValue, String(read.ops), num(read.opsPerSecond, 0), num(read.microsPerOp, 3),
                       num(read.nanosPerObject, 2), num(read.bytesPerObject, 1), result.verified ? "yes" : "NO"]
            if loaded {
                let load = result.load
                row += [load.map { String($0.readers) } ?? "-", num(load?.alone?.p50, 1), num(load?.alone?.p99, 1),
                        num(load?.underWriter?.p50, 1), num(load?.underWriter?.p99, 1), num(load?.writerCommitsPerSecond, 0)]
            }
            return row
        }
        let numeric = [3] + Array(5..<10) + (loaded ? Array(11..<17) : [])
        return TextTable.render(header: header, rows: rows, rightAligned: Set(numeric))
    }
}
