// Micro-benchmarks of the harness patterns. Skipped unless STRATA_OBJECT_BENCH=1; run in release:
//   STRATA_OBJECT_BENCH=1 swift test -c release --filter ObjectBenchmarks
// Figures are printed, not asserted (targets are checked by strata-bench, never by unit tests);
// each benchmark still verifies the data it wrote.
import Foundation
import Synchronization
import Testing
import Strata
import StrataTestSupport
import StrataStorage

final class BenchItem: Object {
    @Persisted var n: Int64
    @Persisted var value: Double
}

private func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

private func benchConfig() -> Realm.Configuration {
    tempConfig("bench", durability: .unsafe)
}

/// `STRATA_BENCH_TXNS` overrides a benchmark's transaction count (e.g. small runs under callgrind).
private func txnCount(_ standard: Int) -> Int {
    ProcessInfo.processInfo.environment["STRATA_BENCH_TXNS"].flatMap(Int.init) ?? standard
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_OBJECT_BENCH"] == "1"),
       .serialized)
struct ObjectBenchmarks {
    static func reading(_ i: Int) -> Reading {
        let r = Reading()
        r.value = Double(i)
        r.seq = Int64(i)
        r.timestamp = Date()
        return r
    }

    @Test func sensorsOneReadingPerTransaction() throws {
        let rate = try sensorsSteadyState(benchConfig())
        print("BENCH sensors 1/txn (.unsafe, cap 10k): \(rate) txn/s")
    }

    /// The same with encryption, for the encrypted-vs-plain overhead (issue #2: ≤ 5%).
    @Test func sensorsOneReadingPerTransactionEncrypted() throws {
        var config = benchConfig()
        config.encryptionKey = Data((0..<64).map { UInt8($0) })
        let rate = try sensorsSteadyState(config)
        print("BENCH sensors 1/txn (.unsafe, encrypted, cap 10k): \(rate) txn/s")
    }

