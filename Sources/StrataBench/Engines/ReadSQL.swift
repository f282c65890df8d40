// The reads workload's model in SQL: one text for every SQLite-family engine (SQLite through
// GRDB, SQLCipher through its C API), so that their rows measure the same statements.
//
// Schema:
//   sample_sensor(symbol TEXT PRIMARY KEY)
//   sample(id INTEGER PRIMARY KEY, sensor TEXT, value REAL, seq INTEGER, timestamp REAL)
//   index sample_by_seq(seq)              -- the indexed property
//   index sample_by_sensor(sensor, id)    -- a sensor's list, in list order (= id order)

enum ReadSQL {
    static let schema = """
        CREATE TABLE IF NOT EXISTS sample_sensor(symbol TEXT PRIMARY KEY NOT NULL);
        CREATE TABLE IF NOT EXISTS sample(id INTEGER PRIMARY KEY, sensor TEXT NOT NULL, value REAL NOT NULL,
                                          seq INTEGER NOT NULL, timestamp REAL NOT NULL);
        CREATE INDEX IF NOT EXISTS sample_by_seq ON sample(seq);
        CREATE INDEX IF NOT EXISTS sample_by_sensor ON sample(sensor, id);
        """
    /// (symbol)
    static let createSensor = "INSERT OR IGNORE INTO sample_sensor(symbol) VALUES (?)"
    /// (id, sensor, value, seq, timestamp)
    static let insert = "INSERT INTO sample(id, sensor, value, seq, timestamp) VALUES (?, ?, ?, ?, ?)"
    static let values = "SELECT value FROM sample"
    static let all = "SELECT id, value, seq, timestamp FROM sample"
    // total() is 0.0 over no rows where sum() is NULL; both add REALs as doubles.
    static let sum = "SELECT total(value) FROM sample"
    static let average = "SELECT avg(value) FROM sample"
    static let min = "SELECT min(value) FROM sample"
    static let max = "SELECT max(value) FROM sample"
    /// (threshold)
    static let countAbove = "SELECT count(*) FROM sample WHERE value > ?"
    /// (limit)
    static let top = "SELECT id FROM sample ORDER BY value DESC LIMIT ?"
    /// (id)
    static let byId = "SELECT value FROM sample WHERE id = ?"
    /// (seq)
    static let countSeq = "SELECT count(*) FROM sample WHERE seq = ?"
    /// (lower, upper)
    static let countSeqRange = "SELECT count(*) FROM sample WHERE seq BETWEEN ? AND ?"
    /// (sensor): the list, in list order.
    static let list = "SELECT value, seq, timestamp FROM sample WHERE sensor = ? ORDER BY id"
}
