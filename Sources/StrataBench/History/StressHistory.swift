// The stress results in the history: `history import-stress` stores the rows of
// `strata-bench stress` summary CSVs in `stress_results` (schema v2), and `history stress` reads
// them back over revisions.
//
// Invariants: a file is checked as a stress summary (`DurabilityHTMLSection.read`) before
// anything is stored; a file already stored (same digest: SHA-256 of its table, as for runs) is
// not stored twice; each row keeps its CSV text with the header, so the file can be rebuilt
// exactly from the history.

import Foundation
import GRDB

/// One row of a stored stress summary.
public struct StressHistoryRow: Sendable, Equatable {
    public var runTime: String
    public var revision: String
    public var host: String
    public var source: String
    public var scenario: String
    public var engine: String
    public var durability: String
    public var encryption: String
    public var strategy: String
    public var acknowledged: Int?
    public var lost: Int?
    public var hangs: Int?
    public var verdict: String
    /// The CSV's header and this row's cells, as stored.
    public var header: [String]
    public var cells: [String]
}

extension HistoryStore {
    /// Stores the stress summary at `path` unless it is there already. Returns `.added` with the
    /// rows stored, or `.alreadyPresent` with the id of its first stored row.
    @discardableResult
    public func appendStress(path source: String, recordedAt: Date = Date()) throws -> AppendOutcome {
        let table = try DurabilityHTMLSection.read(source)
        let digest = RunRecord.digest(of: table)
        do {
            return try pool.write { db -> AppendOutcome in
                if let existing = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM stress_results WHERE digest = ?", arguments: [digest]) {
                    return .alreadyPresent(id: existing)
                }
                var first: Int64 = 0
                for (index, record) in table.records.enumerated() {
                    func integer(_ column: String) -> Int? { record[column].flatMap { Int($0) } }
                    try db.execute(sql: """
                        INSERT INTO stress_results (digest, row_index, run_time, recorded_at, revision, host, source, scenario,
                                                    engine, durability, encryption, strategy, acknowledged, lost, hangs,
                                                    verdict, header, cells)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [digest, index, record["timestamp"] ?? "", RunReport.timestamp(recordedAt),
                                         record["git_rev"] ?? "", record["host"] ?? "", source, record["scenario"] ?? "",
                                         record["engine"] ?? "", record["durability"] ?? "", record["encryption"] ?? "",
                                         record["strategy"] ?? "", integer("acknowledged"), integer("lost"), integer("hangs"),
                                         record["verdict"] ?? "", CSVWriter.line(table.header), CSVWriter.line(table.rows[index])])
                    if index == 0 { first = db.lastInsertedRowID }
                }
                return table.rows.isEmpty ? .added(id: 0, rows: 0) : .added(id: first, rows: table.rows.count)
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.io, "cannot append to the history: \(HistoryStore.describe(error))", path: path)
        }
    }

    /// Stored stress rows, oldest run first (then in file order); nil filters match everything.
    public func stressResults(scenario: String? = nil, engine: String? = nil, durability: String? = nil) throws -> [StressHistoryRow] {
        try reading { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM stress_results
                WHERE (?1 IS NULL OR scenario = ?1) AND (?2 IS NULL OR engine = ?2) AND (?3 IS NULL OR durability = ?3)
                ORDER BY run_time, id
                """, arguments: [scenario, engine, durability])
            return try rows.map { row in
                let header = try CSVReader.parse((row["header"] as String) + "\n", path: "history").header
                let cells = try CSVReader.parse((row["header"] as String) + "\n" + (row["cells"] as String) + "\n", path: "history").rows.first ?? []
                return StressHistoryRow(runTime: row["run_time"], revision: row["revision"], host: row["host"], source: row["source"],
                                        scenario: row["scenario"], engine: row["engine"], durability: row["durability"],
                                        encryption: row["encryption"], strategy: row["strategy"], acknowledged: row["acknowledged"],
                                        lost: row["lost"], hangs: row["hangs"], verdict: row["verdict"], header: header, cells: cells)
            }
        }
    }
}
