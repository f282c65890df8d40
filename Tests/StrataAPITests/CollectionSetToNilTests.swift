// Key-value coding that sets a list, set or map property to nil (or NSNull) empties it, on an
// unmanaged object and on a managed one, as RealmSwift's does.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct CollectionSetToNilTests {
    private func filled() -> CopiedShelf {
        let shelf = CopiedShelf()
        shelf.titles.append(objectsIn: ["a", "b"])
        shelf.labels.insert("x")
        shelf.counts["k"] = 1
        return shelf
    }

    private func isEmpty(_ shelf: CopiedShelf) -> Bool {
        shelf.titles.isEmpty && shelf.labels.isEmpty && shelf.counts.isEmpty
    }

    @Test func nilEmptiesTheCollectionsOfAnUnmanagedObject() {
        let shelf = filled()
        shelf.setValue(nil, forKey: "titles")
        shelf["labels"] = nil
        shelf.setValue(NSNull(), forKey: "counts")
        #expect(isEmpty(shelf))
    }

    @Test func nilEmptiesTheCollectionsOfAManagedObject() throws {
        var configuration = tempConfig("nil-collections")
        configuration.objectTypes = [CopiedShelf.self]
        let realm = try Realm(configuration: configuration)
        let shelf = filled()
        try realm.write { realm.add(shelf) }
        try realm.write {
            shelf.setValue(NSNull(), forKey: "titles")
            shelf["labels"] = nil
            shelf.setValue(nil, forKey: "counts")
        }
        #expect(isEmpty(shelf))
        let created = try realm.write { realm.create(CopiedShelf.self, value: ["titles": NSNull(), "labels": NSNull(), "counts": NSNull()]) }
        #expect(isEmpty(created))
    }

    @Test func aNilElementOfAnArrayOfValuesIsAnEmptyCollection() throws {
        // An array read from `[String: Any]` lookups holds nils of type `Any?`, as Realm code builds it.
        let found: [String: Any] = ["titles": ["a"]]
        let values: [Any?] = ["titles", "labels", "counts"].map { found[$0] }
        let shelf = CopiedShelf(value: values)
        #expect(Array(shelf.titles) == ["a"] && shelf.labels.isEmpty && shelf.counts.isEmpty)
        var configuration = tempConfig("nil-collections-array")
        configuration.objectTypes = [CopiedShelf.self]
        let realm = try Realm(configuration: configuration)
        let created = try realm.write { realm.create(CopiedShelf.self, value: values) }
        #expect(Array(created.titles) == ["a"] && created.labels.isEmpty && created.counts.isEmpty)
    }
}
