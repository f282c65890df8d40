// Sorting along a link path: an object whose link is nil has no value to sort by; as in RealmSwift
// it ranks above every value the path reaches, so it comes last ascending and first descending.
// A nil value the path does reach sorts as nil (first ascending, last descending).
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

final class SortedKennel: Object {
    @Persisted var label = ""
    @Persisted var hound: SortedHound?
}

@Suite("Sorting through a nil link")
struct NilLinkSortOrderTests {
    private func kennel() throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [SortedHound.self, SortedCollar.self, SortedKennel.self]
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

    @Test func anObjectWithoutTheLinkSortsFirstDescending() throws {
        let hounds = try kennel().objects(SortedHound.self)
        #expect(hounds.sorted(byKeyPath: "collar.tag", ascending: false).map(\.name) == ["bare", "zed", "rex", "ace"])
    }

    @Test func descendingIsTheReverseOfAscendingThroughANilLink() throws {
        let hounds = try kennel().objects(SortedHound.self)
        for path in ["collar.tag", "collar.size"] {
            let up = hounds.sorted(byKeyPath: path).map(\.name)
            #expect(hounds.sorted(byKeyPath: path, ascending: false).map(\.name) == up.reversed(), "\(path)")
        }
    }

    @Test func aNilValueReachedThroughTheLinkSortsAsNil() throws {
        // "ace" has a collar whose size is nil: a value like any other, first when ascending;
        // "bare" has no collar at all: last ascending, first descending.
        let hounds = try kennel().objects(SortedHound.self)
        #expect(hounds.sorted(byKeyPath: "collar.size").map(\.name) == ["ace", "zed", "rex", "bare"])
        #expect(hounds.sorted(byKeyPath: "collar.size", ascending: false).map(\.name) == ["bare", "rex", "zed", "ace"])
    }

    @Test func aLaterKeyOrdersObjectsThatAllLackTheLink() throws {
        let realm = try kennel()
        try realm.write { realm.add(SortedHound(value: ["name": "amy"])) }
        let sorted = realm.objects(SortedHound.self).sorted(by: [
            SortDescriptor(keyPath: "collar.tag", ascending: false), SortDescriptor(keyPath: "name"),
        ])
        #expect(sorted.map(\.name) == ["amy", "bare", "zed", "rex", "ace"])
    }

    @Test func aNilLinkAnywhereOnALongerPathRanksAboveEveryValue() throws {
        let realm = try kennel()
        let hounds = realm.objects(SortedHound.self)
        try realm.write {
            for (label, name) in [("k1", "rex"), ("k2", "bare"), ("k3", nil), ("k4", "ace")] as [(String, String?)] {
                let kennel = realm.create(SortedKennel.self, value: ["label": label])
                kennel.hound = name.flatMap { n in hounds.first { $0.name == n } }
            }
        }
        let kennels = realm.objects(SortedKennel.self)
        // k2's hound has no collar, k3 has no hound: neither reaches a tag.
        #expect(kennels.sorted(byKeyPath: "hound.collar.tag").map(\.label) == ["k4", "k1", "k2", "k3"])
        #expect(kennels.sorted(byKeyPath: "hound.collar.tag", ascending: false).map(\.label) == ["k2", "k3", "k1", "k4"])
        // distinct leaves out both, as Realm does, whichever link on the way is nil.
        #expect(kennels.distinct(by: ["hound.collar.tag"]).map(\.label) == ["k1", "k4"])
        #expect(kennels.distinct(by: ["hound.name"]).map(\.label) == ["k1", "k2", "k4"])
    }
}
