// The sensors model in SQL: one text for every SQLite-family engine (SQLite through GRDB,
// SQLCipher through its C API), so that their rows measure the same statements.
//
// Schema (one row per object of the sensors model):
//   sensor (symbol TEXT PRIMARY KEY, live INTEGER)            -- live = length of the list
//   reading(id INTEGER PRIMARY KEY, sensor TEXT NULL, value REAL, seq INTEGER, timestamp REAL)
//   index reading_by_sensor(sensor, id)                        -- list order = id order
// A standalone reading has `sensor` NULL.

enum SensorSQL {
    // IF NOT EXISTS: `stress` reopens a store a killed writer left, as the engine recovers it.
    static let schema = """
        CREATE TABLE IF NOT EXISTS sensor(symbol TEXT PRIMARY KEY NOT NULL, live INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS reading(id INTEGER PRIMARY KEY, sensor TEXT, value REAL NOT NULL,
                             seq INTEGER NOT NULL, timestamp REAL NOT NULL);
        CREATE INDEX IF NOT EXISTS reading_by_sensor ON reading(sensor, id);
        """
    /// (symbol)
    static let createSensor = "INSERT OR IGNORE INTO sensor(symbol, live) VALUES (?, 0)"
    /// (symbol) → live
    static let sensorLive = "SELECT live FROM sensor WHERE symbol = ?"
    /// (sensor, value, seq, timestamp)
    static let insertReading = "INSERT INTO reading(sensor, value, seq, timestamp) VALUES (?, ?, ?, ?)"
    /// (value, seq, timestamp)
    static let insertStandalone = "INSERT INTO reading(sensor, value, seq, timestamp) VALUES (NULL, ?, ?, ?)"
    /// (seq bound)
    static let deleteStandalone = "DELETE FROM reading WHERE sensor IS NULL AND seq < ?"
    /// (sensor, how many): the oldest of the sensor's list.
    static let trimOldest = """
        DELETE FROM reading WHERE id IN
          (SELECT id FROM reading WHERE sensor = ? ORDER BY id LIMIT ?)
        """
    /// (live, symbol)
    static let updateLive = "UPDATE sensor SET live = ? WHERE symbol = ?"
    static let countReadings = "SELECT count(*) FROM reading"
    static let countSensors = "SELECT count(*) FROM sensor"
    static let symbols = "SELECT symbol FROM sensor ORDER BY symbol"
    /// (sensor, SensorModel.keep) → the average of its latest readings
    static let averageOfLatest = """
        SELECT avg(value) FROM (SELECT value FROM reading WHERE sensor = ? ORDER BY id DESC LIMIT ?)
        """
    /// (sensor) → seq in list order
    static let sequences = "SELECT seq FROM reading WHERE sensor = ? ORDER BY id"
}
