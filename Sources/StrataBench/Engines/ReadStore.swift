// The read side of an engine: the reads workload's model (`ReadDataset`) stored in the engine's
// natural form and queried through its natural read path.
//
// An adapter conforms to `ReadableEngine` in a file of its own beside its engine file; the
// workload never asks which engine it runs. A read store is a store of its own (its own files in
// the case directory), so the sensors model's schema and write path stay as they are.
//
// Invariants every adapter keeps, so that rows of different engines compare:
// - `insert` is ONE transaction: it stores the samples, creating their sensors when missing, and
//   appends each sample to its sensor's list in the order given (the workload gives id order).
// - A `ReadQueries` handle is used only on the thread that made it, and sees the store as of its
//   latest read (each query starts from the newest committed version).
// - Queries return what they read; nothing is cached between calls except prepared statements
//   and parsed queries, which an application would keep too.

/// An engine that stores and queries the reads workload's model.
public protocol ReadableEngine: RegisteredEngine {
    /// Opens a fresh read store in `configuration.directory`.
    static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore
}

/// An open read store. Thread-safe: `insert` and `makeQueries` may be called from any thread.
public protocol ReadStore: AnyObject, Sendable {
    /// Settings read back from the engine after opening (the CSV's `engine_settings`).
    var effectiveSettings: String { get }
    /// One transaction storing `samples` and appending each to its sensor's list.
    func insert(_ samples: [ReadSample]) throws
    /// A query handle for the calling thread.
    func makeQueries() throws -> any ReadQueries
    /// Bytes the store occupies on disk (all its files), nil in memory.
    func fileBytes() -> Int64?
    func close() throws
}

/// A read store that can rewrite its file without the space its deleted and superseded pages
/// hold (the scale workload times it). Called with no query handle open; the store stays usable.
public protocol CompactableReadStore: ReadStore {
    func compact() throws
}

/// The queries the reads workload times. Not thread-safe: see `ReadStore`.
public protocol ReadQueries: AnyObject {
    /// Visits every sample reading `value` only; returns the sum of what it read.
    func iterateValues() throws -> Double
    /// Visits every sample reading every property; returns the totals of what it read.
    func iterateAll() throws -> ReadTotals
    func sum() throws -> Double
    func average() throws -> Double?
    func min() throws -> Double?
    func max() throws -> Double?
    /// The number of samples with `value > threshold`.
    func count(valueAbove threshold: Double) throws -> Int
    /// The ids of the `limit` samples of highest value, highest first.
    func topIds(limit: Int) throws -> [Int64]
    /// Primary-key lookup: the value of sample `id`, nil when there is none.
    func value(id: Int64) throws -> Double?
    /// Indexed equality: the number of samples with this `seq`.
    func count(seq: Int64) throws -> Int
    /// Indexed range: the number of samples with `seq` in `range`.
    func count(seqIn range: ClosedRange<Int64>) throws -> Int
    /// Link traversal: the samples of `sensor`'s list, read through the list.
    func listTotals(sensor: String) throws -> ReadTotals
    func close()
}

/// Totals of a pass over samples, to check that a pass read what the store holds.
public struct ReadTotals: Sendable, Equatable {
    public var count = 0
    public var valueSum = 0.0
    public var seqSum = 0.0
    public var timestampSum = 0.0

    public init(count: Int = 0, valueSum: Double = 0, seqSum: Double = 0, timestampSum: Double = 0) {
        self.count = count
        self.valueSum = valueSum
        self.seqSum = seqSum
        self.timestampSum = timestampSum
    }

    public mutating func add(value: Double, seq: Int64, timestamp: Double) {
        count += 1
        valueSum += value
        seqSum += Double(seq)
        timestampSum += timestamp
    }
}

extension Engines {
    /// Why `kind` has no read store, nil when it has one.
    public static func readUnavailability(_ kind: EngineKind) -> String? {
        if let reason = unavailability(kind) { return reason }
        return adapter(kind) is any ReadableEngine.Type ? nil : "\(kind) has no read store"
    }

    /// Opens a read store of `kind` (see `ReadableEngine.openReadStore`).
    public static func openReadStore(_ kind: EngineKind, _ configuration: EngineConfiguration) throws -> any ReadStore {
        guard let adapter = adapter(kind) as? any ReadableEngine.Type else {
            throw BenchError(.unsupported, "\(kind) has no read store")
        }
        return try adapter.openReadStore(configuration)
    }
}
