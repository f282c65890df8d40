// Strata's read store: the reads workload's model as Realm-style objects, queried through the
// public API an application uses (`objects`, `filter`, `sorted`, `sum(ofProperty:)`,
// `object(ofType:forPrimaryKey:)`, a List).
//
//   SampleSensor { @Persisted(primaryKey: true) symbol: String; @Persisted samples: List<Sample> }
//   Sample { @Persisted(primaryKey: true) id: Int64; value: Double; @Persisted(indexed: true) seq: Int64; timestamp: Date }

import Foundation
import Strata

final class SampleSensor: Object {
    @Persisted(primaryKey: true) var symbol: String
    @Persisted var samples: List<Sample>
}

final class Sample: Object {
    @Persisted(primaryKey: true) var id: Int64
    @Persisted var value: Double
    @Persisted(indexed: true) var seq: Int64
    @Persisted var timestamp: Date
}

extension StrataEngine: ReadableEngine {
    public static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore {
        try StrataReadStore(configuration)
    }
}

/// `@unchecked Sendable`: `anchor` keeps the store open (and in-memory data alive) for the case;
/// it is set in `init` and cleared in `close()` under `lock`, and never used to read or write.
final class StrataReadStore: ReadStore, @unchecked Sendable {
    let effectiveSettings: String
    private let configuration: Realm.Configuration
    private let path: String?
    private let lock = NSLock()
    private var anchor: Realm?

    init(_ configuration: EngineConfiguration) throws {
        let built = StrataConfiguration(configuration, objectTypes: [SampleSensor.self, Sample.self], fileName: "reads.realm",
                                        memoryName: "strata-bench-reads")
        let config = built.realm
        path = built.path
        self.configuration = config
        effectiveSettings = built.effectiveSettings
        do {
            let realm = try Realm(configuration: config)
            realm.invalidate()
            anchor = realm
        } catch {
            throw BenchError(.engine, "Strata open failed: \(error)", path: path)
        }
    }

    private func realm() throws -> Realm {
        do {
            return try Realm(configuration: configuration)
        } catch {
            throw BenchError(.engine, "Strata open failed: \(error)", path: path)
        }
    }

    func insert(_ samples: [ReadSample]) throws {
        let realm = try realm()
        do {
            try realm.write {
                var sensors: [Int: SampleSensor] = [:]
                for sample in samples {
                    let sensor: SampleSensor
                    if let known = sensors[sample.sensor] {
                        sensor = known
                    } else {
                        let symbol = ReadDataset.sensors[sample.sensor]
                        if let stored = realm.object(ofType: SampleSensor.self, forPrimaryKey: symbol) {
                            sensor = stored
                        } else {
                            sensor = SampleSensor()
                            sensor.symbol = symbol
                            realm.add(sensor)
                        }
                        sensors[sample.sensor] = sensor
                    }
                    let object = Sample()
                    object.id = sample.id
                    object.value = sample.value
                    object.seq = sample.seq
                    object.timestamp = Date(timeIntervalSince1970: sample.timestamp)
                    realm.add(object)
                    sensor.samples.append(object)
                }
            }
        } catch {
            throw BenchError(.engine, "Strata insert failed: \(error)", path: path)
        }
    }

    func makeQueries() throws -> any ReadQueries { StrataReadQueries(realm: try realm()) }

    func fileBytes() -> Int64? {
        guard let path else { return nil }
        return FileSizes.total(prefix: path)
    }

    func close() throws {
        lock.lock()
        anchor = nil
        lock.unlock()
    }
}

extension StrataReadStore: CompactableReadStore {
    /// `writeCopy` to a sibling file renamed over the store, as `StrataEngine.compact` does; the
    /// anchor is released first so that no handle keeps the replaced file open, and reopened after.
    func compact() throws {
        guard let path else { return }
        lock.withLock { anchor = nil }
        let copy = path + ".compacting"
        do {
            try autoreleasingCopy(to: copy)
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw BenchError(.engine, "Strata compaction failed: \(error)", path: path)
        }
        guard rename(copy, path) == 0 else {
            throw BenchError(.io, "cannot replace the store with its compacted copy (errno \(errno))", path: path)
        }
        let reopened = try realm()
        reopened.invalidate()
        lock.withLock { anchor = reopened }
    }

    private func autoreleasingCopy(to copy: String) throws {
        let realm = try realm()
        try realm.writeCopy(toFile: URL(fileURLWithPath: copy), encryptionKey: configuration.encryptionKey)
    }
}

final class StrataReadQueries: ReadQueries {
    private let realm: Realm

    init(realm: Realm) {
        self.realm = realm
    }

    /// The samples as of the newest commit.
    private var samples: Results<Sample> {
        _ = realm.refresh()
        return realm.objects(Sample.self)
    }

    func iterateValues() throws -> Double {
        var sum = 0.0
        for sample in samples { sum += sample.value }
        return sum
    }

    func iterateAll() throws -> ReadTotals {
        var totals = ReadTotals()
        for sample in samples {
            _ = sample.id
            totals.add(value: sample.value, seq: sample.seq, timestamp: sample.timestamp.timeIntervalSince1970)
        }
        return totals
    }

    func sum() throws -> Double { samples.sum(ofProperty: "value") }
    func average() throws -> Double? { samples.average(ofProperty: "value") }
    func min() throws -> Double? { samples.min(ofProperty: "value") }
    func max() throws -> Double? { samples.max(ofProperty: "value") }

    func count(valueAbove threshold: Double) throws -> Int {
        samples.filter("value > %@", threshold).count
    }

    func topIds(limit: Int) throws -> [Int64] {
        samples.sorted(byKeyPath: "value", ascending: false).prefix(limit).map(\.id)
    }

    func value(id: Int64) throws -> Double? {
        _ = realm.refresh()
        return realm.object(ofType: Sample.self, forPrimaryKey: id)?.value
    }

    func count(seq: Int64) throws -> Int {
        samples.filter("seq == %@", seq).count
    }

    func count(seqIn range: ClosedRange<Int64>) throws -> Int {
        samples.filter("seq >= %@ AND seq <= %@", range.lowerBound, range.upperBound).count
    }

    func listTotals(sensor symbol: String) throws -> ReadTotals {
        _ = realm.refresh()
        var totals = ReadTotals()
        guard let sensor = realm.object(ofType: SampleSensor.self, forPrimaryKey: symbol) else { return totals }
        for sample in sensor.samples {
            totals.add(value: sample.value, seq: sample.seq, timestamp: sample.timestamp.timeIntervalSince1970)
        }
        return totals
    }

    func close() {
        realm.invalidate()
    }
}

/// Sizes of a store's files on disk.
enum FileSizes {
    /// Bytes of every file in `path`'s directory whose name starts with `path`'s name.
    static func total(prefix path: String) -> Int64? {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var total: Int64 = 0
        for candidate in names where candidate.hasPrefix(name) {
            var info = stat()
            if stat((directory as NSString).appendingPathComponent(candidate), &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }
}
