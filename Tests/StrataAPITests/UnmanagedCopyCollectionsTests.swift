// An unmanaged copy of a managed object (`init(value:)`) gets collections of its own: changing
// them never reaches the stored object's list, set or map, inside a write or out of one.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class CopiedShelf: Object {
    @Persisted var titles: List<String>
    @Persisted var labels: MutableSet<String>
    @Persisted var counts: Map<String, Int>
}

@Suite struct UnmanagedCopyCollectionsTests {
    @Test func aCopysCollectionsAreItsOwn() throws {
        var configuration = tempConfig("copies")
        configuration.objectTypes = [CopiedShelf.self]
        let realm = try Realm(configuration: configuration)
        let stored = CopiedShelf()
        stored.titles.append(objectsIn: ["a", "b"])
        stored.labels.insert("x")
        stored.counts["k"] = 1
        try realm.write { realm.add(stored) }

        let copy = CopiedShelf(value: stored)
        #expect(copy.realm == nil)
        #expect(Array(copy.titles) == ["a", "b"] && Array(copy.labels) == ["x"] && copy.counts["k"] == 1)
        // Outside a write: an unmanaged collection changes freely (a stored one would refuse).
        copy.titles.removeAll()
        copy.labels.removeAll()
        copy.counts.removeAll()
        // Inside a write: still only the copy changes.
        try realm.write {
            copy.titles.append("c")
            copy.labels.insert("y")
            copy.counts["z"] = 9
        }
        #expect(Array(stored.titles) == ["a", "b"])
        #expect(Array(stored.labels) == ["x"])
        #expect(stored.counts.count == 1 && stored.counts["k"] == 1)
        #expect(Array(copy.titles) == ["c"] && Array(copy.labels) == ["y"] && copy.counts["z"] == 9)
    }
}
