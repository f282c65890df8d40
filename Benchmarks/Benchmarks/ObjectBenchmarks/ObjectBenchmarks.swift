// Micro-benchmarks of Strata's object layer through its public API (release only; see
// Benchmarks/Package.swift). Whole workloads — writer strategies, engines side by side, scale —
// belong to strata-bench; these time one operation each, so a profile or a before/after of one
// path has a number of its own.
//
//   Notify/*   a commit on this thread until the handler of an observer on another queue has
//              run (commit + delivery; the observer's queue is woken by the commit)
//   Reads/*    over 100,000 `Sample { id (primary key); value: Double; seq: Int (indexed);
//              timestamp: Date }`: aggregates and filtered counts (column scans), an indexed
//              equality lookup with a repeated query, a primary-key lookup, the top 100 by value
//              and the latest 100 by timestamp (sorted results read from the start)
//
// Files live under /tmp/strata-object-bench-<pid>; each benchmark builds its store in setup.
// STRATA_BENCH_QUICK=1: a few iterations each (CI checks that every benchmark runs; the figures
// mean nothing then).

import Benchmark
import Dispatch
import Foundation
import Strata
import Synchronization

final class Sample: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Double
    @Persisted(indexed: true) var seq: Int
    @Persisted var timestamp: Date
}

final class Counter: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

let sampleCount = 100_000
let quickMode = ProcessInfo.processInfo.environment["STRATA_BENCH_QUICK"] == "1"

func configuration(maxDuration: Duration, maxIterations: Int) -> Benchmark.Configuration {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]
    return quickMode
        ? .init(metrics: metrics, warmupIterations: 1, maxDuration: .milliseconds(50), maxIterations: 3)
        : .init(metrics: metrics, warmupIterations: 10, maxDuration: maxDuration, maxIterations: maxIterations)
}

func freshConfiguration(_ name: String) -> Realm.Configuration {
    let dir = URL(fileURLWithPath: "/tmp/strata-object-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var config = Realm.Configuration(fileURL: dir.appendingPathComponent("\(name).realm"),
                                     objectTypes: [Sample.self, Counter.self])
    _ = try? Realm.deleteFiles(for: config)
    config.durability = .unsafe
    return config
}

/// The store and observer a benchmark's setup builds and its body uses. Benchmarks run one at a
/// time, so the global is never used by two at once; the handler's side is behind a mutex.
final class Fixture: @unchecked Sendable {
    var realm: Realm?
    var config: Realm.Configuration?
    var token: NotificationToken?
    let observerQueue = DispatchQueue(label: "object-bench-observer")
    let delivered = DispatchSemaphore(value: 0)
    let lastSeen = Mutex<Int>(0)
    var commits = 0
}
let fixture = Fixture()

func openSamples(_ name: String) throws {
    let config = freshConfiguration(name)
    let realm = try Realm(configuration: config)
    try realm.write {
        for i in 0..<sampleCount {
            let sample = Sample()
            sample.id = i
            sample.value = Double(i % 1_000) / 10
            sample.seq = i
            sample.timestamp = Date(timeIntervalSince1970: 1_700_000_000 + Double(i))
            realm.add(sample)
        }
    }
    fixture.realm = realm
    fixture.config = config
}

/// A writer realm on this thread and an observer of `Counter` 0 on the observer queue, opened
/// there; setup returns once the observer is registered and has delivered its initial state.
func openObserved(_ name: String, observeObject: Bool) throws {
    let config = freshConfiguration(name)
    let realm = try Realm(configuration: config)
    try realm.write { realm.create(Counter.self, value: ["id": 0, "value": 0]) }
    fixture.realm = realm
    fixture.config = config
    fixture.commits = 0
    let opened = Mutex<String?>(nil)
    fixture.observerQueue.sync {
        do {
            let observed = try Realm(configuration: config, queue: fixture.observerQueue)
            if observeObject, let counter = observed.object(ofType: Counter.self, forPrimaryKey: 0) {
                fixture.token = counter.observe { (change: ObjectChange<Counter>) in
                    if case .change(let object, _) = change { fixture.lastSeen.withLock { $0 = object.value } }
                    fixture.delivered.signal()
                }
                fixture.delivered.signal()   // object observers deliver no initial state
            } else {
                fixture.token = observed.objects(Counter.self).observe { change in
                    if case .update(let results, _, _, _) = change, let first = results.first {
                        fixture.lastSeen.withLock { $0 = first.value }
                    }
                    fixture.delivered.signal()
                }
            }
        } catch { opened.withLock { $0 = "\(error)" } }
    }
    if let failure = opened.withLock({ $0 }) { throw BenchFailure(failure) }
    guard fixture.delivered.wait(timeout: .now() + 30) == .success else { throw BenchFailure("no initial delivery") }
}

