// The fast paths of `add` and of list appends (ObjectAdd.swift, ListStore.swift):
// scalar properties copied by raw memory access (`RawScalarKind`), rows built in a reused
// buffer, link elements encoded on the stack. Each test compares with the generic path
// (a managed property set, `storeUnmanaged`) or with values read back after reopening.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

final class RawScalars: Object {
    @Persisted var b = false
    @Persisted var i = 0
    @Persisted var i8: Int8 = 0
    @Persisted var i16: Int16 = 0
    @Persisted var i32: Int32 = 0
    @Persisted var i64: Int64 = 0
    @Persisted var f: Float = 0
    @Persisted var d: Double = 0
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var s = ""
    @Persisted var optI: Int?
    @Persisted var optD: Double?
}

/// Every column a non-optional raw scalar: `add` builds its row on the stack (`ClassInfo.plainRow`).
final class PlainScalars: Object {
    @Persisted var b = false
    @Persisted var i = 0
    @Persisted var i8: Int8 = 0
    @Persisted var i16: Int16 = 0
    @Persisted var i32: Int32 = 0
    @Persisted var i64: Int64 = 0
    @Persisted var f: Float = 0
    @Persisted var d: Double = 0
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
}

/// A plain class but for an index: it takes the general path (index entries are written).
final class IndexedScalars: Object {
    @Persisted(indexed: true) var n = 0
    @Persisted var d: Double = 0
}

@Suite struct AddPathTests {
    private func fill(_ o: RawScalars, _ n: Int) {
        o.b = n % 2 == 1
        o.i = Int.min + n
        o.i8 = Int8.min + Int8(n % 100)
        o.i16 = Int16.min + Int16(n)
        o.i32 = Int32.min + Int32(n)
        o.i64 = Int64.max - Int64(n)
        o.f = -1.5 * Float(n)
        o.d = -Double.pi * Double(n)
        o.date = Date(timeIntervalSinceReferenceDate: 1_000_000.125 * Double(n) - 7)
        o.s = String(repeating: "x", count: n % 5)
        o.optI = n % 3 == 0 ? nil : -n
        o.optD = n % 3 == 1 ? nil : Double(n) / 3
    }

    private func same(_ a: RawScalars, _ b: RawScalars) -> Bool {
        a.b == b.b && a.i == b.i && a.i8 == b.i8 && a.i16 == b.i16 && a.i32 == b.i32 && a.i64 == b.i64
            && a.f == b.f && a.d == b.d && a.date == b.date && a.s == b.s && a.optI == b.optI && a.optD == b.optD
    }

    /// The raw kinds chosen per column: the scalars take the raw copy, the rest the generic path.
    @Test func rawKindsPerColumn() throws {
        let info = try ClassInfo.of(RawScalars.self)
        let kinds = info.rawStores.map(\.kind)
        #expect(kinds == [.bool, .copy8, .int8, .int16, .int32, .copy8, .copy4, .copy8, .copy8, .none, .none, .none])
        #expect(info.objectHoldingFields.isEmpty)
        let sensor = try ClassInfo.of(Sensor.self)
        // Its list of readings is adopted by `add`, not dropped.
        #expect(sensor.collectionFields == [1])
        #expect(sensor.objectHoldingFields.isEmpty)
    }

