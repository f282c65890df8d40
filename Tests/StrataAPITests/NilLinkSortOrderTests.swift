// Sorting along a link path: an object whose link is nil has no value to sort by and comes after
// every object the path reaches, whichever the direction, as in RealmSwift.
import Foundation
import Strata
import Testing

final class SortedCollar: Object {
    @Persisted var tag = ""
    @Persisted var size: Int?
}

final class SortedHound: Object {
    @Persisted var name = ""
    @Persisted var collar: SortedCollar?
}

@Suite("Sorting through a nil link")
struct NilLinkSortOrderTests {
    private func kennel() throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [SortedHound.self, SortedCollar.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(SortedHound(value: ["name": "rex", "collar": ["tag": "b", "size": 2]]))
            realm.add(SortedHound(value: ["name": "bare"]))
            realm.add(SortedHound(value: ["name": "ace", "collar": ["tag": "a"]]))
            realm.add(SortedHound(value: ["name": "zed", "collar": ["tag": "c", "size": 1]]))
        }
        return realm
    }

    @Test func anObjectWithoutTheLinkSortsLastAscending() throws {
        let hounds = try kennel().objects(SortedHound.self)
        #expect(hounds.sorted(byKeyPath: "collar.tag").map(\.name) == ["ace", "rex", "zed", "bare"])
    }

    @Test func anObjectWithoutTheLinkSortsLastDescending() throws {
        let hounds = try kennel().objects(SortedHound.self)
        #expect(hounds.sorted(byKeyPath: "collar.tag", ascending: false).map(\.name) == ["zed", "rex", "ace", "bare"])
    }

    @Test func aNilValueReachedThroughTheLinkSortsAsNil() throws {
        // "ace" has a collar whose size is nil: a value like any other, first when ascending;
        // "bare" has no collar at all and still comes last.
        let hounds = try kennel().objects(SortedHound.self)
        #expect(hounds.sorted(byKeyPath: "collar.size").map(\.name) == ["ace", "zed", "rex", "bare"])
        #expect(hounds.sorted(byKeyPath: "collar.size", ascending: false).map(\.name) == ["rex", "zed", "ace", "bare"])
    }

    @Test func aLaterKeyOrdersObjectsThatAllLackTheLink() throws {
        let realm = try kennel()
        try realm.write { realm.add(SortedHound(value: ["name": "amy"])) }
        let sorted = realm.objects(SortedHound.self).sorted(by: [
            SortDescriptor(keyPath: "collar.tag", ascending: false), SortDescriptor(keyPath: "name"),
        ])
        #expect(sorted.map(\.name) == ["zed", "rex", "ace", "amy", "bare"])
    }
}
