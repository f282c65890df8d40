// The engine protocol every workload is written against, once.
//
// An engine adapter (Strata, SQLite via GRDB, LMDB, SQLCipher, the in-memory reference) stores
// the sensors model:
//   Sensor  { symbol: String (primary key); readings: List<Reading> }
//   Reading { value: Double; seq: Int64; timestamp: Date }
// plus standalone readings (no owning sensor) for bulk-insert and compaction.
//
// Invariants every adapter keeps, so that rows of different engines compare:
// - `addReadings` is ONE transaction: fetch the sensor by primary key, append the readings in
//   order, and if the list then holds more than `SensorModel.keep` readings, remove the oldest
//   excess from the list AND delete those Reading objects from the store. It returns the number
//   deleted, which the workload needs to prove that nothing was lost.
// - The durability promise of `EngineConfiguration.durability` holds when a write returns.
// - Writer and reader handles are used only where they were made (`WriterPlacement`); engines
//   whose handles are thread-confined may enforce that at run time.
// - Nothing here prints: notes for the user travel back as values.

import Dispatch

/// The fixed parameters of the sensors model.
public enum SensorModel {
    /// The three mock sensors of the book.
    public static let symbols = ["o3", "no2", "aqi"]
    /// Readings kept per sensor; older ones are deleted.
    public static let keep = 10_000
}

/// One reading as produced by a sensor.
public struct SensorReading: Sendable, Equatable {
    /// The measured value.
    public var value: Double
    /// 1-based sequence number per sensor: the k-th reading a producer made.
    public var seq: Int64
    /// Production time, seconds since 1970 (stored as the model's `timestamp: Date`).
    public var timestamp: Double

    public init(value: Double, seq: Int64, timestamp: Double) {
        self.value = value
        self.seq = seq
        self.timestamp = timestamp
    }
}

/// What an engine needs to open a fresh store.
public struct EngineConfiguration: Sendable {
    /// An empty directory the engine owns for this case (its files go inside).
    public var directory: String
    public var durability: Durability
    /// 64-byte key when encryption is on, nil otherwise.
    public var encryptionKey: [UInt8]?
    /// How `addReadings` drops the readings beyond the cap (engines whose two forms differ).
    public var trim: TrimStyle

    public init(directory: String, durability: Durability, encryptionKey: [UInt8]? = nil, trim: TrimStyle = .remove) {
        self.directory = directory
        self.durability = durability
        self.encryptionKey = encryptionKey
        self.trim = trim
    }
}

/// Where a handle will be used. A handle must not be used anywhere else.
public enum WriterPlacement: Sendable {
    /// Only on the thread that calls `makeWriter` (dedicated, batched, one per gcd thread).
    case currentThread
    /// Only inside blocks running on this serial queue (the main queue, an actor's executor
    /// queue), whatever OS thread the queue happens to run them on (on Linux the main queue's
    /// blocks may run on any thread).
    case queue(DispatchQueue)
}

/// What a stats pass of the sensors app reads.
public struct StoreStats: Sendable, Equatable {
    /// Reading objects in the store (in lists or standalone).
    public var readings: Int
    /// Sensor objects in the store.
    public var sensors: Int
    /// Per sensor symbol: the average value of its latest `SensorModel.keep` readings (nil: empty).
    public var averages: [String: Double?]

    public init(readings: Int, sensors: Int, averages: [String: Double?]) {
        self.readings = readings
        self.sensors = sensors
        self.averages = averages
    }

    /// Objects in the store: sensors plus readings (the CSV's `live_objects`).
    public var liveObjects: Int { readings + sensors }
}

/// An open store under test. Thread-safe: workloads call it from any thread.
public protocol BenchEngine: AnyObject, Sendable {
    var kind: EngineKind { get }
    /// Settings read back from the engine after opening, for the CSV (`engine_settings`), e.g.
    /// `journal_mode=wal;synchronous=FULL`. Never the requested value: the effective one.
    var effectiveSettings: String { get }
    /// A handle that writes; use it only at `placement`.
    func makeWriter(placement: WriterPlacement) throws -> any SensorWriter
    /// A handle that reads; use it only at `placement`.
    func makeReader(placement: WriterPlacement) throws -> any SensorReader
    /// Bytes the store occupies on disk (all its files), nil for in-memory stores.
    func fileBytes() -> Int64?
    /// One line on the state of the store's file (what `strata info` says first), for the report
    /// of a case that failed its end-of-run check; nil when the engine has none to give.
    func storeSummary() -> String?
    /// The work the store did since it was opened, as far as the engine can count it
    /// (`EngineWork` says what each figure means per engine). Call with no write in progress.
    func work() -> EngineWork
    /// Rewrites the store densely (no writer or pinned reader may be active).
    func compact() throws
    /// What the engine's own integrity check finds wrong with the store (empty: intact). Strata:
    /// `StrataFile.verify()`; SQLite and SQLCipher: `PRAGMA integrity_check`; LMDB: every
    /// key/value of every database read through a cursor. Call with no write in progress.
    func integrityProblems() throws -> [String]
    /// Releases every resource; the engine is unusable afterwards.
    func close() throws
}

/// A writing handle. Not thread-safe: see `WriterPlacement`.
public protocol SensorWriter: AnyObject {
    /// One transaction creating the sensors (no-op for symbols that exist).
    func createSensors(_ symbols: [String]) throws
    /// One transaction: append `readings` to `sensor`'s list and trim it to the newest
    /// `SensorModel.keep`, deleting the excess. Returns how many readings were deleted.
    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int
    /// `addReadings(sensor:readings:)` through the engine's Swift-concurrency write path (the
    /// `async` strategy), staying in the caller's isolation. The default runs the synchronous
    /// write; an engine whose async API lets a waiting commit yield to other tasks overrides it.
    func addReadingsAsync(isolation: isolated (any Actor)?, sensor: String, readings: [SensorReading]) async throws -> Int
    /// One transaction doing `addReadings` for several sensors (the batched strategy).
    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int
    /// One transaction inserting standalone readings (owned by no sensor).
    func insertStandalone(_ readings: [SensorReading]) throws
    /// One transaction deleting the standalone readings with `seq < bound`; returns the count.
    func deleteStandalone(seqBelow bound: Int64) throws -> Int
    /// Releases the handle. May be called from any thread once the handle's last use is over
    /// (gcd's per-thread handles are closed by the case thread after the pool drained).
    func close()
}

extension SensorWriter {
    public func addReadingsAsync(isolation: isolated (any Actor)?, sensor: String, readings: [SensorReading]) async throws -> Int {
        try addReadings(sensor: sensor, readings: readings)
    }
}

/// A reading handle. Not thread-safe: see `WriterPlacement`; `close()` as for writers.
public protocol SensorReader: AnyObject {
    /// The sensors app's once-a-second pass: counts and per-sensor averages of the latest 10,000.
    func stats() throws -> StoreStats
    /// The `seq` of each reading in `sensor`'s list, in list order (for end-of-run checks).
    func sequences(sensor: String) throws -> [Int64]
    /// Primary-key lookup: the number of readings in `sensor`'s list, nil if no such sensor.
    func readingCount(sensor: String) throws -> Int?
    /// Every sensor's symbol in the store, sorted (the stress checker reads them all).
    func sensors() throws -> [String]
    /// Holds the current version until `unpin()`: the writer's later commits cannot reuse its pages.
    func pin() throws
    /// Releases the pinned version.
    func unpin()
    func close()
}

extension Result {
    /// The error of a failed result, nil on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension BenchEngine {
    public func storeSummary() -> String? { nil }
}
