// Queries given as Foundation predicates: the constant and compound predicates Foundation builds
// on Linux filter and find objects and values as the equivalent query text does; a block
// predicate, which the query engine cannot run, stops with a `Strata:` message.
import Foundation
import Strata
import Testing

final class PredicateShelf: Object {
    @Persisted var label = ""
    @Persisted var books: List<PredicateBook>
    @Persisted var pages: List<Int>
    @Persisted var byTitle: Map<String, PredicateBook?>
}

final class PredicateBook: Object {
    @Persisted var title = ""
}

@Suite("Foundation predicates as queries")
struct FoundationPredicateQueryTests {
    private let yes = NSPredicate(value: true)
    private let no = NSPredicate(value: false)

    private func shelf() throws -> (Realm, PredicateShelf) {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [PredicateShelf.self, PredicateBook.self]
        let realm = try Realm(configuration: configuration)
        let shelf = PredicateShelf()
        try realm.write {
            realm.add(shelf)
            for title in ["a", "b", "c"] {
                let book = realm.create(PredicateBook.self, value: ["title": title])
                shelf.books.append(book)
                shelf.byTitle[title] = book
            }
            shelf.pages.append(objectsIn: [10, 20])
        }
        return (realm, shelf)
    }

    @Test func constantsSelectAllOrNothing() throws {
        let (realm, shelf) = try shelf()
        #expect(realm.objects(PredicateBook.self).filter(yes).count == 3)
        #expect(realm.objects(PredicateBook.self).filter(no).isEmpty)
        #expect(shelf.books.filter(yes).map(\.title) == ["a", "b", "c"])
        #expect(AnyRealmCollection(shelf.books).filter(no).isEmpty)
        #expect(shelf.pages.filter(yes).count == 2 && shelf.pages.filter(no).isEmpty)
        #expect(shelf.byTitle.filter(yes).count == 3)
        #expect(shelf.books.index(matching: yes) == 0 && shelf.books.index(matching: no) == nil)
        #expect(shelf.pages.index(matching: yes) == 0 && shelf.pages.index(matching: no) == nil)
    }

    @Test func compoundsCombineTheirParts() throws {
        let (realm, _) = try shelf()
        let books = realm.objects(PredicateBook.self)
        #expect(books.filter(NSCompoundPredicate(andPredicateWithSubpredicates: [yes, no])).isEmpty)
        #expect(books.filter(NSCompoundPredicate(andPredicateWithSubpredicates: [yes, yes])).count == 3)
        #expect(books.filter(NSCompoundPredicate(orPredicateWithSubpredicates: [no, yes])).count == 3)
        #expect(books.filter(NSCompoundPredicate(orPredicateWithSubpredicates: [no, no])).isEmpty)
        #expect(books.filter(NSCompoundPredicate(notPredicateWithSubpredicate: no)).count == 3)
        let nested = NSCompoundPredicate(notPredicateWithSubpredicate: NSCompoundPredicate(orPredicateWithSubpredicates: [no, yes]))
        #expect(books.filter(nested).isEmpty)
        // Empty compounds, as Foundation evaluates them: AND of nothing holds, OR of nothing does not.
        #expect(books.filter(NSCompoundPredicate(andPredicateWithSubpredicates: [])).count == 3)
        #expect(books.filter(NSCompoundPredicate(orPredicateWithSubpredicates: [])).isEmpty)
        // A predicate result can be narrowed further with query text.
        #expect(books.filter(yes).filter("title != 'b'").map(\.title) == ["a", "c"])
    }

    @Test func aBlockPredicateStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "block-predicate")
            configuration.objectTypes = [PredicateShelf.self, PredicateBook.self]
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(PredicateBook.self).filter(NSPredicate { _, _ in true })
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Strata: invalidQuery: only constant and compound predicates"))
    }

    @Test func aCompoundHoldingABlockStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "compound-block-predicate")
            configuration.objectTypes = [PredicateShelf.self, PredicateBook.self]
            let realm = try Realm(configuration: configuration)
            let shelf = PredicateShelf()
            try realm.write { realm.add(shelf) }
            let block = NSPredicate { _, _ in false }
            _ = shelf.pages.index(matching: NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true), block]))
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Strata: invalidQuery: only constant and compound predicates"))
    }
}
