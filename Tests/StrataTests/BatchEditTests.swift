// The batched object-layer edits of the sensors pattern: deleting a sequence of objects with one
// shared backlink search (BatchDelete.swift), `removeFirst(n)` taking the removed keys from the
// removal itself, `append(objectsIn:)` looking the link target table up once, and list reads
// remembering the link target class. Each test compares with the one-element-at-a-time path
// or with the backlink tree itself.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct BatchEditTests {
    private func reading(_ seq: Int) -> Reading {
        let r = Reading()
        r.seq = Int64(seq)
        r.value = Double(seq) / 2
        return r
    }

    /// Every backlink of every object of `T`, as (target seq or key, source table, column, source key, count).
    private func backlinkDump(_ realm: Realm) throws -> [String] {
        var out: [String] = []
        for r in realm.objects(Reading.self) {
            let b = try #require(r._binding)
            for bl in try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key) {
                out.append("reading \(r.seq) <- \(bl.table).\(bl.column) #\(bl.key) x\(bl.count)")
            }
        }
        return out.sorted()
    }

    /// Two sensors sharing some readings (one twice in a list), 30 readings in all.
    private func fill(_ realm: Realm) throws {
        try realm.write {
            let a = Sensor()
            a.symbol = "a"
            let b = Sensor()
            b.symbol = "b"
            realm.add(a)
            realm.add(b)
            a.readings.append(objectsIn: (0..<30).map(reading))
            let all = Array(a.readings)
            b.readings.append(objectsIn: [all[5], all[10], all[15], all[25], all[10]])
            a.readings.append(all[7])
            // Readings 20..<30 leave a's list: only 25 stays linked (from b).
            a.readings.removeFirst(0)
            for _ in 0..<10 { a.readings.remove(at: 20) }
        }
    }

    @Test func deletingASequenceMatchesDeletingOneByOne() throws {
        let batched = try Realm(configuration: tempConfig("batched"))
        let single = try Realm(configuration: tempConfig("single"))
        try fill(batched)
        try fill(single)
        // Linked and unlinked readings, out of order, with gaps between kept (linked) ones.
        let doomed: Set<Int64> = [11, 0, 1, 2, 3, 5, 7, 20, 21, 25, 29, 4, 6, 8, 9]
        try batched.write {
            let victims = batched.objects(Reading.self).filter { doomed.contains($0.seq) }.shuffled()
            batched.delete(victims)
        }
        try single.write {
            for r in Array(single.objects(Reading.self)) where doomed.contains(r.seq) { single.delete(r) }
        }
        for realm in [batched, single] {
            #expect(realm.objects(Reading.self).count == 30 - doomed.count)
            #expect(realm.objects(Reading.self).allSatisfy { !doomed.contains($0.seq) })
        }
        let listsA = try #require(batched.object(ofType: Sensor.self, forPrimaryKey: "a")).readings.map(\.seq)
        let listsB = try #require(batched.object(ofType: Sensor.self, forPrimaryKey: "b")).readings.map(\.seq)
        let expectedA: [Int64] = [10, 12, 13, 14, 15, 16, 17, 18, 19]
        let expectedB: [Int64] = [10, 15, 10]
        #expect(listsA == expectedA)
        #expect(listsB == expectedB)
        let singleA = try #require(single.object(ofType: Sensor.self, forPrimaryKey: "a"))
        let singleB = try #require(single.object(ofType: Sensor.self, forPrimaryKey: "b"))
        #expect(listsA == singleA.readings.map(\.seq))
        #expect(listsB == singleB.readings.map(\.seq))
        let dump = try backlinkDump(batched)
        #expect(dump == (try backlinkDump(single)))
        #expect(dump.contains { $0.hasPrefix("reading 10 <- ") && $0.hasSuffix("x2") })
    }

    /// `unlinkedKeys` against the backlink tree read key by key, for layouts that exercise a
    /// single scan, seeks past kept objects, keys beyond the last entry and missing keys.
    @Test func unlinkedKeysMatchTheBacklinkTree() throws {
        let realm = try Realm(configuration: tempConfig("unlinked"))
        var generator = SystemRandomNumberGenerator()
        try realm.write {
            let s = Sensor()
            s.symbol = "s"
            let t = Sensor()
            t.symbol = "t"
            realm.add(s)
            realm.add(t)
            s.readings.append(objectsIn: (0..<200).map(reading))
            let all = Array(s.readings)
            // t links every 7th reading; s keeps only every 3rd (and 150..<200, a linked tail).
            t.readings.append(objectsIn: stride(from: 0, to: 200, by: 7).map { all[$0] })
            var i = 149
            while i >= 0 {
                if i % 3 != 0 { s.readings.remove(at: i) }
                i -= 1
            }
        }
        let b = try #require(realm.objects(Reading.self).first?._binding)
        let keys = realm.objects(Reading.self).compactMap { $0._binding?.key }
        let core = realm.core
        for round in 0..<20 {
            var probe = keys.filter { _ in Bool.random(using: &generator) }
            probe += [UInt64.max - 1, 1_000_000, (keys.max() ?? 0) + 1]  // keys of no object
            if round == 0 { probe = keys }
            if round == 1 { probe.sort() }  // the ascending input skips the sort
            var free = try core.deletion.unlinkedKeys(target: b.table, keys: probe)
            #expect(free.sorted == free.sorted.sorted() && Set(free.sorted).count == free.sorted.count)
            for k in probe {
                let linked = try !core.backlinkStore.backlinks(target: b.table, targetKey: k).isEmpty
                #expect(free.contains(k) == !linked, "key \(k) linked \(linked)")
            }
        }
        // Another table's keys: sensors have no backlinks, whatever the readings' entries.
        let sensorTable = try #require(realm.objects(Sensor.self).first?._binding?.table)
        #expect(try core.deletion.unlinkedKeys(target: sensorTable, keys: [99, 0, 2, 1, 2]).sorted == [0, 1, 2, 99])
    }

    @Test func deletingAnEmptyBacklinkTreeAndTheTypedErrors() throws {
        let realm = try Realm(configuration: tempConfig("errors"))
        let other = try Realm(configuration: tempConfig("other"))
        try realm.write { for i in 0..<4 { realm.add(reading(i)) } }
        try other.write { other.add(reading(99)) }
        let rs = Array(realm.objects(Reading.self))
        // Outside a write: the empty sequence is fine (nothing to delete), two objects are not.
        realm.delete([Reading]())
        #expect(throws: Realm.Error.self) { try realm.deleteThrowing(rs) }
        do {
            try realm.deleteThrowing(Array(rs[0..<2]))
            Issue.record("deleted outside a write")
        } catch let e as Realm.Error {
            #expect(e.code == .notInWriteTransaction)
        }
        // The same object twice: the write fails with the second deletion and rolls back.
        #expect { try realm.write { realm.delete([rs[0], rs[1], rs[0]]) } } throws: {
            ($0 as? Realm.Error)?.code == .objectInvalidated
        }
        // The accessors deleted before the failure stay invalidated after the rollback, as
        // RealmSwift leaves them; the objects are back and read again valid.
        #expect(rs[0].isInvalidated && rs[1].isInvalidated && !rs[2].isInvalidated)
        #expect(realm.objects(Reading.self).count == 4)
        // An unmanaged object and another realm's object.
        #expect { try realm.write { realm.delete([rs[2], reading(5)]) } } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        let foreign = try #require(other.objects(Reading.self).first)
        #expect { try realm.write { realm.delete([rs[3], foreign]) } } throws: {
            ($0 as? Realm.Error)?.code == .wrongRealm
        }
        #expect(realm.objects(Reading.self).count == 4)
        realm.beginWrite()
        realm.delete(Array(realm.objects(Reading.self)))
        try realm.commitWrite()
        #expect(realm.objects(Reading.self).isEmpty)
        #expect(other.objects(Reading.self).count == 1)
    }

    /// Objects whose rows hold things to release (primary key, index, a link) in a batch: the
    /// unlinked ones skip only the backlink search; primary keys and the index go with them.
    @Test func deletingASequenceOfObjectsWithKeysIndexesAndLinks() throws {
        let realm = try Realm(configuration: tempConfig("dogs"))
        let p = Person()
        p.name = "owner"
        try realm.write {
            realm.add(p)
            for i in 0..<10 {
                let d = Dog()
                d.id = "d\(i)"
                d.name = "rex\(i % 3)"
                d.age = i
                if i % 2 == 0 { d.owner = p }
                realm.add(d)
                if i % 3 == 0 { p.dogs.append(d) }  // dogs 0, 3, 6, 9 are linked
            }
        }
        try realm.write {
            let doomed = realm.objects(Dog.self).filter { $0.age >= 2 && $0.age <= 7 }
            realm.delete(doomed)
        }
        #expect(realm.objects(Dog.self).map(\.age).sorted() == [0, 1, 8, 9])
        for i in 2...7 { #expect(realm.object(ofType: Dog.self, forPrimaryKey: "d\(i)") == nil) }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: "d8")?.age == 8)
        #expect(p.dogs.map(\.age) == [0, 9])
        #expect(realm.objects(Dog.self).filter("name == %@", "rex2").map(\.age).sorted() == [8])
        #expect(p.pets.map(\.age).sorted() == [0, 8])
    }

    /// Objects of a write that was cancelled name a table the realm no longer has: a batch
    /// delete reports them invalidated (typed), as a single delete does.
    @Test func deletingObjectsOfACancelledWriteIsTyped() throws {
        let realm = try Realm(configuration: tempConfig("cancelled"))
        realm.beginWrite()
        let rs = (0..<3).map(reading)
        for r in rs { realm.add(r) }
        realm.cancelWrite()
        #expect { try realm.write { realm.delete(rs) } } throws: {
            ($0 as? Realm.Error)?.code == .objectInvalidated
        }
        #expect(realm.objects(Reading.self).isEmpty)
    }

    /// `removeFirst(n)` drops one backlink per removed element (a reading listed twice keeps one),
    /// and deletes removed embedded objects.
    @Test func removeFirstReleasesEachRemovedLink() throws {
        let realm = try Realm(configuration: tempConfig("removefirst"))
        let s = Sensor()
        s.symbol = "s"
        try realm.write {
            realm.add(s)
            s.readings.append(objectsIn: (0..<6).map(reading))
            s.readings.append(s.readings[1])
        }
        let r0 = s.readings[0], r1 = s.readings[1], r2 = s.readings[2]
        try realm.write { s.readings.removeFirst(2) }
        #expect(s.readings.map(\.seq) == [2, 3, 4, 5, 1])
        #expect(!realm.core.hasBacklinks(r0))
        #expect(realm.core.hasBacklinks(r1))  // still listed once, at the end
        #expect(realm.core.hasBacklinks(r2))
        try realm.write { s.readings.removeFirst(5) }
        #expect(s.readings.isEmpty)
        #expect(!realm.core.hasBacklinks(r1) && !realm.core.hasBacklinks(r2))
        #expect(realm.objects(Reading.self).count == 6)

        let c = Contact()
        c.id = 1
        try realm.write {
            realm.add(c)
            for i in 0..<5 {
                let a = Address()
                a.street = "street \(i)"
                c.previous.append(a)
            }
        }
        #expect(realm.objects(Address.self).count == 5)
        try realm.write { c.previous.removeFirst(3) }
        #expect(c.previous.map(\.street) == ["street 3", "street 4"])
        #expect(realm.objects(Address.self).count == 2)

        let v = AllTypes()
        try realm.write {
            realm.add(v)
            v.ints.append(objectsIn: [5, 6, 7, 8])
            v.ints.removeFirst(3)
        }
        #expect(Array(v.ints) == [8])
    }

    /// `append(objectsIn:)` into a realm without a table for the elements yet (the first
    /// element creates it) records the same backlinks as appending one at a time.
    @Test func appendingASequenceRecordsEveryBacklink() throws {
        var dumps: [[String]] = []
        for batched in [true, false] {
            let realm = try Realm(configuration: tempConfig(batched ? "batched" : "single"))
            try realm.write {
                let s = Sensor()
                s.symbol = "s"
                realm.add(s)
                let managed = reading(100)
                realm.add(managed)
                let items = [reading(0), managed, reading(1), managed, reading(2)]
                if batched {
                    s.readings.append(objectsIn: items)
                } else {
                    for r in items { s.readings.append(r) }
                }
            }
            let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "s"))
            #expect(s.readings.map(\.seq) == [0, 100, 1, 100, 2])
            #expect(realm.objects(Reading.self).count == 4)
            dumps.append(try backlinkDump(realm))
        }
        #expect(dumps[0] == dumps[1])
        #expect(dumps[0].count == 4)
        #expect(dumps[0].contains { $0.hasPrefix("reading 100 <- ") && $0.hasSuffix("x2") })
    }

    /// List reads remember the element class and table for one generation: reads stay right
    /// across commits, a cancelled write that created the table, and on a frozen list.
    @Test func listReadsAcrossVersionsAndFrozen() throws {
        let realm = try Realm(configuration: tempConfig("reads"))
        let s = Sensor()
        s.symbol = "s"
        try realm.write { realm.add(s) }
        realm.beginWrite()
        s.readings.append(objectsIn: (0..<3).map(reading))
        #expect(s.readings[2].seq == 2)
        realm.cancelWrite()
        #expect(s.readings.isEmpty)
        try realm.write { s.readings.append(objectsIn: (10..<13).map(reading)) }
        #expect((0..<3).map { s.readings[$0].seq } == [10, 11, 12])
        let frozen = s.readings.freeze()
        try realm.write {
            s.readings.removeFirst(1)
            s.readings.append(reading(13))
        }
        #expect((0..<3).map { s.readings[$0].seq } == [11, 12, 13])
        #expect((0..<3).map { frozen[$0].seq } == [10, 11, 12])
        #expect(frozen.last?.seq == 12)
    }
}
