// The Strata engine adapter: the sensors model as Realm-style objects.
//
//   Sensor  { @Persisted(primaryKey: true) symbol: String; @Persisted readings: List<Reading> }
//   Reading { @Persisted value: Double; @Persisted seq: Int64; @Persisted timestamp: Date }
//
// Durability maps one to one (`full`, `unsafe`, `memory` → in-memory realm). Encryption passes
// the 64-byte key to `Realm.Configuration.encryptionKey`.
//
// Confinement: Strata enforces Realm's rules at run time — a live realm is used only on the
// thread or queue it was opened on. Each handle opens its realm at its `WriterPlacement`
// (`Realm(configuration:)` on the current thread, `Realm(configuration:queue:)` on a queue),
// exactly as an app would; the realm's per-thread instance cache makes that cheap.
//
// Compaction is `writeCopy` to a sibling file renamed over the original, once every handle is
// closed (the workloads compact last). Standalone readings: `deleteStandalone` deletes every
// Reading with seq < bound; the workloads never mix standalone and listed readings in a store.

import Foundation
import Strata

extension EngineKind {
    public static let strata = EngineKind(registering: "strata")
}

final class Sensor: Object {
    @Persisted(primaryKey: true) var symbol: String
    @Persisted var readings: List<Reading>
}

final class Reading: Object {
    @Persisted var value: Double
    @Persisted var seq: Int64
    @Persisted var timestamp: Date
}

/// Strata (the embedded engine of this package). Thread-safe: it only holds the configuration;
/// every realm lives in a handle at its placement.
/// `@unchecked Sendable`: `anchor` is set in `init` and released in `compact()`/`close()` under
/// `lock`, never used for reading or writing objects: it keeps the in-memory data alive, and keeps
/// a file store open for the whole case, so the file is not closed and reopened whenever the
/// workload's handles come and go (each reopen would reset the storage counters and add the
/// open's own work to the phase being measured). It holds no version (`invalidate()`), so it pins
/// nothing; `work()` reads only its atomic storage counters, from any thread.
public final class StrataEngine: RegisteredEngine, @unchecked Sendable {
    public static let kind = EngineKind.strata
    public static let summary = "Strata, this package's embedded object database (Realm's programming model)"
    public static let role = EngineRole.builtIn
    public static let colour = "#1f77b4"
    public static let unavailability: String? = nil
    public static let encryptionUnavailability: String? = nil
    public static let reportNote = "strata = Strata (full = flush per commit, unsafe = no flush, memory = an in-memory realm; enc on = AES-256-GCM pages)"
    public static let promises: [Durability: DurabilityPromise] = [
        .full: DurabilityPromise(processDeath: .everything, powerLoss: .everything,
                                 source: "Sources/StrataStorage/File/StorageOptions.swift, Durability.full (durable when the commit returns)"),
        // A torn or damaged previous version is reported as .corruptFile, never as wrong data.
        .unsafe: DurabilityPromise(processDeath: .everything,
                                   powerLoss: StressGuarantee(keepsAcknowledged: false, staysIntact: false, atomic: true),
                                   source: "Sources/StrataStorage/File/StorageOptions.swift, Durability.unsafe (process crash loses nothing; power loss may lose recent commits or open as .corruptFile, never wrong data)"),
    ]
    public let effectiveSettings: String
    let configuration: Realm.Configuration
    private let trim: TrimStyle
    private let path: String?
    private let directory: String
    private let lock = NSLock()
    private var anchor: Realm?

    public init(_ configuration: EngineConfiguration) throws {
        let built = StrataConfiguration(configuration, objectTypes: [Sensor.self, Reading.self], fileName: "bench.realm",
                                        memoryName: "strata-bench")
        let config = built.realm
        directory = configuration.directory
        trim = configuration.trim
        path = built.path
        self.configuration = config
        effectiveSettings = built.effectiveSettings
        do {
            // Opening once creates the file and stores the schema; in memory it keeps the data alive.
            let realm = try Realm(configuration: config)
            realm.invalidate()
            anchor = realm
        } catch {
            throw BenchError(.engine, "Strata open failed: \(error)", path: path)
        }
    }

    public func makeWriter(placement: WriterPlacement) throws -> any SensorWriter {
        StrataWriter(realm: try open(at: placement), trim: trim)
    }

    public func makeReader(placement: WriterPlacement) throws -> any SensorReader {
        StrataReader(realm: try open(at: placement))
    }

