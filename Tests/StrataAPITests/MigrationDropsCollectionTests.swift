// A migration that removes a non-empty List, MutableSet or Map property: the dropped collections'
// trees are freed with the schema change, so that afterwards `verify()` balances, `writeCopy`
// and compaction on launch succeed, and every remaining object reads back unchanged. A collection
// property renamed by the block keeps its trees.
import Foundation
import Testing
import Strata
import StrataTestSupport

/// Version 1 of "Bookcase": three collection properties beside the ones every version keeps.
final class BookcaseV1: Object {
    override class func className() -> String { "Bookcase" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var books: List<String>
    @Persisted var labels: MutableSet<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var kept: List<Int>
}

/// Version 2 without `books` (the List).
final class BookcaseWithoutList: Object {
    override class func className() -> String { "Bookcase" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var labels: MutableSet<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var kept: List<Int>
}

/// Version 2 without `labels` (the MutableSet).
final class BookcaseWithoutSet: Object {
    override class func className() -> String { "Bookcase" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var books: List<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var kept: List<Int>
}

/// Version 2 without `counts` (the Map).
final class BookcaseWithoutMap: Object {
    override class func className() -> String { "Bookcase" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var books: List<String>
    @Persisted var labels: MutableSet<String>
    @Persisted var kept: List<Int>
}

/// Version 2 with `books` renamed to `volumes` (the trees must move, not be freed).
final class BookcaseRenamedList: Object {
    override class func className() -> String { "Bookcase" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var volumes: List<String>
    @Persisted var labels: MutableSet<String>
    @Persisted var counts: Map<String, Int>
    @Persisted var kept: List<Int>
}

@Suite(.serialized)
struct MigrationDropsCollectionTests {
    enum Dropped: String, CaseIterable, Sendable {
        case list, set, map
    }

    static let shelves = 120

    /// Shelf `i`'s collections; shelf 0's are large enough to span many pages.
    static func books(_ i: Int) -> [String] { (0..<(i == 0 ? 3000 : 1 + i % 9)).map { "book \($0) of shelf \(i)" } }
    static func labels(_ i: Int) -> [String] { (0..<(i == 0 ? 2000 : 1 + i % 5)).map { "label \($0) of \(i)" } }
    static func counts(_ i: Int) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: (0..<(i == 0 ? 2000 : 1 + i % 7)).map { ("key \($0) of \(i)", $0 * i) })
    }
    static func kept(_ i: Int) -> [Int] { (0..<(i == 0 ? 4000 : i % 11)).map { $0 + i } }

    func fillVersionOne(_ base: Realm.Configuration) throws {
        var config = base
        config.schemaVersion = 1
        config.objectTypes = [BookcaseV1.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<Self.shelves {
                let shelf = BookcaseV1()
                shelf.id = i
                shelf.name = "shelf \(i)"
                shelf.books.append(objectsIn: Self.books(i))
                shelf.labels.insert(objectsIn: Self.labels(i))
                for (key, value) in Self.counts(i) { shelf.counts[key] = value }
                shelf.kept.append(objectsIn: Self.kept(i))
                realm.add(shelf)
            }
        }
    }

    /// Every remaining property of every shelf, read through the version-2 class `T`.
    func expectEverythingRemaining<T: Object>(_ realm: Realm, _ type: T.Type, _ context: String) {
        let shelves = Array(realm.objects(type))
        #expect(shelves.count == Self.shelves, "\(context): shelves")
        var seen = Set<Int>()
        for shelf in shelves {
            switch shelf {
            case let s as BookcaseWithoutList:
                let i = s.id
                seen.insert(i)
                #expect(s.name == "shelf \(i)", "\(context): name of \(i)")
                #expect(Set(s.labels) == Set(Self.labels(i)), "\(context): labels of \(i)")
                #expect(Dictionary(uniqueKeysWithValues: s.counts.map { ($0.key, $0.value) }) == Self.counts(i), "\(context): counts of \(i)")
                #expect(Array(s.kept) == Self.kept(i), "\(context): kept of \(i)")
            case let s as BookcaseWithoutSet:
                let i = s.id
                seen.insert(i)
                #expect(s.name == "shelf \(i)", "\(context): name of \(i)")
                #expect(Array(s.books) == Self.books(i), "\(context): books of \(i)")
                #expect(Dictionary(uniqueKeysWithValues: s.counts.map { ($0.key, $0.value) }) == Self.counts(i), "\(context): counts of \(i)")
                #expect(Array(s.kept) == Self.kept(i), "\(context): kept of \(i)")
            case let s as BookcaseWithoutMap:
                let i = s.id
                seen.insert(i)
                #expect(s.name == "shelf \(i)", "\(context): name of \(i)")
                #expect(Array(s.books) == Self.books(i), "\(context): books of \(i)")
                #expect(Set(s.labels) == Set(Self.labels(i)), "\(context): labels of \(i)")
                #expect(Array(s.kept) == Self.kept(i), "\(context): kept of \(i)")
            default:
                Issue.record("\(context): a shelf of type \(Swift.type(of: shelf))")
            }
        }
        #expect(seen == Set(0..<Self.shelves), "\(context): shelf ids")
    }

    @Test(arguments: Dropped.allCases)
    func droppingANonEmptyCollectionPropertyKeepsTheFileConsistent(dropped: Dropped) throws {
        switch dropped {
        case .list: try dropAndCheck(BookcaseWithoutList.self)
        case .set: try dropAndCheck(BookcaseWithoutSet.self)
        case .map: try dropAndCheck(BookcaseWithoutMap.self)
        }
    }

    func dropAndCheck<T: Object>(_ type: T.Type) throws {
        let base = tempConfig("shelves")
        try fillVersionOne(base)
        var config = base
        config.schemaVersion = 2
        config.objectTypes = [type]
        try expectMigratedFileConsistent(config) { realm, context in
            expectEverythingRemaining(realm, type, context)
        }
    }

    @Test func aCollectionPropertyRenamedByTheBlockKeepsItsTrees() throws {
        let base = tempConfig("renamed")
        try fillVersionOne(base)
        var config = base
        config.schemaVersion = 2
        config.objectTypes = [BookcaseRenamedList.self]
        config.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "Bookcase", from: "books", to: "volumes")
        }
        let realm = try Realm(configuration: config)
        let shelves = realm.objects(BookcaseRenamedList.self)
        #expect(shelves.count == Self.shelves)
        for shelf in shelves {
            #expect(Array(shelf.volumes) == Self.books(shelf.id), "volumes of \(shelf.id)")
            #expect(Set(shelf.labels) == Set(Self.labels(shelf.id)), "labels of \(shelf.id)")
            #expect(Array(shelf.kept) == Self.kept(shelf.id), "kept of \(shelf.id)")
        }
        let accounting = try pageAccounting(of: realm)
        #expect(accounting.balances, "\(accounting)")
    }
}
