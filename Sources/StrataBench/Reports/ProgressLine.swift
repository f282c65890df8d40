// The line `strata-bench run` prints when a case finishes: what a person watching the run needs
// to tell it is going well. A case that writes reports its readings per second; a read operation
// stores nothing, so it reports its operations and their time instead (a "0 readings/s" there
// read as a failure).
import Foundation

public enum ProgressLine {
    public static func finished(_ result: CaseResult) -> String {
        let note = result.note.isEmpty ? "" : " — " + result.note
        if let read = result.read, read.op != .fill {
            let perOp = read.microsPerOp.map { String(format: ", %.3f µs per operation", $0) } ?? ""
            return String(format: "        done in %.1fs: %@: %d operations%@%@", result.durationSeconds, read.op.rawValue,
                          read.ops, perOp, note)
        }
        return String(format: "        done in %.1fs: %.0f readings/s, lost %d%@", result.durationSeconds,
                      result.readingsPerSecond ?? 0, result.lost, note)
    }
}
