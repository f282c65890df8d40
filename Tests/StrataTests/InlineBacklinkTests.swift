// Inline backlinks (Core/InlineBacklinks.swift): the first link to an object kept in its row
// footer instead of the backlink tree. Random link operations must leave every object's
// backlinks (footer and tree together) equal to the ones its forward links imply (lists and
// to-one links counted from the objects' side); plus the sensors window (no backlink-tree page
// at all), a link to itself, an upsert that links back to the object being upserted, migrations
// that renumber a link column, and malformed footers.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

final class LinkNode: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var next: LinkNode?
    @Persisted var children: List<LinkNode>
    @Persisted(originProperty: "next") var previous: LinkingObjects<LinkNode>
}

final class ShelfV1: Object {
    override class func className() -> String { "Shelf" }
    @Persisted var items: List<ShelfItemV1>
}

final class ShelfItemV1: Object {
    override class func className() -> String { "ShelfItem" }
    @Persisted var n = 0
}

final class ShelfV2: Object {
    override class func className() -> String { "Shelf" }
    @Persisted var label = ""
    @Persisted var items: List<ShelfItemV2>
}

final class ShelfItemV2: Object {
    override class func className() -> String { "ShelfItem" }
    @Persisted var n = 0
    @Persisted(originProperty: "items") var shelves: LinkingObjects<ShelfV2>
}

@Suite struct InlineBacklinkTests {
    /// A backlink as "source table.column#source key xcount".
    private static func describe(table: Int, column: Int, key: UInt64, count: UInt32) -> String {
        "\(table).\(column)#\(key)x\(count)"
    }