func close() {
    fixture.observerQueue.sync { fixture.token?.invalidate(); fixture.token = nil }
    fixture.realm = nil
    if let config = fixture.config { _ = try? Realm.deleteFiles(for: config) }
    fixture.config = nil
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One commit that changes the observed counter, then waits until the observer has seen it.
func commitAndAwaitDelivery() throws {
    guard let realm = fixture.realm, let counter = realm.object(ofType: Counter.self, forPrimaryKey: 0) else { return }
    fixture.commits += 1
    let n = fixture.commits
    try realm.write { counter.value = n }
    while fixture.lastSeen.withLock({ $0 }) < n {
        guard fixture.delivered.wait(timeout: .now() + 30) == .success else {
            throw BenchFailure("commit \(n) was not delivered within 30 s")
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = configuration(maxDuration: .seconds(2), maxIterations: 5_000)

    Benchmark("Notify/Results.observe commit to handler") { benchmark in
        for _ in benchmark.scaledIterations { try commitAndAwaitDelivery() }
    } setup: { try openObserved("notify-results", observeObject: false) } teardown: { close() }

    Benchmark("Notify/Object.observe commit to handler") { benchmark in
        for _ in benchmark.scaledIterations { try commitAndAwaitDelivery() }
    } setup: { try openObserved("notify-object", observeObject: true) } teardown: { close() }

    Benchmark("Reads/sum(value) over 100k",
              configuration: configuration(maxDuration: .seconds(2), maxIterations: 500)) { benchmark in
        guard let realm = fixture.realm else { return }
        for _ in benchmark.scaledIterations {
            blackHole(realm.objects(Sample.self).sum(ofProperty: "value") as Double)
        }
    } setup: { try openSamples("sum") } teardown: { close() }

    Benchmark("Reads/filter(value > 90).count over 100k",
              configuration: configuration(maxDuration: .seconds(2), maxIterations: 500)) { benchmark in
        guard let realm = fixture.realm else { return }
        for _ in benchmark.scaledIterations {
            blackHole(realm.objects(Sample.self).filter("value > %@", 90.0).count)
        }
    } setup: { try openSamples("filter") } teardown: { close() }

    Benchmark("Reads/indexed seq == k, count") { benchmark in
        guard let realm = fixture.realm else { return }
        var k = 0
        for _ in benchmark.scaledIterations {
            k = (k &+ 7_919) % sampleCount
            blackHole(realm.objects(Sample.self).filter("seq == %@", k).count)
        }
    } setup: { try openSamples("indexed") } teardown: { close() }

    Benchmark("Reads/indexed seq range of 100, count") { benchmark in
        guard let realm = fixture.realm else { return }
        var k = 0
        for _ in benchmark.scaledIterations {
            k = (k &+ 7_919) % (sampleCount - 100)
            blackHole(realm.objects(Sample.self).filter("seq >= %@ AND seq < %@", k, k + 100).count)
        }
    } setup: { try openSamples("range") } teardown: { close() }

    Benchmark("Reads/sorted by value, top 100 of 100k",
              configuration: configuration(maxDuration: .seconds(2), maxIterations: 100)) { benchmark in
        guard let realm = fixture.realm else { return }
        for _ in benchmark.scaledIterations {
            blackHole(Array(realm.objects(Sample.self).sorted(byKeyPath: "value", ascending: false).prefix(100)).count)
        }
    } setup: { try openSamples("sorted") } teardown: { close() }

    Benchmark("Reads/sorted by timestamp, latest 100 of 100k",
              configuration: configuration(maxDuration: .seconds(2), maxIterations: 100)) { benchmark in
        guard let realm = fixture.realm else { return }
        for _ in benchmark.scaledIterations {
            blackHole(Array(realm.objects(Sample.self).sorted(byKeyPath: "timestamp", ascending: false).prefix(100)).count)
        }
    } setup: { try openSamples("latest") } teardown: { close() }

    Benchmark("Reads/primary-key lookup") { benchmark in
        guard let realm = fixture.realm else { return }
        var k = 0
        for _ in benchmark.scaledIterations {
            k = (k &+ 7_919) % sampleCount
            blackHole(realm.object(ofType: Sample.self, forPrimaryKey: k)?.value)
        }
    } setup: { try openSamples("pk") } teardown: { close() }
}
