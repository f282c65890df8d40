// The history database's schema, versioned with GRDB's `DatabaseMigrator`: a later build adds a
// migration, never edits one, so every history file upgrades in place.
//
// Tables: `runs` (one per run: digest, time, revision, host, machine facts, suite, source),
// `results` (one per summary row: the case and the row's CSV text, so nothing of the run is
// lost), `measurements` (one per numeric cell: the values `history show` and `changes` follow),
// `metrics` (the column names measurements refer to by number: a run has ~35 numeric cells per
// row, and a name repeated in each of them doubled the file).
// v2 adds `stress_results` (one per row of a `strata-bench stress` summary: the case, its counts
// and verdict as columns, and the row's CSV text), so `history stress` follows durability over
// revisions beside the timings.

import GRDB

enum HistorySchema {
    /// SQLite's `application_id` of a strata-bench history ("SBHS"): how a file is known as ours.
    static let applicationID: Int32 = 0x5342_4853

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-runs-results-measurements") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: """
                CREATE TABLE runs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    digest TEXT NOT NULL UNIQUE,
                    run_time TEXT NOT NULL,
                    recorded_at TEXT NOT NULL,
                    revision TEXT NOT NULL,
                    host TEXT NOT NULL,
                    cpu_model TEXT,
                    cores INTEGER,
                    memory_bytes INTEGER,
                    kernel TEXT,
                    build TEXT,
                    suite TEXT NOT NULL,
                    source TEXT NOT NULL,
                    cases INTEGER NOT NULL,
                    row_count INTEGER NOT NULL,
                    header TEXT NOT NULL
                );
                CREATE TABLE results (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    row_index INTEGER NOT NULL,
                    case_key TEXT NOT NULL,
                    workload TEXT NOT NULL,
                    engine TEXT NOT NULL,
                    strategy TEXT NOT NULL,
                    encryption TEXT NOT NULL,
                    durability TEXT NOT NULL,
                    repetition INTEGER,
                    cells TEXT NOT NULL,
                    UNIQUE (run_id, row_index)
                );
                CREATE INDEX results_case ON results (workload, engine, strategy);
                CREATE TABLE metrics (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE
                );
                CREATE TABLE measurements (
                    result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
                    metric_id INTEGER NOT NULL REFERENCES metrics(id),
                    value REAL NOT NULL,
                    PRIMARY KEY (result_id, metric_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2-stress-results") { db in
            try db.execute(sql: """
                CREATE TABLE stress_results (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    digest TEXT NOT NULL,
                    row_index INTEGER NOT NULL,
                    run_time TEXT NOT NULL,
                    recorded_at TEXT NOT NULL,
                    revision TEXT NOT NULL,
                    host TEXT NOT NULL,
                    source TEXT NOT NULL,
                    scenario TEXT NOT NULL,
                    engine TEXT NOT NULL,
                    durability TEXT NOT NULL,
                    encryption TEXT NOT NULL,
                    strategy TEXT NOT NULL,
                    acknowledged INTEGER,
                    lost INTEGER,
                    hangs INTEGER,
                    verdict TEXT NOT NULL,
                    header TEXT NOT NULL,
                    cells TEXT NOT NULL,
                    UNIQUE (digest, row_index)
                );
                CREATE INDEX stress_results_case ON stress_results (scenario, engine, durability);
                """)
        }
        return migrator
    }()
}