    private func open(at placement: WriterPlacement) throws -> Realm {
        do {
            switch placement {
            case .currentThread: return try Realm(configuration: configuration)
            case .queue(let queue): return try Realm(configuration: configuration, queue: queue)
            }
        } catch {
            throw BenchError(.engine, "Strata open failed: \(error)", path: path)
        }
    }

    public func fileBytes() -> Int64? {
        guard path != nil else { return nil }
        // Every file of the store (the realm file and its companions) lives in `directory`.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var total: Int64 = 0
        for name in names where name.hasPrefix("bench.realm") {
            var info = stat()
            if stat((directory as NSString).appendingPathComponent(name), &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }

    /// `strata info`'s summary line of the store's file (read-only; the engine's realm may stay open).
    public func storeSummary() -> String? {
        guard let path else { return nil }
        return StrataFile.summaryLine(path: path, encryptionKey: configuration.encryptionKey.map { [UInt8]($0) })
    }

    /// `Realm.storageStatistics` of the store's file, through the anchor (no realm is opened).
    public func work() -> EngineWork {
        lock.lock()
        let realm = anchor
        lock.unlock()
        guard let figures = realm?.storageStatistics else { return EngineWork() }
        return EngineWork(pagesWritten: figures.pagesWritten, bytesWritten: figures.bytesWritten, flushes: figures.flushes,
                          writeCalls: figures.writeCalls)
    }

    public func compact() throws {
        guard let path else { return }
        // The copy is renamed over the file: the anchor must not keep the replaced file open.
        lock.lock()
        anchor = nil
        lock.unlock()
        let copy = path + ".compacting"
        do {
            try autoreleasingCopy(to: copy)
        } catch let error as Realm.Error where "\(error)".contains("not implemented") {
            try? FileManager.default.removeItem(atPath: copy)
            throw BenchError(.unsupported, "Strata's writeCopy is not implemented in this build", path: path)
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw BenchError(.engine, "Strata compaction failed: \(error)", path: path)
        }
        guard rename(copy, path) == 0 else {
            throw BenchError(.io, "cannot replace the store with its compacted copy (errno \(errno))", path: path)
        }
    }

    /// Opens a realm only for the copy, so it is released before the rename.
    private func autoreleasingCopy(to copy: String) throws {
        let realm = try Realm(configuration: configuration)
        try realm.writeCopy(toFile: URL(fileURLWithPath: copy), encryptionKey: configuration.encryptionKey)
    }

    public func close() throws {
        lock.lock()
        anchor = nil
        lock.unlock()
    }
}

/// Writes through one realm at its placement. Not thread-safe (Strata checks the confinement).
final class StrataWriter: SensorWriter {
    private var realm: Realm?
    private let trim: TrimStyle

    init(realm: Realm, trim: TrimStyle) {
        self.realm = realm
        self.trim = trim
    }

    private func live() throws -> Realm {
        guard let realm else { throw BenchError(.engine, "Strata writer used after close") }
        return realm
    }

    func createSensors(_ symbols: [String]) throws {
        let realm = try live()
        try run("create sensors") {
            try realm.write {
                for symbol in symbols where realm.object(ofType: Sensor.self, forPrimaryKey: symbol) == nil {
                    let sensor = Sensor()
                    sensor.symbol = symbol
                    realm.add(sensor)
                }
            }
        }
    }

    func addReadings(sensor: String, readings: [SensorReading]) throws -> Int {
        let realm = try live()
        return try run("add readings") {
            try realm.write { try Self.append(realm, sensor: sensor, readings: readings, trim: trim) }
        }
    }

    /// Realm's `asyncWrite`: the commit is published at once and its flush shared with the
    /// commits other tasks of the same actor make while this one waits (grouped async commits).
    func addReadingsAsync(isolation: isolated (any Actor)?, sensor: String, readings: [SensorReading]) async throws -> Int {
        let realm = try live()
        do {
            return try await realm.asyncWrite(isolation: isolation) { try Self.append(realm, sensor: sensor, readings: readings, trim: trim) }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.engine, "Strata add readings (asyncWrite) failed: \(error)")
        }
    }

    func addReadings(batch: [(sensor: String, readings: [SensorReading])]) throws -> Int {
        let realm = try live()
        return try run("add readings (batch)") {
            try realm.write {
                var deleted = 0
                for group in batch where !group.readings.isEmpty {
                    deleted += try Self.append(realm, sensor: group.sensor, readings: group.readings, trim: trim)
                }
                return deleted
            }
        }
    }

    func insertStandalone(_ readings: [SensorReading]) throws {
        let realm = try live()
        try run("insert standalone readings") {
            try realm.write {
                for reading in readings { realm.add(Self.object(reading)) }
            }
        }
    }

    func deleteStandalone(seqBelow bound: Int64) throws -> Int {
        let realm = try live()
        return try run("delete standalone readings") {
            try realm.write {
                let doomed = realm.objects(Reading.self).filter { $0.seq < bound }
                realm.delete(doomed)
                return doomed.count
            }
        }
    }

    func close() {
        realm = nil
    }

    /// The book's `addReadings`: fetch the sensor by key, append, delete what exceeds the cap
    /// (`trim`: out of the list first, or deleted straight from it as the book's batched writer does).
    private static func append(_ realm: Realm, sensor symbol: String, readings: [SensorReading], trim: TrimStyle) throws -> Int {
        guard let sensor = realm.object(ofType: Sensor.self, forPrimaryKey: symbol) else {
            throw BenchError(.engine, "no sensor '\(symbol)' in the Strata store")
        }
        sensor.readings.append(objectsIn: readings.map(object))
        let excess = sensor.readings.count - SensorModel.keep
        guard excess > 0 else { return 0 }
        let oldest = Array(sensor.readings.prefix(excess))
        if trim == .remove { sensor.readings.removeFirst(excess) }
        realm.delete(oldest)
        return excess
    }

    private static func object(_ reading: SensorReading) -> Reading {
        let object = Reading()
        object.value = reading.value
        object.seq = reading.seq
        object.timestamp = Date(timeIntervalSince1970: reading.timestamp)
        return object
    }

    private func run<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.engine, "Strata \(what) failed: \(error)")
        }
    }
}

