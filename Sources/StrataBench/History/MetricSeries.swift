// One metric of one case across revisions: what `history show` prints and `history changes`
// searches.
//
// Invariants: one point per revision, in the order the revision first appears (by run time, so
// "oldest first"); a point's median and spread are over every stored value of that revision
// (all repetitions of all its runs), so re-running a revision adds evidence, not points.

import Foundation

public struct MetricSeries: Sendable {
    public struct Point: Sendable, Equatable {
        public var revision: String
        /// Time of the revision's first run.
        public var firstRun: String
        public var runs: Int
        public var values: [Double]
        public var median: Double { Statistics.median(values) }
        public var minimum: Double { values.min() ?? .nan }
        public var maximum: Double { values.max() ?? .nan }
        /// (max − min) / median, in percent: how far the revision's own repetitions spread.
        public var spreadPercent: Double? { median != 0 ? (maximum - minimum) / abs(median) * 100 : nil }

        public init(revision: String, firstRun: String, runs: Int, values: [Double]) {
            self.revision = revision
            self.firstRun = firstRun
            self.runs = runs
            self.values = values
        }
    }

    public var caseKey: String
    public var metric: String
    public var points: [Point]

    public init(caseKey: String, metric: String, points: [Point]) {
        self.caseKey = caseKey
        self.metric = metric
        self.points = points
    }

    /// Groups observations into one series per case (in order of first appearance).
    public static func make(_ observations: [HistoryStore.Observation], metric: String) -> [MetricSeries] {
        var order: [String] = []
        var byCase: [String: [HistoryStore.Observation]] = [:]
        for observation in observations {
            if byCase[observation.caseKey] == nil { order.append(observation.caseKey) }
            byCase[observation.caseKey, default: []].append(observation)
        }
        return order.map { key in
            var revisions: [String] = []
            var points: [String: Point] = [:]
            var runsSeen: [String: Set<Int64>] = [:]
            for observation in byCase[key] ?? [] {
                if points[observation.revision] == nil {
                    revisions.append(observation.revision)
                    points[observation.revision] = Point(revision: observation.revision, firstRun: observation.runTime, runs: 0, values: [])
                }
                points[observation.revision]?.values.append(observation.value)
                runsSeen[observation.revision, default: []].insert(observation.runID)
            }
            return MetricSeries(caseKey: key, metric: metric, points: revisions.compactMap { revision in
                guard var point = points[revision] else { return nil }
                point.runs = runsSeen[revision]?.count ?? 0
                return point
            })
        }
    }

    /// The series as a text table (one line per revision).
    public func table() -> String {
        let header = ["revision", "first run", "runs", "values", "median", "min", "max", "spread %"]
        let rows = points.map { point in
            [point.revision, point.firstRun, String(point.runs), String(point.values.count), CSVNumber.format(point.median),
             CSVNumber.format(point.minimum), CSVNumber.format(point.maximum), CSVNumber.format(point.spreadPercent, digits: 1)]
        }
        return TextTable.render(header: header, rows: rows, rightAligned: Set(2..<8))
    }
}
