// The reference engine's read store: the samples in an array under a lock, every query a plain
// loop over it. Obviously right, so that a test of the reads workload checks the workload.

import Foundation

extension ReferenceEngine: ReadableEngine {
    public static func openReadStore(_ configuration: EngineConfiguration) throws -> any ReadStore {
        if configuration.encryptionKey != nil {
            throw BenchError(.unsupported, encryptionUnavailability ?? "no encryption")
        }
        return ReferenceReadStore()
    }
}

/// `@unchecked Sendable`: `contents` is only touched under `lock`.
final class ReferenceReadStore: ReadStore, @unchecked Sendable {
    struct Contents {
        var samples: [ReadSample] = []
        var byId: [Int64: Int] = [:]
        /// Per sensor symbol: indices into `samples`, in list order.
        var lists: [String: [Int]] = [:]
    }

    let effectiveSettings = "memory"
    private let lock = NSLock()
    private var contents = Contents()

    /// A copy of the contents: a query reads one version whole.
    var snapshot: Contents { lock.withLock { contents } }

    func insert(_ samples: [ReadSample]) throws {
        lock.withLock {
            for sample in samples {
                contents.byId[sample.id] = contents.samples.count
                contents.lists[ReadDataset.sensors[sample.sensor], default: []].append(contents.samples.count)
                contents.samples.append(sample)
            }
        }
    }

    func makeQueries() throws -> any ReadQueries { ReferenceReadQueries(self) }
    func fileBytes() -> Int64? { nil }
    func close() throws {}
}

final class ReferenceReadQueries: ReadQueries {
    private let store: ReferenceReadStore

    init(_ store: ReferenceReadStore) {
        self.store = store
    }

    private var samples: [ReadSample] { store.snapshot.samples }

    func iterateValues() throws -> Double { samples.reduce(0) { $0 + $1.value } }

    func iterateAll() throws -> ReadTotals {
        var totals = ReadTotals()
        for sample in samples { totals.add(value: sample.value, seq: sample.seq, timestamp: sample.timestamp) }
        return totals
    }

    func sum() throws -> Double { try iterateValues() }

    func average() throws -> Double? {
        let all = samples
        return all.isEmpty ? nil : all.reduce(0) { $0 + $1.value } / Double(all.count)
    }

    func min() throws -> Double? { samples.map(\.value).min() }
    func max() throws -> Double? { samples.map(\.value).max() }
    func count(valueAbove threshold: Double) throws -> Int { samples.filter { $0.value > threshold }.count }

    func topIds(limit: Int) throws -> [Int64] {
        samples.sorted { ($0.value, -$0.id) > ($1.value, -$1.id) }.prefix(limit).map(\.id)
    }

    func value(id: Int64) throws -> Double? {
        let contents = store.snapshot
        return contents.byId[id].map { contents.samples[$0].value }
    }

    func count(seq: Int64) throws -> Int { samples.filter { $0.seq == seq }.count }
    func count(seqIn range: ClosedRange<Int64>) throws -> Int { samples.filter { range.contains($0.seq) }.count }

    func listTotals(sensor: String) throws -> ReadTotals {
        let contents = store.snapshot
        var totals = ReadTotals()
        for index in contents.lists[sensor] ?? [] {
            let sample = contents.samples[index]
            totals.add(value: sample.value, seq: sample.seq, timestamp: sample.timestamp)
        }
        return totals
    }

    func close() {}
}
