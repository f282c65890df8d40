// `_realmIgnoreClass()`: a model class that opts out of the default schema is not listed for a
// configuration without `objectTypes`, and is still usable when named there.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class IgnoredClassDraft: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var text = ""
}

final class IgnoredClassNeighbour: Object {
    @Persisted var text = ""
}

@Suite struct IgnoredClassTests {
    @Test func anIgnoredClassIsLeftOutOfTheDefaultSchema() throws {
        let realm = try Realm(configuration: tempConfig("ignored"))
        let names = Set(realm.schema.objectSchema.map(\.className))
        #expect(names.contains("IgnoredClassNeighbour"))
        #expect(!names.contains("IgnoredClassDraft"))
    }

    @Test func anIgnoredClassNamedInObjectTypesIsUsed() throws {
        var configuration = tempConfig("named")
        configuration.objectTypes = [IgnoredClassDraft.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(IgnoredClassDraft.self, value: ["text": "kept"]) }
        #expect(realm.objects(IgnoredClassDraft.self).map(\.text) == ["kept"])
        #expect(realm.schema.objectSchema.map(\.className) == ["IgnoredClassDraft"])
    }
}