    /// Steady state of the sensors pattern: each transaction appends a reading and deletes the
    /// oldest once 10,000 are kept. Returns transactions per second.
    private func sensorsSteadyState(_ config: Realm.Configuration) throws -> Int {
        let realm = try Realm(configuration: config)
        let cap = 10_000
        try realm.write {
            let s = Sensor()
            s.symbol = "o3"
            realm.add(s)
            for i in 0..<cap { s.readings.append(Self.reading(i)) }
        }
        let n = txnCount(20_000)
        let t = try seconds {
            for i in cap..<(cap + n) {
                try realm.write {
                    guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: "o3") else { return }
                    s.readings.append(Self.reading(i))
                    if s.readings.count > cap {
                        let oldest = s.readings[0]
                        s.readings.removeFirst()
                        realm.delete(oldest)
                    }
                }
            }
        }
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
        #expect(s.readings.count == cap)
        #expect(realm.objects(Reading.self).count == cap)
        return Int(Double(n) / t)
    }

    @Test func sensorsOneReadingPerTransactionFullDurability() throws {
        let realm = try Realm(configuration: tempConfig("benchfull", durability: .full))
        try realm.write {
            let s = Sensor()
            s.symbol = "o3"
            realm.add(s)
        }
        let n = txnCount(2_000)
        let t = try seconds {
            for i in 0..<n {
                try realm.write {
                    guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: "o3") else { return }
                    s.readings.append(Self.reading(i))
                }
            }
        }
        print("BENCH sensors 1/txn (.full): \(Int(Double(n) / t)) txn/s")
    }

    /// Issue #3's "8 concurrent writers, full durability": `threads` threads, each with its own
    /// realm, commit one reading per transaction (to three sensors) under `.full`; the same
    /// number of transactions on one thread first. Prints both rates and the flushes made.
    @Test(arguments: [8])
    func concurrentThreadWritersFullDurability(threads: Int) throws {
        let config = tempConfig("benchthreads", durability: .full)
        let symbols = ["o3", "no2", "aqi"]
        let setup = try Realm(configuration: config)
        try setup.write { for s in symbols { setup.add(try Sensor.make(value: ["symbol": s])) } }
        let perThread = txnCount(500)
        @Sendable func writeOne(_ realm: Realm, _ i: Int) throws {
            try realm.write {
                guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: symbols[i % 3]) else { return }
                s.readings.append(Self.reading(i))
            }
        }
        let flushesBefore = try flushCount(of: setup)
        let single = try seconds { for i in 0..<(perThread * threads) { try writeOne(setup, i) } }
        let flushesSingle = try flushCount(of: setup) - flushesBefore
        let failures = Mutex(0)
        let concurrent = seconds {
            let group = DispatchGroup()
            for t in 0..<threads {
                group.enter()
                Thread {
                    defer { group.leave() }
                    do {
                        let realm = try Realm(configuration: config)
                        for i in 0..<perThread { try writeOne(realm, t * perThread + i) }
                    } catch { failures.withLock { $0 += 1 } }
                }.start()
            }
            group.wait()
        }
        let flushesConcurrent = try flushCount(of: setup) - flushesBefore - flushesSingle
        #expect(failures.withLock { $0 } == 0)
        setup.refresh()
        #expect(setup.objects(Reading.self).count == 2 * perThread * threads)
        let n = Double(perThread * threads)
        print("BENCH sensors 1/txn (.full) single writer: \(Int(n / single)) txn/s, \(flushesSingle) flushes; "
              + "\(threads) threads: \(Int(n / concurrent)) txn/s, \(flushesConcurrent) flushes "
              + "(\(String(format: "%.2f", n / Double(max(1, flushesConcurrent)))) txn/flush, \(String(format: "%.2f", single / concurrent))x)")
    }

    /// The fixed cost of a transaction (object layer + storage commit), nothing written.
    @Test func emptyWriteTransactions() throws {
        let realm = try Realm(configuration: benchConfig())
        try realm.write { realm.add(try Sensor.make(value: ["symbol": "x"])) }
        let n = 20_000
        let t = try seconds { for _ in 0..<n { try realm.write {} } }
        print("BENCH empty write transaction (.unsafe): \(Int(Double(n) / t)) txn/s")
    }

    /// The harness's `gcd` strategy: blocks on a concurrent queue, each opening its realm and writing.
    @Test func concurrentQueueWriters() throws {
        let config = benchConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(try Sensor.make(value: ["symbol": "o3"])) }
        }
        let n = 4_000
        let group = DispatchGroup()
        let q = DispatchQueue(label: "bench.gcd", attributes: .concurrent)
        let t = seconds {
            for i in 0..<n {
                q.async(group: group) {
                    guard let r = try? Realm(configuration: config) else { return }
                    try? r.write {
                        guard let s = r.object(ofType: Sensor.self, forPrimaryKey: "o3") else { return }
                        let reading = Reading()
                        reading.seq = Int64(i)
                        s.readings.append(reading)
                    }
                }
            }
            group.wait()
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Reading.self).count == n)
        print("BENCH gcd concurrent writers (.unsafe, 1 reading/txn): \(Int(Double(n) / t)) txn/s")
    }

    @Test func sensorsBatchesOfOneThousand() throws {
        let realm = try Realm(configuration: benchConfig())
        let cap = 10_000
        try realm.write {
            let s = Sensor()
            s.symbol = "aqi"
            realm.add(s)
        }
        let batches = 200
        let t = try seconds {
            var seq = 0
            for _ in 0..<batches {
                try realm.write {
                    guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: "aqi") else { return }
                    for _ in 0..<1_000 {
                        s.readings.append(Self.reading(seq))
                        seq += 1
                    }
                    let excess = s.readings.count - cap
                    if excess > 0 {
                        for _ in 0..<excess {
                            let oldest = s.readings[0]
                            s.readings.removeFirst()
                            realm.delete(oldest)
                        }
                    }
                }
            }
        }
        #expect(realm.objects(Reading.self).count == cap)
        print("BENCH sensors batches of 1000 (cap 10k): \(Int(Double(batches * 1_000) / t)) readings/s")
    }

    /// The harness's batched sensors writes (StrataEngine.append): `append(objectsIn:)` of 1,000
    /// readings, then `Array(prefix(excess))`, `removeFirst(excess)` and `delete` of those.
    @Test func sensorsBatchesHarnessPattern() throws {
        let realm = try Realm(configuration: benchConfig())
        let cap = 10_000
        try realm.write {
            let s = Sensor()
            s.symbol = "aqi"
            realm.add(s)
        }
        let batches = txnCount(300)
        var seq = 0
        let t = try seconds {
            for _ in 0..<batches {
                try realm.write {
                    guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: "aqi") else { return }
                    s.readings.append(objectsIn: (0..<1_000).map { i in Self.reading(seq + i) })
                    seq += 1_000
                    let excess = s.readings.count - cap
                    guard excess > 0 else { return }
                    let oldest = Array(s.readings.prefix(excess))
                    s.readings.removeFirst(excess)
                    realm.delete(oldest)
                }
            }
        }
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "aqi"))
        #expect(s.readings.count == Swift.min(cap, seq))
        #expect(realm.objects(Reading.self).count == Swift.min(cap, seq))
        #expect(s.readings.first?.seq == Int64(Swift.max(0, seq - cap)))
        print("BENCH sensors harness batches of 1000 (append(objectsIn:), removeFirst(n), delete([])): \(Int(Double(batches * 1_000) / t)) readings/s")
    }

    @Test func bulkInsert() throws {
        let realm = try Realm(configuration: benchConfig())
        let total = 1_000_000, per = 10_000
        let t = try seconds {
            var i = 0
            while i < total {
                try realm.write {
                    for _ in 0..<per {
                        let o = BenchItem()
                        o.n = Int64(i)
                        o.value = Double(i)
                        realm.add(o)
                        i += 1
                    }
                }
            }
        }
        #expect(realm.objects(BenchItem.self).count == total)
        print("BENCH bulk insert 1M in txns of 10k: \(Int(Double(total) / t)) objects/s")
        var sum = 0.0
        let items = realm.objects(BenchItem.self)
        let first = try #require(items.first)
        let reads = 1_000_000
        let tr = seconds { for _ in 0..<reads { sum += first.value } }
        #expect(sum == 0)
        print("BENCH managed property read: \(Int(tr / Double(reads) * 1e9)) ns/read")
    }

    @Test func primaryKeyLookup() throws {
        let realm = try Realm(configuration: benchConfig())
        try realm.write {
            for i in 0..<100_000 { realm.add(Contact(value: ["id": i])) }
        }
        var found = 0
        let n = 200_000
        let t = seconds {
            for i in 0..<n where realm.object(ofType: Contact.self, forPrimaryKey: (i &* 7919) % 100_000) != nil { found += 1 }
        }
        #expect(found == n)
        print("BENCH primary-key lookup in 100k: \(Int(t / Double(n) * 1e9)) ns/lookup")
    }
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_OBJECT_BENCH"] == "1"))
struct StorageBaselineBenchmarks {
    /// The storage's own cost of one keyed lookup, for comparison with a managed property read.
    @Test func rawKeyedLookup() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let f = try StorageFile.open(StorageOptions(path: dir.appendingPathComponent("raw").path, durability: .unsafe))
        defer { f.close() }
        let w = try f.beginWrite()
        var tree = KeyedTree()
        var row = [UInt8](repeating: 7, count: 25)
        for k in 0..<100_000 as Range<UInt64> {
            try row.withUnsafeMutableBytes { _ = try tree.put(k, UnsafeRawBufferPointer($0), in: w) }
        }
        try w.commit()
        let r = try f.beginRead()
        var sum = 0
        let n = 1_000_000
        let t = try seconds {
            for i in 0..<n {
                sum &+= try tree.withValue(forKey: UInt64(i % 100_000), in: r) { Int($0[0]) } ?? 0
            }
        }
        #expect(sum == 7 * n)
        print("BENCH raw KeyedTree.withValue (100k keys, 3 levels): \(Int(t / Double(n) * 1e9)) ns/lookup")
    }
}