    /// Every object's stored backlinks (footer and tree), by "table/key".
    private static func storedBacklinks(_ realm: Realm) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        func dump<T: Object>(_ type: T.Type) throws {
            for o in realm.objects(type) {
                let b = try #require(o._binding)
                let links = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key)
                    .map { describe(table: $0.table, column: $0.column, key: $0.key, count: $0.count) }
                if !links.isEmpty { out["\(b.table)/\(b.key)"] = links.sorted() }
            }
        }
        try dump(LinkNode.self)
        try dump(Dog.self)
        try dump(Person.self)
        return out
    }

    /// The backlinks the forward links imply: one per (source object, link column, target),
    /// counting a list's repeats.
    private static func impliedBacklinks(_ realm: Realm) throws -> [String: [String]] {
        var counts: [String: [String: UInt32]] = [:]
        func link(from source: Object, _ property: String, to target: Object) throws {
            let s = try #require(source._binding), t = try #require(target._binding)
            let column = try #require(s.info.schema.properties.firstIndex { $0.name == property })
            counts["\(t.table)/\(t.key)", default: [:]]["\(s.table).\(column)#\(s.key)", default: 0] += 1
        }
        for n in realm.objects(LinkNode.self) {
            if let next = n.next { try link(from: n, "next", to: next) }
            for child in n.children { try link(from: n, "children", to: child) }
        }
        for p in realm.objects(Person.self) {
            for d in p.dogs { try link(from: p, "dogs", to: d) }
        }
        for d in realm.objects(Dog.self) {
            if let owner = d.owner { try link(from: d, "owner", to: owner) }
        }
        return counts.mapValues { sources in sources.map { "\($0.key)x\($0.value)" }.sorted() }
    }

    /// LinkingObjects agree with the links they are the inverse of.
    private static func linkingObjectsMatch(_ realm: Realm) -> Bool {
        for n in realm.objects(LinkNode.self) {
            let expected = realm.objects(LinkNode.self).filter { $0.next?.name == n.name }.map(\.name).sorted()
            if n.previous.map(\.name).sorted() != expected { return false }
        }
        for p in realm.objects(Person.self) {
            let expected = realm.objects(Dog.self).filter { $0.owner?.name == p.name }.map(\.id).sorted()
            if p.pets.map(\.id).sorted() != expected { return false }
        }
        return true
    }

    /// One random link operation.
    private static func step(_ realm: Realm, _ rng: inout SplitMix64, _ serial: inout Int) throws {
        let nodes = Array(realm.objects(LinkNode.self)).sorted { $0.name < $1.name }
        let dogs = Array(realm.objects(Dog.self)).sorted { $0.id < $1.id }
        let people = Array(realm.objects(Person.self)).sorted { $0.name < $1.name }
        func pick<T>(_ a: [T]) -> T? { a.isEmpty ? nil : a[Int.random(in: 0..<a.count, using: &rng)] }
        serial += 1
        switch Int.random(in: 0..<16, using: &rng) {
        case 0:
            let p = Person()
            p.name = "p\(serial)"
            realm.add(p)
        case 1:
            // A new dog created by the list append (its backlink goes into its row).
            guard let p = pick(people) else { return }
            let d = Dog()
            d.id = "d\(serial)"
            p.dogs.append(d)
        case 2:
            // New dogs in one batch.
            guard let p = pick(people) else { return }
            p.dogs.append(objectsIn: (0..<3).map { i -> Dog in let d = Dog(); d.id = "d\(serial)-\(i)"; return d })
        case 3:
            // An existing dog into another (or the same) list: footer if free, else the tree.
            guard let p = pick(people), let d = pick(dogs) else { return }
            p.dogs.append(d)
        case 4:
            guard let d = pick(dogs) else { return }
            d.owner = pick(people)
        case 5:
            guard let d = pick(dogs) else { return }
            d.owner = nil
        case 6:
            guard let p = pick(people), !p.dogs.isEmpty else { return }
            p.dogs.remove(at: Int.random(in: 0..<p.dogs.count, using: &rng))
        case 7:
            guard let p = pick(people), !p.dogs.isEmpty else { return }
            p.dogs.removeFirst(Int.random(in: 1...p.dogs.count, using: &rng))
        case 8:
            guard let d = pick(dogs) else { return }
            realm.delete(d)
        case 9:
            guard let p = pick(people) else { return }
            realm.delete(p)
        case 10:
            // Upsert of an existing dog with a new owner whose list holds the dog itself: the
            // owner's list links back to the row being upserted.
            guard let existing = pick(dogs) else { return }
            let d = Dog()
            d.id = existing.id
            d.name = "upserted"
            let p = Person()
            p.name = "p\(serial)"
            p.dogs.append(d)
            d.owner = p
            realm.add(d, update: .modified)
        case 11:
            let n = LinkNode()
            n.name = "n\(serial)"
            realm.add(n)
        case 12:
            // A link to itself or to another node.
            guard let a = pick(nodes) else { return }
            a.next = Bool.random(using: &rng) ? a : pick(nodes)
        case 13:
            guard let a = pick(nodes), let b = pick(nodes) else { return }
            a.children.append(b)
        case 14:
            guard let a = pick(nodes) else { return }
            if Bool.random(using: &rng) { a.next = nil } else if !a.children.isEmpty { a.children.removeAll() }
        default:
            guard let a = pick(nodes) else { return }
            realm.delete(a)
        }
    }

    @Test func randomLinkOperationsKeepTheImpliedBacklinks() throws {
        for seed in [UInt64(11), 12, 13, 14] {
            let realm = try Realm(configuration: tempConfig("inline"))
            var rng = SplitMix64(seed: seed)
            var serial = 0
            for round in 0..<60 {
                try realm.write { for _ in 0..<5 { try Self.step(realm, &rng, &serial) } }
                let stored = try Self.storedBacklinks(realm), implied = try Self.impliedBacklinks(realm)
                #expect(stored == implied, "seed \(seed) round \(round)")
                #expect(Self.linkingObjectsMatch(realm), "seed \(seed) round \(round)")
                if stored != implied { return }
            }
            // Both stores are exercised: footers took some links, the tree the others.
            var treeEntries = 0
            try realm.core.snap.backlinks.forEach(from: nil, in: realm.core.pages()) { _, _ in treeEntries += 1; return true }
            var footerEntries = 0
            for t in realm.core.snap.metas.indices {
                try realm.core.snap.metas[t].objects.forEach(from: 0, in: realm.core.pages()) { _, row in
                    if try RowFooter.entry(row) != nil { footerEntries += 1 }
                    return true
                }
            }
            #expect(treeEntries > 0 && footerEntries > 0, "seed \(seed): \(treeEntries) tree, \(footerEntries) footer entries")
            #expect(try realm.core.file.verify().balances)
        }
    }

    @Test func theSensorsWindowWritesNoBacklinkTreePage() throws {
        let config = tempConfig("window")
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let s = Sensor()
                s.symbol = "s"
                realm.add(s)
            }
            let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "s"))
            var seq: Int64 = 0
            func reading() -> Reading { seq += 1; let r = Reading(); r.seq = seq; return r }
            for i in 0..<400 {
                try realm.write {
                    if i % 4 == 0 {
                        sensor.readings.append(objectsIn: (0..<50).map { _ in reading() })
                    } else {
                        sensor.readings.append(reading())
                    }
                    let excess = sensor.readings.count - 300
                    if excess > 0 {
                        let oldest = Array(sensor.readings.prefix(excess))
                        sensor.readings.removeFirst(excess)
                        realm.delete(oldest)
                    }
                }
                #expect(realm.core.snap.backlinks.isEmpty)
            }
            #expect(realm.objects(Reading.self).count == 300)
            #expect(try realm.core.file.verify().balances)
        }
        // After reopening, every reading is linked once from its sensor.
        let realm = try Realm(configuration: config)
        let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "s"))
        let sb = try #require(sensor._binding)
        for r in realm.objects(Reading.self) {
            let b = try #require(r._binding)
            let links = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key)
            #expect(links.count == 1 && links[0].key == sb.key && links[0].count == 1)
        }
    }

    @Test func aLinkToItselfAndBackIsCounted() throws {
        let realm = try Realm(configuration: tempConfig())
        let n = LinkNode()
        n.name = "n"
        try realm.write { realm.add(n) }
        try realm.write { n.next = n }
        #expect(n.previous.map(\.name) == ["n"])
        let b = try #require(n._binding)
        #expect(try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).map(\.count) == [1])
        // The footer holds the self link; the list's two links to the same node add to it.
        try realm.write { n.children.append(n); n.children.append(n) }
        #expect(try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).map(\.count).sorted() == [1, 2])
        try realm.write { n.next = nil }
        #expect(n.previous.isEmpty)
        #expect(try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).map(\.count) == [2])
        try realm.write { realm.delete(n) }
        #expect(realm.objects(LinkNode.self).isEmpty)
        #expect(realm.core.snap.backlinks.isEmpty)
        #expect(try realm.core.file.verify().balances)
    }

    @Test func aMigrationThatMovesTheLinkColumnKeepsTheBacklinks() throws {
        var v1 = tempConfig("shelf")
        v1.schemaVersion = 1
        v1.objectTypes = [ShelfV1.self, ShelfItemV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                let shelf = ShelfV1()
                realm.add(shelf)
                shelf.items.append(objectsIn: (0..<5).map { i -> ShelfItemV1 in let o = ShelfItemV1(); o.n = i; return o })
                let one = ShelfItemV1()
                one.n = 5
                shelf.items.append(one)
            }
        }
        var v2 = v1
        v2.schemaVersion = 2
        v2.objectTypes = [ShelfV2.self, ShelfItemV2.self]
        let realm = try Realm(configuration: v2)
        let shelf = try #require(realm.objects(ShelfV2.self).first)
        #expect(shelf.items.map(\.n) == [0, 1, 2, 3, 4, 5])
        for item in realm.objects(ShelfItemV2.self) { #expect(item.shelves.count == 1) }
        // The backlinks name the list's new column: deleting an item takes it out of the list,
        // and the links added after the migration go into footers again.
        let two = try #require(realm.objects(ShelfItemV2.self).first { $0.n == 2 })
        try realm.write { realm.delete(two) }
        #expect(shelf.items.map(\.n) == [0, 1, 3, 4, 5])
        try realm.write {
            let o = ShelfItemV2()
            o.n = 6
            shelf.items.append(o)
        }
        let six = try #require(realm.objects(ShelfItemV2.self).first { $0.n == 6 })
        let b = try #require(six._binding)
        #expect(try realm.core.backlinkStore.inlineBacklink(table: b.table, key: b.key, in: realm.core.pages()) != nil)
        try realm.write { shelf.items.removeAll() }
        for item in realm.objects(ShelfItemV2.self) { #expect(item.shelves.isEmpty) }
        #expect(try realm.core.file.verify().balances)
    }

    @Test func aMalformedFooterIsACorruptFileError() throws {
        for lastByte: UInt8 in [7, 1] {
            let realm = try Realm(configuration: tempConfig())
            let p = Person()
            p.name = "p"
            let d = Dog()
            d.id = "x"
            try realm.write {
                realm.add(p)
                p.dogs.append(d)
            }
            let b = try #require(d._binding)
            realm.beginWrite()
            let w = try #require(realm.core.writeTxn)
            // 7: not a footer; 1 on a row too short to hold an entry.
            let bad: [UInt8] = lastByte == 7 ? [0, 0, 0, 7] : [0, 1]
            try bad.withUnsafeBytes { _ = try realm.core.snap.metas[b.table].objects.put(b.key, $0, in: w) }
            #expect { _ = try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key) } throws: {
                ($0 as? Realm.Error)?.code == .corruptFile
            }
            #expect { try realm.deleteThrowing(d) } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
            realm.cancelWrite()
            // The committed version is untouched.
            #expect(p.dogs.map(\.id) == ["x"])
            #expect(try realm.core.backlinkStore.backlinks(target: b.table, targetKey: b.key).count == 1)
        }
    }
}
