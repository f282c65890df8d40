// The batched paths of the sensors pattern against the per-element paths on a twin realm:
// `append(objectsIn:)` of new plain objects (rows, backlinks and list entries in sorted
// batches), `removeFirst(n)` of links (whole list leaves dropped, backlinks in one pass) and
// `delete` of an ascending run of unlinked plain objects (one sorted removal of rows).
// Compared: list contents, rows, every backlink with its count, page accounting, and the
// typed error of deleting an object twice.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct BulkListTests {
    private static func reading(_ seq: Int) -> Reading {
        let r = Reading()
        r.seq = Int64(seq)
        r.value = Double(seq) * 1.5
        r.timestamp = Date(timeIntervalSince1970: Double(seq))
        return r
    }

    /// Every reading with its backlinks (source table, column, key, count), by seq.
    private static func dump(_ realm: Realm) throws -> [String] {
        var out: [String] = []
        for r in realm.objects(Reading.self) {
            let b = try #require(r._binding)
            let links = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key)
                .map { "\($0.table).\($0.column)#\($0.key)x\($0.count)" }
            out.append("\(r.seq) \(r.value) \(r.timestamp.timeIntervalSince1970) key \(b.key) <- \(links)")
        }
        return out.sorted()
    }

    private static func lists(_ realm: Realm) -> [String: [Int64]] {
        var out: [String: [Int64]] = [:]
        for s in realm.objects(Sensor.self) { out[s.symbol] = s.readings.map(\.seq) }
        return out
    }

    /// Rounds of the sensors pattern on two sensors (window `keep`); `batched` uses
    /// append(objectsIn:)/removeFirst/delete(sequence), the twin appends, removes and deletes
    /// one at a time. Some rounds also link a kept reading from the other sensor (twice), so
    /// that removals meet backlink counts above one.
    private static func run(_ realm: Realm, batched: Bool, rounds: Int, batch: Int, keep: Int, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)  // QueryFuzzTests.swift: both realms see the same rounds
        try realm.write {
            for symbol in ["a", "b"] {
                let s = Sensor()
                s.symbol = symbol
                realm.add(s)
            }
        }
        var seq = 0
        for round in 0..<rounds {
            try realm.write {
                let symbol = Bool.random(using: &rng) ? "a" : "b"
                let other = symbol == "a" ? "b" : "a"
                let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: symbol))
                let n = round % 5 == 0 ? 1 : Int.random(in: 1...batch, using: &rng)
                let fresh = (0..<n).map { _ -> Reading in seq += 1; return reading(seq) }
                if batched {
                    sensor.readings.append(objectsIn: fresh)
                } else {
                    for r in fresh { sensor.readings.append(r) }
                }
                if round % 7 == 3, let shared = sensor.readings.last {
                    let otherSensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: other))
                    otherSensor.readings.append(shared)
                    sensor.readings.append(shared)
                }
                let excess = sensor.readings.count - keep
                guard excess > 0 else { return }
                let oldest = Array(sensor.readings.prefix(excess))
                if batched {
                    sensor.readings.removeFirst(excess)
                } else {
                    for _ in 0..<excess { sensor.readings.remove(at: 0) }
                }
                // Only readings no list holds any more go (a shared one may still be linked).
                // A reading listed twice comes out as two objects of one key: delete it once.
                var seen = Set<UInt64>()
                var doomed: [Reading] = []
                for r in oldest {
                    let b = try #require(r._binding)
                    if try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).isEmpty, seen.insert(b.key).inserted {
                        doomed.append(r)
                    }
                }
                if batched {
                    realm.delete(doomed)
                } else {
                    for r in doomed { realm.delete(r) }
                }
            }
        }
    }

    @Test func slidingWindowEqualsThePerElementPath() throws {
        for (seed, batch, keep) in [(UInt64(1), 40, 100), (2, 300, 700), (3, 1000, 1500)] {
            let batchedRealm = try Realm(configuration: tempConfig("batched"))
            let singleRealm = try Realm(configuration: tempConfig("single"))
            try Self.run(batchedRealm, batched: true, rounds: 25, batch: batch, keep: keep, seed: seed)
            try Self.run(singleRealm, batched: false, rounds: 25, batch: batch, keep: keep, seed: seed)
            let lists = Self.lists(batchedRealm)
            #expect(lists == Self.lists(singleRealm), "seed \(seed)")
            #expect(lists.values.allSatisfy { $0.count <= keep + 2 })
            #expect(try Self.dump(batchedRealm) == Self.dump(singleRealm), "seed \(seed)")
            #expect(batchedRealm.objects(Reading.self).count == singleRealm.objects(Reading.self).count)
            // Every reading left is in a list (the window deletes the ones it drops).
            let listed = Set(lists.values.flatMap { $0 })
            #expect(Set(batchedRealm.objects(Reading.self).map(\.seq)) == listed, "seed \(seed)")
            #expect(try batchedRealm.core.file.verify().balances)
        }
    }

    @Test func appendedObjectsAreManagedWithAscendingKeysAndBacklinks() throws {
        let realm = try Realm(configuration: tempConfig())
        let readings = (0..<2500).map(Self.reading)
        try realm.write {
            let s = Sensor()
            s.symbol = "s"
            realm.add(s)
            s.readings.append(objectsIn: readings)
        }
        let keys = try readings.map { try #require($0._binding?.key) }
        #expect(keys == keys.sorted() && Set(keys).count == keys.count)
        let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "s"))
        #expect(sensor.readings.map(\.seq) == (0..<2500).map(Int64.init))
        #expect(readings[1234].value == 1234 * 1.5)
        for r in [readings[0], readings[999], readings[2499]] {
            let b = try #require(r._binding)
            let links = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key)
            #expect(links.count == 1 && links[0].count == 1)
        }
        // The same unmanaged object twice in one batch takes the per-element path: one row,
        // listed twice, backlink count 2.
        let twice = Self.reading(9999)
        try realm.write { sensor.readings.append(objectsIn: [twice, Self.reading(10_000), twice]) }
        #expect(realm.objects(Reading.self).count == 2502)
        let b = try #require(twice._binding)
        #expect(try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).map(\.count) == [2])
        #expect(Array(sensor.readings.suffix(3)).map(\.seq) == [9999, 10_000, 9999])
        #expect(try realm.core.file.verify().balances)
    }

    /// Index reads go through a leaf cursor: edits in place (pages this write owns, the root
    /// unchanged) between reads must not leave it pointing at stale elements.
    @Test func readsAfterInPlaceEditsOfTheSameWriteSeeTheEdits() throws {
        let realm = try Realm(configuration: tempConfig())
        try realm.write {
            let s = Sensor()
            s.symbol = "s"
            realm.add(s)
            s.readings.append(objectsIn: (0..<600).map(Self.reading))
            #expect(s.readings.map(\.seq) == (0..<600).map(Int64.init))
            // The cursor is on the last leaf; removing from the first one shifts the last
            // leaf's positions without changing its element count or the root.
            #expect(s.readings[550].seq == 550)
            s.readings.remove(at: 0)
            #expect(s.readings[550].seq == 551)
            #expect(s.readings[0].seq == 1 && s.readings[300].seq == 301)
            s.readings.insert(Self.reading(-1), at: 1)
            #expect(Array(s.readings.prefix(3)).map(\.seq) == [1, -1, 2])
            s.readings.replace(index: 2, object: Self.reading(-2))
            #expect(s.readings[2].seq == -2)
            s.readings.removeFirst(100)
            #expect(s.readings[0].seq == 100 && s.readings.count == 500)
            s.readings.swapAt(0, 1)
            #expect(s.readings[0].seq == 101 && s.readings[1].seq == 100)
            s.readings.move(from: 0, to: 499)
            #expect(s.readings[499].seq == 101 && s.readings[0].seq == 100 && s.readings[1].seq == 102)
        }
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "s"))
        #expect(s.readings.map(\.seq) == [100] + (102..<600).map(Int64.init) + [101])
        #expect(try realm.core.file.verify().balances)
    }

    @Test func deletingAnAscendingRunTwiceThrowsAfterDeletingThoseBefore() throws {
        let realm = try Realm(configuration: tempConfig())
        let readings = (0..<50).map(Self.reading)
        try realm.write { for r in readings { realm.add(r) } }
        try realm.write { realm.delete([readings[10]]) }
        // 0...9 go, 10 is already deleted: the error names it and 11... stay.
        do {
            try realm.write { realm.delete(Array(readings[0..<20])) }
            Issue.record("deleting an already deleted object must throw")
        } catch let e as Realm.Error {
            #expect(e.code == .objectInvalidated, "\(e)")
        }
        // The write was rolled back by the throw: everything but 10 is still there.
        #expect(realm.objects(Reading.self).count == 49)
        // Caught inside the write: the failure still fails the write, so nothing is deleted.
        #expect(throws: Realm.Error.self) {
            try realm.write {
                do {
                    try realm.deleteThrowing(Array(readings[0..<20]))
                    Issue.record("no error")
                } catch let e as Realm.Error {
                    #expect(e.code == .objectInvalidated)
                }
            }
        }
        #expect(realm.objects(Reading.self).count == 49)
        // The accessors of 0...9 were deleted before the failure: they stay invalidated after the
        // rollback (RealmSwift's rule); the objects are there, read again.
        #expect(readings[0..<10].allSatisfy(\.isInvalidated) && !readings[11].isInvalidated)
        try realm.write { realm.delete(Array(realm.objects(Reading.self).filter("seq < 10"))) }
        try realm.write { realm.delete(Array(readings[11..<50])) }
        #expect(realm.objects(Reading.self).isEmpty)
        #expect(try realm.core.file.verify().balances)
    }
}