/// Reads through one realm at its placement; each call first advances it to the newest version.
/// `pin()` keeps a frozen realm of the newest version until `unpin()`.
final class StrataReader: SensorReader {
    private var realm: Realm?
    private var pinned: Realm?

    init(realm: Realm) {
        self.realm = realm
    }

    private func current() throws -> Realm {
        guard let realm else { throw BenchError(.engine, "Strata reader used after close") }
        _ = realm.refresh()
        return realm
    }

    func stats() throws -> StoreStats {
        let realm = try current()
        var averages: [String: Double?] = [:]
        for sensor in realm.objects(Sensor.self) {
            // The list holds at most `SensorModel.keep` readings: its average is the latest 10,000's.
            let readings = sensor.readings
            if readings.isEmpty {
                averages[sensor.symbol] = .some(nil)
            } else {
                var sum = 0.0
                for reading in readings { sum += reading.value }
                averages[sensor.symbol] = sum / Double(readings.count)
            }
        }
        return StoreStats(readings: realm.objects(Reading.self).count, sensors: realm.objects(Sensor.self).count,
                          averages: averages)
    }

    func sequences(sensor symbol: String) throws -> [Int64] {
        let realm = try current()
        guard let sensor = realm.object(ofType: Sensor.self, forPrimaryKey: symbol) else { return [] }
        return sensor.readings.map(\.seq)
    }

    func readingCount(sensor symbol: String) throws -> Int? {
        let realm = try current()
        return realm.object(ofType: Sensor.self, forPrimaryKey: symbol)?.readings.count
    }

    func pin() throws {
        let realm = try current()
        do {
            pinned = try realm.freezeThrowing()
        } catch {
            throw BenchError(.engine, "Strata pin failed: \(error)")
        }
    }

    func unpin() {
        pinned = nil
    }

    func close() {
        pinned = nil
        realm = nil
    }
}

// MARK: - Stress checks

extension StrataEngine {
    /// `StrataFile.verify()` (what `strata verify` runs) on the store's file, opened read-only
    /// with every page's checksum or tag checked first. A file that will not open for
    /// verification is one problem, named by Strata's error code.
    public func integrityProblems() throws -> [String] {
        guard let path else { return [] }
        let file: StrataFile
        do {
            file = try StrataFile(path: path, encryptionKey: configuration.encryptionKey.map { [UInt8]($0) },
                                  verifyingAllPages: true)
        } catch {
            return ["verification open: \(error.code.rawValue): \(error.message)"]
        }
        defer { file.close() }
        return file.verify().map(\.description)
    }
}

extension StrataReader {
    func sensors() throws -> [String] {
        try current().objects(Sensor.self).map(\.symbol).sorted()
    }
}
