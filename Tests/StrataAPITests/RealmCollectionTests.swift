// `RealmCollection` and `AnyRealmCollection`: one generic function over Results, List,
// MutableSet and LinkingObjects of objects; queries, sorts and aggregates on a list keep to the
// list's objects; frozen collections thaw; equality is identity of the stored collection.
import Foundation
import Strata
import Testing

final class Shelf: Object {
    @Persisted var name = ""
    @Persisted var books: List<Book>
    @Persisted var favourites: MutableSet<Book>
    @Persisted var ratings: List<Int>
}

final class Book: Object {
    @Persisted var title = ""
    @Persisted var pages = 0
    @Persisted var price = 0.0
    @Persisted var rating: Int?
    @Persisted(originProperty: "books") var listedOn: LinkingObjects<Shelf>
}

/// Generic code as an app writes it against RealmSwift.
private func longTitles<C: RealmCollection>(_ books: C) -> [String] where C.Element == Book {
    books.filter("pages > %@", 100).sorted(byKeyPath: "title").map(\.title)
}

private func totalPages<C: RealmCollection>(_ books: C) -> Int where C.Element == Book {
    books.sum(of: \.pages)
}

/// Generic code observes with the defaults and picks elements by position.
private func countsSeen<C: RealmCollection>(_ collection: C, while change: () throws -> Void) rethrows -> [Int] {
    var counts: [Int] = []
    let token = collection.observe { change in
        if case .initial(let c) = change { counts.append(c.count) }
        if case .update(let c, _, _, _) = change { counts.append(c.count) }
    }
    try change()
    token.invalidate()
    return counts
}

