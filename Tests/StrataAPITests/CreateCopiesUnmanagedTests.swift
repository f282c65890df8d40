// `create(_:value:)` copies the unmanaged objects it is given, as RealmSwift does: they stay
// unmanaged and the caller keeps them as they were; an object given twice, or reached through a
// cycle, is one stored object. `init(value:)` and `create` copy a list, set or map they are
// given instead of sharing the instance, so that adding one object cannot make another object's
// collection managed. Before, `create` adopted the instances (they became managed) and the new
// object shared the given collection instance.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class CopiedKitten: Object {
    @Persisted var name = ""
    @Persisted var carer: CopiedCarer?
}

final class CopiedCarer: Object {
    @Persisted var name = ""
    @Persisted var favourite: CopiedKitten?
    @Persisted var kittens: List<CopiedKitten>
    @Persisted var byName: Map<String, CopiedKitten?>
    @Persisted var anything: AnyRealmValue
}

final class CopiedBadge: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var level = 0
}

final class CopiedBadgeHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var badge: CopiedBadge?
}

@Suite("create copies unmanaged objects")
struct CreateCopiesUnmanagedTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [CopiedKitten.self, CopiedCarer.self, CopiedBadge.self, CopiedBadgeHolder.self]
        return try Realm(configuration: configuration)
    }

    @Test func objectsGivenInTheValueStayUnmanaged() throws {
        let realm = try Self.realm("create-copies-links")
        let kitten = CopiedKitten(value: ["name": "Tom"])
        let carer = try realm.write {
            realm.create(CopiedCarer.self, value: ["name": "Ann", "favourite": kitten, "kittens": [kitten],
                                                   "byName": ["tom": kitten], "anything": AnyRealmValue.object(kitten)])
        }
        #expect(kitten.realm == nil, "the caller's object is copied, not added")
        #expect(realm.objects(CopiedKitten.self).count == 1, "one object given four times is one copy")
        let stored = try #require(carer.favourite)
        #expect(stored.isSameObject(as: carer.kittens[0]))
        #expect(stored.isSameObject(as: carer.byName["tom"] ?? nil))
        #expect(stored.isSameObject(as: carer.anything.object(CopiedKitten.self)))
        kitten.name = "Tim"
        #expect(stored.name == "Tom", "changing the caller's object changes nothing stored")
    }

    @Test func anUnmanagedValueAndItsCycleAreCopiedOnce() throws {
        let realm = try Self.realm("create-copies-cycle")
        let carer = CopiedCarer(value: ["name": "Ann"])
        let kitten = CopiedKitten(value: ["name": "Tom"])
        carer.favourite = kitten
        kitten.carer = carer
        let created = try realm.write { realm.create(CopiedCarer.self, value: carer) }
        #expect(carer.realm == nil && kitten.realm == nil)
        #expect(realm.objects(CopiedCarer.self).count == 1 && realm.objects(CopiedKitten.self).count == 1)
        #expect(created.favourite?.carer?.isSameObject(as: created) == true, "the cycle reaches the created object")
        #expect(carer.favourite === kitten, "the caller's graph is as it was")
    }

    @Test func aPrimaryKeyCopyUpdatesTheStoredObject() throws {
        let realm = try Self.realm("create-copies-update")
        try realm.write { realm.add(CopiedBadge(value: ["code": "gold", "level": 1])) }
        let badge = CopiedBadge(value: ["code": "gold", "level": 2])
        let holder = try realm.write { realm.create(CopiedBadgeHolder.self, value: ["id": 1, "badge": badge], update: .modified) }
        #expect(badge.realm == nil)
        #expect(realm.objects(CopiedBadge.self).count == 1)
        #expect(holder.badge?.level == 2)
    }

    @Test func aDuplicatePrimaryKeyInACopyFailsTheWrite() throws {
        let realm = try Self.realm("create-copies-duplicate")
        try realm.write { realm.add(CopiedBadge(value: ["code": "gold"])) }
        let badge = CopiedBadge(value: ["code": "gold", "level": 2])
        #expect { try realm.write { realm.create(CopiedBadgeHolder.self, value: ["badge": badge]) } } throws: {
            ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
        }
        #expect(badge.realm == nil)
        #expect(realm.objects(CopiedBadgeHolder.self).isEmpty)
        #expect(realm.objects(CopiedBadge.self).first?.level == 0)
    }

    @Test func initWithValueCopiesACollectionInsteadOfSharingIt() throws {
        let realm = try Self.realm("init-copies-list")
        let first = CopiedCarer(value: ["name": "Ann"])
        first.kittens.append(CopiedKitten(value: ["name": "Tom"]))
        first.byName["tom"] = first.kittens[0]
        let second = CopiedCarer(value: first)
        second.kittens.append(CopiedKitten(value: ["name": "Kit"]))
        #expect(first.kittens.map(\.name) == ["Tom"], "the new object has its own list")
        #expect(second.kittens[0] === first.kittens[0], "the elements are the objects given, as in RealmSwift")
        try realm.write { realm.add(second) }
        #expect(first.kittens.realm == nil && first.byName.realm == nil, "adding the other object leaves this one's collections unmanaged")
        #expect(second.kittens.realm != nil)
    }
}