    /// Objects added through the raw copy read back exactly, before and after reopening, and
    /// their rows are byte-identical to rows written by managed sets (the generic path).
    @Test func rawCopyMatchesGenericPath() throws {
        let config = tempConfig("rawcopy")
        var expected: [RawScalars] = []
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for n in 0..<50 {
                    let o = RawScalars()
                    fill(o, n)
                    realm.add(o)
                    let e = RawScalars()
                    fill(e, n)
                    expected.append(e)
                }
                // The same values through managed property sets (the generic `_strataSet` path).
                for n in 0..<50 {
                    let o = RawScalars()
                    realm.add(o)
                    fill(o, n)
                }
            }
            let all = Array(realm.objects(RawScalars.self))
            #expect(all.count == 100)
            for n in 0..<50 {
                #expect(same(all[n], expected[n]))
                #expect(same(all[50 + n], expected[n]))
            }
            let core = realm.core
            let t = try #require(try core.tableIndex(forType: RawScalars.self))
            let p = try core.pages()
            for n in 0..<50 {
                let raw = try core.snap.metas[t].objects.withValue(forKey: UInt64(n + 1), in: p) { Array($0) }
                let generic = try core.snap.metas[t].objects.withValue(forKey: UInt64(n + 51), in: p) { Array($0) }
                #expect(raw != nil)
                #expect(raw == generic, "row \(n)")
            }
        }
        let reopened = try Realm(configuration: config)
        let all = Array(reopened.objects(RawScalars.self))
        #expect(all.count == 100)
        for n in 0..<50 { #expect(same(all[n], expected[n])) }
    }

    /// Rows of a plain class built on the stack are byte-identical to rows written through
    /// managed sets, and read back after reopening.
    @Test func plainRowsMatchGenericPath() throws {
        func fill(_ o: PlainScalars, _ n: Int) {
            o.b = n % 2 == 0
            o.i = -n * 1_000_003
            o.i8 = Int8(truncatingIfNeeded: -n)
            o.i16 = Int16.min + Int16(n)
            o.i32 = Int32.max - Int32(n)
            o.i64 = Int64.min + Int64(n)
            o.f = Float(n) / 7
            o.d = Double(n) * -0.25
            o.date = Date(timeIntervalSinceReferenceDate: Double(n) * 3.5)
        }
        #expect(try ClassInfo.of(PlainScalars.self).plainRow?.count == 9)
        #expect(try ClassInfo.of(RawScalars.self).plainRow == nil)
        #expect(try ClassInfo.of(Contact.self).plainRow == nil)
        let config = tempConfig("plainrows")
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for n in 0..<40 {
                    let o = PlainScalars()
                    fill(o, n)
                    realm.add(o)
                }
                for n in 0..<40 {
                    let o = PlainScalars()
                    realm.add(o)
                    fill(o, n)
                }
            }
            let core = realm.core
            let t = try #require(try core.tableIndex(forType: PlainScalars.self))
            let p = try core.pages()
            for n in 0..<40 {
                let plain = try core.snap.metas[t].objects.withValue(forKey: UInt64(n + 1), in: p) { Array($0) }
                let generic = try core.snap.metas[t].objects.withValue(forKey: UInt64(n + 41), in: p) { Array($0) }
                #expect(plain != nil)
                #expect(plain == generic, "row \(n)")
            }
        }
        let all = Array(try Realm(configuration: config).objects(PlainScalars.self))
        #expect(all.count == 80)
        for n in 0..<40 {
            let e = PlainScalars()
            fill(e, n)
            let a = all[n]
            #expect(a.b == e.b && a.i == e.i && a.i8 == e.i8 && a.i16 == e.i16 && a.i32 == e.i32)
            #expect(a.i64 == e.i64 && a.f == e.f && a.d == e.d && a.date == e.date)
        }
    }

    /// A plain class with an index still gets its index entries (the general path).
    @Test func indexedPlainClassKeepsIndex() throws {
        let realm = try Realm(configuration: tempConfig("indexedplain"))
        try realm.write {
            for n in 0..<20 { realm.add(IndexedScalars(value: ["n": n % 5, "d": Double(n)])) }
        }
        #expect(realm.objects(IndexedScalars.self).filter("n == 3").count == 4)
    }

    /// An upsert over an existing object writes every non-key column through the raw copy too.
    @Test func upsertOverwritesScalars() throws {
        let realm = try Realm(configuration: tempConfig("upsert"))
        try realm.write {
            realm.add(Contact(value: ["id": 7, "name": "a"]))
            realm.add(Contact(value: ["id": 7, "name": "b"]), update: .modified)
        }
        let c = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 7))
        #expect(c.name == "b")
        #expect(realm.objects(Contact.self).count == 1)
    }

    /// Appends of new objects (the stack-encoded link path), removals and deletes keep the
    /// list, the backlinks and the object count consistent, the sensors pattern.
    @Test func linkAppendsAndRemovals() throws {
        let realm = try Realm(configuration: tempConfig("links"))
        try realm.write {
            let s = Sensor()
            s.symbol = "t"
            realm.add(s)
        }
        for i in 0..<30 {
            try realm.write {
                let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "t"))
                let r = Reading()
                r.seq = Int64(i)
                s.readings.append(r)
                if s.readings.count > 10 {
                    let oldest = s.readings[0]
                    s.readings.removeFirst()
                    realm.delete(oldest)
                }
            }
        }
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "t"))
        #expect(s.readings.map(\.seq) == Array(20..<30).map(Int64.init))
        #expect(realm.objects(Reading.self).count == 10)
        // Every remaining reading is linked from the sensor (its backlink entry exists).
        let last = try #require(s.readings.last)
        #expect(realm.core.hasBacklinks(last))
        // A managed object appended twice is two entries with one backlink count of 2.
        try realm.write {
            s.readings.append(last)
            s.readings.removeLast()
        }
        #expect(realm.core.hasBacklinks(last))
        try realm.write { realm.delete(last) }
        #expect(s.readings.count == 9)
        #expect(!s.readings.contains { $0.seq == 29 })
    }

    /// `removeFirst(n)` in one pass: the first n go, their backlinks with them, the rest stay in
    /// order; lists of values likewise.
    @Test func removeFirstMany() throws {
        let realm = try Realm(configuration: tempConfig("removefirst"))
        let s = Sensor()
        s.symbol = "r"
        for i in 0..<10 {
            let r = Reading()
            r.seq = Int64(i)
            s.readings.append(r)
        }
        let values = AllTypes()
        values.ints.append(objectsIn: [5, 6, 7, 8])
        try realm.write {
            realm.add(s)
            realm.add(values)
        }
        let removed = Array(s.readings.prefix(3))
        try realm.write {
            s.readings.removeFirst(3)
            values.ints.removeFirst(2)
            s.readings.removeFirst(0)
        }
        #expect(s.readings.map(\.seq) == Array(3..<10).map(Int64.init))
        #expect(Array(values.ints) == [7, 8])
        for r in removed { #expect(!realm.core.hasBacklinks(r)) }
        #expect(realm.core.hasBacklinks(s.readings[0]))
        try realm.write { realm.delete(removed) }
        #expect(realm.objects(Reading.self).count == 7)
        #expect(s.readings.count == 7)
    }

    /// Deleting an object with nothing in its row to release (no links, collections, primary key
    /// or index) skips reading the row: links to it are still removed, a second delete still
    /// reports the object as gone.
    @Test func deletePlainObject() throws {
        let realm = try Realm(configuration: tempConfig("plaindelete"))
        let s = Sensor()
        s.symbol = "p"
        for i in 0..<3 {
            let r = Reading()
            r.seq = Int64(i)
            s.readings.append(r)
        }
        try realm.write { realm.add(s) }
        let middle = s.readings[1]
        try realm.write { realm.delete(middle) }
        #expect(s.readings.map(\.seq) == [0, 2])
        #expect(middle.isInvalidated)
        #expect(realm.objects(Reading.self).count == 2)
        #expect(throws: Realm.Error.self) { try realm.write { realm.delete(middle) } }
        let info = try ClassInfo.of(Reading.self)
        #expect(!info.layout.hasLinksOrCollections)
        #expect(try ClassInfo.of(Sensor.self).layout.hasLinksOrCollections)
    }

    /// `append(objectsIn:)` on a managed list: new objects are added and linked, a managed one
    /// is linked again (its backlink counted twice), values append in order.
    @Test func appendManyToManagedList() throws {
        let realm = try Realm(configuration: tempConfig("appendmany"))
        let s = Sensor()
        s.symbol = "m"
        let values = AllTypes()
        try realm.write {
            realm.add(s)
            realm.add(values)
        }
        try realm.write {
            s.readings.append(objectsIn: (0..<5).map { i -> Reading in
                let r = Reading()
                r.seq = Int64(i)
                return r
            })
            s.readings.append(objectsIn: [s.readings[0]])
            values.ints.append(contentsOf: [3, 1, 2])
        }
        #expect(s.readings.map(\.seq) == [0, 1, 2, 3, 4, 0])
        #expect(realm.objects(Reading.self).count == 5)
        #expect(Array(values.ints) == [3, 1, 2])
        let first = s.readings[0]
        try realm.write { s.readings.remove(at: 0) }
        #expect(realm.core.hasBacklinks(first))
        try realm.write { s.readings.removeLast() }
        #expect(!realm.core.hasBacklinks(first))
    }

    /// Primary-key lookups encode the key in the core's scratch buffer: lookups of keys of
    /// different lengths in a row do not see each other's bytes.
    @Test func primaryKeyLookupsOfDifferentLengths() throws {
        let realm = try Realm(configuration: tempConfig("pk"))
        try realm.write {
            for sym in ["a", "abcdef", "ab"] {
                let s = Sensor()
                s.symbol = sym
                realm.add(s)
            }
        }
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "abcdef")?.symbol == "abcdef")
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "a")?.symbol == "a")
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "abc") == nil)
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "ab")?.symbol == "ab")
        let frozen = realm.freeze()
        #expect(frozen.object(ofType: Sensor.self, forPrimaryKey: "ab")?.symbol == "ab")
    }
}

extension RealmCore {
    /// Whether any backlink entry names `obj` as its target (test helper).
    func hasBacklinks(_ obj: Object) -> Bool {
        guard let b = obj._binding else { return false }
        return ((try? backlinkStore.backlinks(target: b.table, targetKey: b.key)) ?? []).isEmpty == false
    }
}