@Suite("RealmCollection over every collection type")
struct RealmCollectionTests {
    private func realmWithShelf() throws -> (Realm, Shelf) {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Shelf.self, Book.self]
        let realm = try Realm(configuration: configuration)
        let shelf = Shelf(value: ["name": "fiction"])
        try realm.write {
            realm.add(shelf)
            for (title, pages, price) in [("Dune", 412, 9.5), ("Emma", 90, 4.0), ("Ulysses", 730, 12.0), ("Beloved", 324, 8.5)] {
                realm.add(Book(value: ["title": title, "pages": pages, "price": price]))
            }
            realm.add(Book(value: ["title": "Unlisted", "pages": 500]))
            let listed = realm.objects(Book.self).filter("title != 'Unlisted'")
            shelf.books.append(objectsIn: listed.sorted(byKeyPath: "pages"))
            shelf.favourites.insert(objectsIn: listed.filter("price > 8"))
        }
        return (realm, shelf)
    }

    @Test func genericCodeRunsOnEveryCollectionType() throws {
        let (realm, shelf) = try realmWithShelf()
        #expect(longTitles(realm.objects(Book.self)) == ["Beloved", "Dune", "Ulysses", "Unlisted"])
        #expect(longTitles(shelf.books) == ["Beloved", "Dune", "Ulysses"])
        #expect(longTitles(shelf.favourites) == ["Beloved", "Dune", "Ulysses"])
        #expect(longTitles(AnyRealmCollection(shelf.books)) == ["Beloved", "Dune", "Ulysses"])
        #expect(totalPages(shelf.books) == 412 + 90 + 730 + 324)
        #expect(totalPages(realm.objects(Book.self)) == 412 + 90 + 730 + 324 + 500)

        let dune = try #require(realm.objects(Book.self).filter("title == 'Dune'").first)
        let shelves = try #require(realm.objects(Shelf.self).first)
        #expect(longTitles(shelves.books.first!.listedOn.first!.books) == ["Beloved", "Dune", "Ulysses"])
        #expect(dune.listedOn.filter("name == 'fiction'").count == 1)
        #expect(dune.listedOn.where { $0.name == "poetry" }.isEmpty)
    }

    @Test func genericCodeObservesAndPicksByPosition() throws {
        let (realm, shelf) = try realmWithShelf()
        let books = realm.objects(Book.self).sorted(byKeyPath: "pages")
        let counts = try countsSeen(books) {
            try realm.write { realm.add(Book(value: ["title": "Kim", "pages": 1])) }
        }
        #expect(counts == [5, 6])
        #expect(try countsSeen(shelf.books) { try realm.write { shelf.books.removeFirst() } } == [4, 3])
        #expect(AnyRealmCollection(shelf.books).objects(at: [0, 2]).map(\.title) == ["Beloved", "Ulysses"])
        #expect(books.objects(at: IndexSet([0, 1])).map(\.title) == ["Kim", "Emma"])
    }

    @Test func collectionOperatorsOfKeyValueCoding() throws {
        let (realm, shelf) = try realmWithShelf()
        let books = realm.objects(Book.self)
        // Generic code (and results) read the operators; a concrete List's form gives an array.
        let listed = AnyRealmCollection(shelf.books)
        #expect((books.value(forKeyPath: "@count") as? NSNumber)?.intValue == 5)
        #expect((listed.value(forKeyPath: "@max.pages") as? NSNumber)?.intValue == 730)
        #expect((listed.value(forKeyPath: "@min.pages") as? NSNumber)?.intValue == 90)
        #expect((listed.value(forKeyPath: "@sum.pages") as? NSNumber)?.intValue == 412 + 90 + 730 + 324)
        #expect((listed.value(forKeyPath: "@avg.price") as? NSNumber)?.doubleValue == (9.5 + 4.0 + 12.0 + 8.5) / 4)
        #expect(listed.value(forKeyPath: "@unionOfObjects.title") as? [String] == ["Emma", "Beloved", "Dune", "Ulysses"])
        #expect(listed.value(forKeyPath: "@avg.rating") == nil)   // no book has a rating
        #expect((books.filter("pages > 10000").value(forKeyPath: "@sum.pages") as? NSNumber)?.intValue == 0)
    }

    @Test func anUnknownCollectionOperatorStops() async {
        await #expect(processExitsWith: .failure) {
            _ = AnyRealmCollection(List<Book>()).value(forKeyPath: "@median.pages")
        }
    }

    @Test func collectionsAreQueryArgumentsAndPropertyValues() throws {
        let (realm, shelf) = try realmWithShelf()
        let cheap = realm.objects(Book.self).filter("price < 9")
        #expect(realm.objects(Shelf.self).filter("ANY books IN %@", cheap).count == 1)
        #expect(realm.objects(Shelf.self).filter("ANY favourites IN %@", shelf.books).count == 1)
        try realm.write {
            let copy = realm.create(Shelf.self, value: ["name": "copy", "books": shelf.favourites])
            copy.setValue(cheap, forKey: "favourites")
        }
        let copy = try #require(realm.objects(Shelf.self).filter("name == 'copy'").first)
        #expect(copy.books.count == 3 && copy.favourites.count == cheap.count)
        #expect(shelf.books.index(matching: { $0.title == "Dune" }) == 2)
        #expect(shelf.books.index(matching: { $0.title == "Kim" }) == nil)
    }

    @Test func aPositionOutOfRangeStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "objects-at"))
            _ = realm.objects(Book.self).objects(at: [0])
        }
    }

    @Test func typedQueriesAskWhetherALinkCollectionHoldsAnObject() throws {
        let (realm, shelf) = try realmWithShelf()
        let dune = try #require(realm.objects(Book.self).filter("title == 'Dune'").first)
        let unlisted = try #require(realm.objects(Book.self).filter("title == 'Unlisted'").first)
        let shelves = realm.objects(Shelf.self)
        #expect(shelves.where { $0.books.contains(dune) }.count == 1)
        #expect(shelves.where { $0.books.contains(unlisted) }.isEmpty)
        #expect(shelves.where { $0.favourites.containsAny(in: [unlisted, dune]) }.first?.name == shelf.name)
        #expect(shelves.where { $0.books.containsAny(in: [unlisted]) }.isEmpty)
    }

    @Test func aListsQueriesKeepItsOrderAndItsDuplicates() throws {
        let (realm, shelf) = try realmWithShelf()
        let emma = try #require(realm.objects(Book.self).filter("title == 'Emma'").first)
        try realm.write { shelf.books.append(emma) }
        #expect(shelf.books.map(\.title) == ["Emma", "Beloved", "Dune", "Ulysses", "Emma"])
        #expect(shelf.books.filter("pages < 400").map(\.title) == ["Emma", "Beloved", "Emma"])
        #expect(shelf.books.sorted(by: \.price, ascending: false).map(\.title) == ["Ulysses", "Dune", "Beloved", "Emma", "Emma"])
        #expect(shelf.books.distinct(by: [\.title]).map(\.title) == ["Emma", "Beloved", "Dune", "Ulysses"])
        #expect(shelf.books.index(matching: "title == %@", "Dune") == 2)
        let cheap = shelf.books.where { $0.price < 9 }
        #expect(cheap.count == 3)
        try realm.write { shelf.books.remove(at: 0) }
        #expect(cheap.count == 2, "results drawn from a list stay live")
    }

    @Test func keyPathAggregatesMatchTheirStringForms() throws {
        let (realm, shelf) = try realmWithShelf()
        let books = realm.objects(Book.self)
        #expect(books.min(of: \.pages) == books.min(ofProperty: "pages") as Int?)
        #expect(books.max(of: \.price) == 12.0)
        #expect(shelf.books.max(of: \.pages) == 730)
        #expect(shelf.books.sum(of: \.price) == 34.0)
        #expect(shelf.books.average(of: \.price) == 8.5)
        #expect(shelf.books.average(of: \.pages) == (412 + 90 + 730 + 324) / 4)
        #expect(books.sorted(by: \.rating).count == 5)
    }

    @Test func keyPathObservationWatchesOnlyThoseProperties() throws {
        let (realm, shelf) = try realmWithShelf()
        var updates: [[Int]] = []
        let token = shelf.books.observe(keyPaths: [\.price]) { change in
            if case .update(_, let deletions, let insertions, let modifications) = change,
               !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) {
                updates.append(modifications)
            }
        }
        defer { token.invalidate() }
        try realm.write { shelf.books[0].title = "Emma (annotated)" }
        try realm.write { shelf.books[1].price = 1 }
        #expect(updates == [[1]])
    }

    @Test func anyRealmCollectionForwardsToWhatItWraps() throws {
        let (realm, shelf) = try realmWithShelf()
        let wrapped: [AnyRealmCollection<Book>] = [AnyRealmCollection(realm.objects(Book.self)), AnyRealmCollection(shelf.books),
                                                   AnyRealmCollection(shelf.favourites)]
        #expect(wrapped.map(\.count) == [5, 4, 3])
        #expect(wrapped[1][0].title == "Emma")
        #expect(wrapped[1].realm == realm)
        #expect(wrapped[1] == AnyRealmCollection(shelf.books))
        #expect(wrapped[1] != wrapped[2])
        let frozen = wrapped[1].freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.thaw()?.isFrozen == false)
    }

    @Test func iteratingAnAnyRealmCollectionVisitsWhatItHeldWhenTheLoopStarted() throws {
        for pick in 0..<3 {
            let (realm, shelf) = try realmWithShelf()
            let wrapped = [AnyRealmCollection(shelf.books), AnyRealmCollection(realm.objects(Book.self)),
                           AnyRealmCollection(shelf.favourites)][pick]
            let before = wrapped.count
            var visited = 0
            try realm.write {
                for book in wrapped {
                    realm.delete(book)
                    visited += 1
                }
            }
            #expect(visited == before)
            #expect(wrapped.isEmpty)
        }
    }

    @Test func aMutableSetHasPositions() throws {
        let (_, shelf) = try realmWithShelf()
        let titles = (0..<shelf.favourites.count).map { shelf.favourites[$0].title }
        #expect(Set(titles) == ["Dune", "Ulysses", "Beloved"])
        #expect(titles == shelf.favourites.map(\.title))
    }

    @Test func frozenCollectionsThawToLiveOnes() throws {
        let (realm, shelf) = try realmWithShelf()
        let frozenBooks = shelf.books.freeze()
        let frozenResults = realm.objects(Book.self).filter("pages > 100").freeze()
        try realm.write { shelf.books.removeAll() }
        #expect(frozenBooks.count == 4)
        #expect(frozenBooks.thaw()?.count == 0)
        #expect(frozenResults.thaw()?.count == 4)
        #expect(frozenResults.thaw()?.isFrozen == false)
        let frozenFavourites = shelf.favourites.freeze()
        try realm.write { realm.delete(shelf) }
        #expect(frozenFavourites.thaw() == nil, "the owner is gone")
        #expect(shelf.books.isInvalidated)
    }

    /// Observes `collection` while `change` runs; for each delivery, whether it was `==` to it.
    static func deliveredEqual<C: RealmCollection>(_ collection: C, during change: () throws -> Void) throws -> [Bool] {
        var equal: [Bool] = []
        let token = collection.observe(keyPaths: nil, on: nil) { change in
            switch change {
            case .initial(let delivered), .update(let delivered, _, _, _): equal.append(delivered == collection)
            case .error: equal.append(false)
            }
        }
        defer { token.invalidate() }
        try change()
        return equal
    }

    @Test func anObserverDeliversResultsEqualToTheObservedOnes() throws {
        let (realm, _) = try realmWithShelf()
        let books = realm.objects(Book.self)
        let equal = try Self.deliveredEqual(books) { try realm.write { realm.add(Book(value: ["title": "Middlemarch"])) } }
        #expect(equal == [true, true])
        #expect(realm.objects(Book.self) != books, "other results of the same query are not the same results")
    }

    @Test func anObserverDeliversLinkingObjectsEqualToTheObservedOnes() throws {
        let (realm, shelf) = try realmWithShelf()
        let book = try #require(shelf.books.first)
        let links = book.listedOn
        let equal = try Self.deliveredEqual(links) { try realm.write { realm.create(Shelf.self).books.append(book) } }
        #expect(equal == [true, true])
        #expect(book.listedOn != links, "another reading of the same links is not the same links")
    }

    @Test func equalityIsIdentityOfTheStoredCollection() throws {
        let (realm, shelf) = try realmWithShelf()
        #expect(shelf.books == shelf.books, "two accessors of one list")
        let sameShelf = try #require(realm.objects(Shelf.self).first)
        #expect(shelf.books == sameShelf.books)
        #expect(shelf.favourites == sameShelf.favourites)
        // Unmanaged collections compare their elements, as RealmSwift's do.
        let unmanaged = List<Book>()
        #expect(unmanaged == unmanaged)
        #expect(unmanaged == List<Book>())
        let book = Book()
        unmanaged.append(book)
        let same = List<Book>()
        same.append(book)
        #expect(unmanaged == same && unmanaged != List<Book>())
        let set = MutableSet<Int>(), other = MutableSet<Int>()
        set.insert(objectsIn: [1, 2])
        other.insert(objectsIn: [2, 1])
        #expect(set == other)
        other.insert(3)
        #expect(set != other)
        let map = Map<String, Int>(), otherMap = Map<String, Int>()
        map["a"] = 1
        otherMap["a"] = 1
        #expect(map == otherMap && map != Map<String, Int>())
        #expect(shelf.books != List<Book>(), "managed and unmanaged")
        let results = realm.objects(Book.self)
        let copy = results
        #expect(results == copy)
        #expect(results != realm.objects(Book.self))
        let dune = try #require(results.filter("title == 'Dune'").first)
        // Linking objects are a query, as in Realm: each reading is its own, equal to its copies.
        let links = dune.listedOn
        let linksCopy = links
        #expect(links == linksCopy && dune.listedOn != dune.listedOn)
        #expect(shelf.books.freeze() != shelf.books, "a frozen list is another instance's")
    }
}
