// `realm.invalidate()` invalidates every object and collection read from that realm before it,
// as in RealmSwift: `isInvalidated` turns true and reading one stops with a `Strata:` message.
// The realm itself stays usable, and what is read after it is valid. A deleted object stops
// the same way when read, instead of reading as its properties' defaults.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class InvalidatedShelf: Object {
    @Persisted var label = ""
    @Persisted var books: List<InvalidatedBook>
    @Persisted var tags: MutableSet<String>
    @Persisted var notes: Map<String, String>
}

final class InvalidatedBook: Object {
    @Persisted var title = ""
    @Persisted(originProperty: "books") var shelves: LinkingObjects<InvalidatedShelf>
}

@Suite("Invalidating a realm")
struct InvalidateTests {
    /// A realm of this suite's classes in a new file (exit tests make their own: they capture nothing).
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [InvalidatedShelf.self, InvalidatedBook.self]
        return try Realm(configuration: configuration)
    }

    /// A shelf labelled "A" holding one book, "Dune", tagged and noted.
    @discardableResult
    static func stockedShelf(in realm: Realm) throws -> InvalidatedShelf {
        try realm.write {
            let shelf = realm.create(InvalidatedShelf.self, value: ["label": "A"])
            shelf.books.append(realm.create(InvalidatedBook.self, value: ["title": "Dune"]))
            shelf.tags.insert("sf")
            shelf.notes["where"] = "attic"
            return shelf
        }
    }

    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func everythingReadBeforeIsInvalidated() throws {
        let realm = try Self.realm("invalidate-all")
        let shelf = try Self.stockedShelf(in: realm)
        let book = shelf.books[0]
        let books = shelf.books, tags = shelf.tags, notes = shelf.notes, shelves = book.shelves
        let results = realm.objects(InvalidatedShelf.self)
        let filtered = results.where { $0.label == "A" }
        let anyBooks = AnyRealmCollection(books)
        #expect(!shelf.isInvalidated && !books.isInvalidated && !results.isInvalidated && !shelves.isInvalidated)

        realm.invalidate()

        #expect(shelf.isInvalidated)
        #expect(book.isInvalidated)
        #expect(books.isInvalidated)
        #expect(tags.isInvalidated)
        #expect(notes.isInvalidated)
        #expect(shelves.isInvalidated)
        #expect(results.isInvalidated)
        #expect(filtered.isInvalidated)
        #expect(anyBooks.isInvalidated)
        #expect(shelf.description == "[invalid object]")
    }

    @Test func theRealmReadsOnAndNewReadsAreValid() throws {
        let realm = try Self.realm("invalidate-reads-on")
        let shelf = try Self.stockedShelf(in: realm)
        realm.invalidate()
        try realm.write { realm.add(InvalidatedShelf(value: ["label": "B"])) }

        let fresh = realm.objects(InvalidatedShelf.self).sorted(by: \.label, ascending: true)
        #expect(fresh.map(\.label) == ["A", "B"])
        #expect(!fresh.isInvalidated && !fresh[0].isInvalidated)
        #expect(fresh[0].books.map(\.title) == ["Dune"])
        #expect(fresh[0].books[0].shelves.count == 1)
        #expect(shelf.isInvalidated, "a new write does not bring an invalidated object back")
    }

    @Test func aFrozenObjectIsNotInvalidatedWithTheLiveRealm() throws {
        let realm = try Self.realm("invalidate-frozen")
        let frozen = try Self.stockedShelf(in: realm).freeze()
        realm.invalidate()
        #expect(!frozen.isInvalidated)
        #expect(frozen.label == "A")
        #expect(frozen.books.map(\.title) == ["Dune"])
    }

    @Test func addingOrDeletingAnInvalidatedObjectFailsTheWrite() throws {
        let realm = try Self.realm("invalidate-add-delete")
        let shelf = try Self.stockedShelf(in: realm)
        realm.invalidate()
        #expect { try realm.write { realm.delete(shelf) } } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
        #expect { try realm.write { realm.add(shelf) } } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
        let fresh = try #require(realm.objects(InvalidatedShelf.self).first)
        #expect { try realm.write { realm.delete([fresh, shelf]) } } throws: {
            ($0 as? Realm.Error)?.code == .objectInvalidated && "\($0)".contains("this 'InvalidatedShelf' object was deleted or invalidated")
        }
        #expect(realm.objects(InvalidatedShelf.self).count == 1, "the failed writes changed nothing")
    }

    @Test func addingADeletedObjectFailsTheWrite() throws {
        let realm = try Self.realm("deleted-add")
        let shelf = try Self.stockedShelf(in: realm)
        try realm.write { realm.delete(shelf) }
        #expect { try realm.write { realm.add(shelf) } } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
        #expect(realm.objects(InvalidatedShelf.self).isEmpty)
    }

    @Test func observersRegisteredBeforeGoOnDelivering() throws {
        let realm = try Self.realm("invalidate-observe")
        try Self.stockedShelf(in: realm)
        let counts = LockedBox<[Int]>([])
        let token = realm.objects(InvalidatedShelf.self).observe { change in
            if case .update(let shelves, _, _, _) = change { counts.set(counts.get() + [shelves.count]) }
        }
        realm.invalidate()
        try realm.write { realm.add(InvalidatedShelf(value: ["label": "B"])) }
        #expect(counts.get() == [2])
        token.invalidate()
    }

    // MARK: - Reads that stop

    @Test func readingAPropertyOfAnInvalidatedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-property")
            let shelf = try InvalidateTests.stockedShelf(in: realm)
            realm.invalidate()
            _ = shelf.label
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'InvalidatedShelf' object was deleted or invalidated"))
    }

    @Test func writingAPropertyOfAnInvalidatedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-set")
            let shelf = try InvalidateTests.stockedShelf(in: realm)
            realm.invalidate()
            try realm.write { shelf.label = "B" }
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'InvalidatedShelf' object was deleted or invalidated"))
    }

    @Test func readingResultsMadeBeforeStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-results")
            try InvalidateTests.stockedShelf(in: realm)
            let results = realm.objects(InvalidatedShelf.self)
            realm.invalidate()
            _ = results.count
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: these 'InvalidatedShelf' results were invalidated with their realm"))
    }

    @Test func readingAListOrLinkingObjectsReadBeforeStops() async throws {
        let list = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-list")
            let books = try InvalidateTests.stockedShelf(in: realm).books
            realm.invalidate()
            _ = books.count
        }
        #expect(Self.stopMessage(list).contains("Strata: objectInvalidated: this collection was invalidated with its realm"))
        let links = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-links")
            let shelves = try InvalidateTests.stockedShelf(in: realm).books[0].shelves
            realm.invalidate()
            _ = shelves.count
        }
        #expect(Self.stopMessage(links).contains("Strata: objectInvalidated: these linking objects were invalidated with their realm"))
    }

    @Test func linkingAnInvalidatedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("invalidated-link")
            let book = try InvalidateTests.stockedShelf(in: realm).books[0]
            realm.invalidate()
            try realm.write { realm.create(InvalidatedShelf.self).books.append(book) }
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'InvalidatedBook' object was deleted or invalidated and cannot be linked"))
    }

    /// Before, a deleted object's properties read as their defaults ("", 0): values it never had.
    @Test func readingAPropertyOfADeletedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try InvalidateTests.realm("deleted-property")
            let shelf = try InvalidateTests.stockedShelf(in: realm)
            try realm.write { realm.delete(shelf) }
            print(shelf.label)
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'InvalidatedShelf' object was deleted or invalidated"))
    }
}
