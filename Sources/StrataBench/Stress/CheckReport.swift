// What the checker child found in a store: its one JSON object on stdout, and the parent's view
// of how the child ended (`CheckOutcome`).
//
// JSON (keys sorted), e.g.
//   {"engine":"sqlite","opened":true,"problems":[],"recovery_ms":12.5,
//    "sensors":{"w0-o3":[[1,57]],"w0-no2":[[1,56]]}}
// or, when the store would not open or a read failed,
//   {"engine":"strata","error":{"code":"engine","message":"…"},"opened":false,"problems":[],"sensors":{}}
// A sensor's sequences are given as ascending ranges [first, last] of consecutive seqs in list
// order; a seq lower than the one before it starts a new range too, so the ranges say exactly
// what the list holds.

import Foundation

/// The checker child's result.
public struct CheckReport: Sendable, Equatable, Codable {
    public struct Failure: Sendable, Equatable, Codable {
        /// `BenchError.Code` raw value.
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var engine: String
    /// Whether the store opened (false: `error` says why).
    public var opened: Bool
    /// Per sensor, its list's seqs as ranges.
    public var sensors: [String: [[Int64]]]
    /// The engine's integrity check's findings (empty: intact).
    public var problems: [String]
    /// The store would not open, or a read failed.
    public var error: Failure?
    /// Open plus full read, in milliseconds (nil when it did not open).
    public var recoveryMs: Double?

    public init(engine: String, opened: Bool, sensors: [String: [[Int64]]] = [:], problems: [String] = [],
                error: Failure? = nil, recoveryMs: Double? = nil) {
        self.engine = engine
        self.opened = opened
        self.sensors = sensors
        self.problems = problems
        self.error = error
        self.recoveryMs = recoveryMs
    }

    enum CodingKeys: String, CodingKey {
        case engine, opened, sensors, problems, error
        case recoveryMs = "recovery_ms"
    }

    /// Consecutive runs of `seqs`, in order: [1,2,3,7,8] → [[1,3],[7,8]].
    public static func ranges(_ seqs: [Int64]) -> [[Int64]] {
        var ranges: [[Int64]] = []
        for seq in seqs {
            if let last = ranges.last, last[1] != Int64.max, seq == last[1] + 1 {
                ranges[ranges.count - 1][1] = seq
            } else {
                ranges.append([seq, seq])
            }
        }
        return ranges
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses the checker's stdout; `childProtocol` when it is not one report.
    public static func parse(_ text: String) throws -> CheckReport {
        do {
            let report = try JSONDecoder().decode(CheckReport.self, from: Data(text.utf8))
            for (sensor, ranges) in report.sensors where ranges.contains(where: { $0.count != 2 || $0[0] > $0[1] }) {
                throw BenchError(.childProtocol, "checker output: sensor \(QuotedInput.clip(sensor)) has a range that is not [first, last]")
            }
            return report
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.childProtocol, "checker output is not its JSON report: \(error) in '\(QuotedInput.clip(text))'")
        }
    }
}

/// How a check ended, as the parent saw it.
public enum CheckOutcome: Sendable, Equatable {
    /// The checker ran to the end and reported.
    case checked(CheckReport)
    /// The checker died of a signal (the engine crashed while recovering or reading).
    case crashed(signal: Int32)
    /// The checker did not finish within the timeout and was killed.
    case hung(seconds: Double)
    /// The checker exited without a report (non-zero status, unreadable output).
    case broken(String)
}
