// Three rules of RealmSwift's accessors that Realm's own tests check and Strata's were silent on:
// - a key that names no property stops (`obj["noSuchKey"]` read as nil, so a typo read as "no
//   value"); a Swift property the realm does not persist still reads as itself;
// - two accessors of one stored object of a class without a primary key are not `==` (only the
//   same instance is), while classes with a primary key and frozen objects compare the object;
// - `cancelWrite()` does not revive an accessor `delete` was given: it stays invalidated, while
//   reading the object again gives a valid one.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class AccessorRulesDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var tmpID = 0
    var nickname: String? = "Rexy"

    override class func ignoredProperties() -> [String] { ["tmpID"] }
}

final class AccessorRulesOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

@Suite("Accessor rules of RealmSwift")
struct AccessorRulesTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [AccessorRulesDog.self, AccessorRulesOwner.self]
        return try Realm(configuration: configuration)
    }

    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func aKeyThatNamesNoPropertyStopsTheSubscript() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try AccessorRulesTests.realm("no-such-key-subscript")
            try realm.write { realm.add(AccessorRulesDog()) }
            _ = realm.objects(AccessorRulesDog.self)[0]["noSuchKey"]
        }
        #expect(Self.stopMessage(result).contains("'AccessorRulesDog' has no property 'noSuchKey'"))
    }

    @Test func aKeyThatNamesNoPropertyStopsValueForKeyOnUnmanagedAndDynamicObjects() async throws {
        let unmanaged = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AccessorRulesDog().value(forKey: "nmae")
        }
        #expect(Self.stopMessage(unmanaged).contains("has no property 'nmae'"))
        let dynamic = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try AccessorRulesTests.realm("no-such-key-dynamic")
            try realm.write { realm.add(AccessorRulesDog()) }
            _ = realm.dynamicObjects("AccessorRulesDog")[0]["noSuchKey"]
        }
        #expect(Self.stopMessage(dynamic).contains("has no property 'noSuchKey'"))
    }

    @Test func knownKeysAndUnpersistedPropertiesStillRead() throws {
        let realm = try Self.realm("known-keys")
        let dog = AccessorRulesDog()
        dog.name = "Rex"
        dog.tmpID = 7
        try realm.write { realm.add(dog) }
        #expect(dog["name"] as? String == "Rex")
        #expect(dog.value(forKey: "age") as? Int == 0)
        // Not persisted: the instance's own values, as key-value coding reads them in RealmSwift.
        #expect(dog.value(forKey: "tmpID") as? Int == 7)
        #expect(dog.value(forKey: "nickname") as? String == "Rexy")
        dog.nickname = nil
        #expect(dog.value(forKey: "nickname") == nil)
        #expect(!dog.objectSchema.properties.contains { $0.name == "tmpID" || $0.name == "nickname" })
    }

    @Test func accessorsOfOneObjectWithoutAPrimaryKeyAreNotEqual() throws {
        let realm = try Self.realm("no-pk-equality")
        try realm.write { realm.add(AccessorRulesDog()) }
        let first = realm.objects(AccessorRulesDog.self)[0]
        let again = realm.objects(AccessorRulesDog.self).first!
        #expect(first !== again)
        #expect(first != again)
        #expect(!first.isEqual(again))
        #expect(first == first)
        #expect(first.isSameObject(as: again))
        #expect(Set([first, again]).count == 2)
        // Frozen objects compare the stored object, as RealmSwift's do.
        let frozen = first.freeze(), frozenAgain = again.freeze()
        #expect(frozen == frozenAgain)
        #expect(Set([frozen, frozenAgain]).count == 1)
    }

    @Test func accessorsOfOneObjectWithAPrimaryKeyAreEqual() throws {
        let realm = try Self.realm("pk-equality")
        try realm.write { realm.add(AccessorRulesOwner(value: ["id": 1, "name": "Ann"])) }
        let first = try #require(realm.object(ofType: AccessorRulesOwner.self, forPrimaryKey: 1))
        let again = try #require(realm.objects(AccessorRulesOwner.self).first)
        #expect(first !== again)
        #expect(first == again)
        #expect(first.isEqual(again))
        #expect(Set([first, again]).count == 1)
    }

    /// RealmSwift's `cancelWrite()` documentation: "Both objects will be invalidated", the new one
    /// added in the write and the old one deleted in it; the old object is back in the realm.
    @Test func cancelWriteLeavesTheDeletedAccessorInvalidated() throws {
        let realm = try Self.realm("cancel-write-invalidates")
        try realm.write { realm.add(AccessorRulesOwner(value: ["id": 1, "name": "old"])) }
        let oldObject = try #require(realm.objects(AccessorRulesOwner.self).first)
        let newObject = AccessorRulesOwner(value: ["id": 2, "name": "new"])
        realm.beginWrite()
        realm.add(newObject)
        realm.delete(oldObject)
        realm.cancelWrite()
        #expect(oldObject.isInvalidated)
        #expect(newObject.isInvalidated)
        let again = try #require(realm.objects(AccessorRulesOwner.self).first)
        #expect(!again.isInvalidated)
        #expect(again.name == "old")
        #expect(realm.objects(AccessorRulesOwner.self).count == 1)
    }

    @Test func aDeletedBatchStaysInvalidatedAfterCancelWrite() throws {
        let realm = try Self.realm("cancel-write-batch")
        try realm.write {
            for index in 0..<5 { realm.add(AccessorRulesOwner(value: ["id": index])) }
        }
        let owners = Array(realm.objects(AccessorRulesOwner.self))
        realm.beginWrite()
        realm.delete(owners)
        realm.cancelWrite()
        #expect(owners.allSatisfy { $0.isInvalidated })
        #expect(realm.objects(AccessorRulesOwner.self).count == 5)
        #expect(realm.objects(AccessorRulesOwner.self).allSatisfy { !$0.isInvalidated })
    }
}
