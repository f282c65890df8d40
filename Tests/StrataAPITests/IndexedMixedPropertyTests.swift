// A mixed property declared indexed is accepted and listed as indexed; queries on it find the
// same objects as without the declaration (they read every object).
import Foundation
import Testing
import Strata
import StrataTestSupport

final class IndexedMixedHolder: Object {
    @Persisted(indexed: true) var value: AnyRealmValue
    @Persisted var label = ""
}

@Suite struct IndexedMixedPropertyTests {
    @Test func anIndexedMixedPropertyIsListedAndQueried() throws {
        #expect(IndexedMixedHolder().objectSchema["value"]?.isIndexed == true)
        var configuration = tempConfig("indexed-mixed")
        configuration.objectTypes = [IndexedMixedHolder.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.create(IndexedMixedHolder.self, value: ["value": AnyRealmValue.int(3), "label": "three"])
            realm.create(IndexedMixedHolder.self, value: ["value": AnyRealmValue.string("3"), "label": "text"])
            realm.create(IndexedMixedHolder.self, value: ["label": "none"])
        }
        #expect(realm.schema["IndexedMixedHolder"]?["value"]?.isIndexed == true)
        #expect(realm.objects(IndexedMixedHolder.self).filter("value == 3").map(\.label) == ["three"])
        #expect(realm.objects(IndexedMixedHolder.self).filter("value == '3'").map(\.label) == ["text"])
        #expect(realm.objects(IndexedMixedHolder.self).where { $0.value == .none }.map(\.label) == ["none"])
        try realm.write { realm.objects(IndexedMixedHolder.self).filter("label == 'text'").first?.value = .int(3) }
        #expect(realm.objects(IndexedMixedHolder.self).filter("value == 3").map(\.label).sorted() == ["text", "three"])
    }
}
