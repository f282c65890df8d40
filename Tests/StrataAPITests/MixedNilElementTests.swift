// A nil inside a Swift array of optionals (`["hello", nil]`, given as `Any`) is a nil mixed
// value, for a list of mixed values and for a mixed property holding an array.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class MixedNilHolder: Object {
    @Persisted var values: List<AnyRealmValue>
    @Persisted var single: AnyRealmValue
}

@Suite struct MixedNilElementTests {
    @Test func nilElementsOfAnOptionalArrayAreNilMixedValues() throws {
        var configuration = tempConfig("mixed-nil")
        configuration.objectTypes = [MixedNilHolder.self]
        let realm = try Realm(configuration: configuration)
        let words: [String?] = ["hello", nil]
        let numbers: [Int?] = [nil, 3]
        let holder = try realm.write { realm.create(MixedNilHolder.self, value: ["values": words, "single": numbers]) }
        #expect(Array(holder.values) == [.string("hello"), .none])
        #expect(holder.single.listValue.map(Array.init) == [.none, .int(3)])
        // Something that is neither a value nor nil is still refused.
        #expect { try realm.write { realm.create(MixedNilHolder.self, value: ["values": [NSObject()]]) } } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        #expect(realm.objects(MixedNilHolder.self).count == 1)
    }
}
