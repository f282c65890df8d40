// A nil given through key-value coding sets an optional property to nil, however it arrives: the
// `nil` literal, `NSNull`, or a nil of some optional type boxed in `Any` (a value read from a
// `[String: Any]`, a generic helper's `T?`).
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct SetValueNilTests {
    /// The nils a caller can hand to `setValue(_:forKey:)`.
    static var nils: [(name: String, value: Any?)] {
        [("literal", nil), ("NSNull", NSNull()), ("Int? boxed", Int?.none as Any),
         ("String? boxed", String?.none as Any), ("Any? boxed", Any?.none as Any)]
    }
    static let optionalKeys = ["optInt", "optString", "optDate", "optUUID", "optOid"]

    private func filled() -> AllTypes {
        let object = AllTypes()
        object.optInt = 7
        object.optString = "x"
        object.optDate = Date(timeIntervalSince1970: 1)
        object.optUUID = UUID()
        object.optOid = ObjectId.generate()
        return object
    }

    private func allNil(_ object: AllTypes) -> Bool {
        object.optInt == nil && object.optString == nil && object.optDate == nil && object.optUUID == nil && object.optOid == nil
    }

    @Test(arguments: 0..<5) func anUnmanagedObjectTakesEveryKindOfNil(index: Int) {
        let (name, value) = Self.nils[index]
        let viaSetValue = filled(), viaSubscript = filled()
        for key in Self.optionalKeys {
            viaSetValue.setValue(value, forKey: key)
            viaSubscript[key] = value
        }
        #expect(allNil(viaSetValue), "\(name)")
        #expect(allNil(viaSubscript), "\(name)")
    }

    @Test(arguments: 0..<5) func aManagedObjectStoresEveryKindOfNil(index: Int) throws {
        let (name, value) = Self.nils[index]
        let realm = try Realm(configuration: tempConfig())
        let object = filled()
        try realm.write { realm.add(object) }
        try realm.write {
            for key in Self.optionalKeys { try object.setValueThrowing(value, forKey: key) }
        }
        let stored = try #require(realm.objects(AllTypes.self).first)
        #expect(allNil(stored), "\(name)")
    }

    @Test func anOptionalLinkTakesABoxedNil() throws {
        let realm = try Realm(configuration: tempConfig())
        let dog = Dog(value: ["id": "1", "name": "Rex", "owner": Person(value: ["name": "Ann"])])
        try realm.write { realm.add(dog) }
        try realm.write { try dog.setValueThrowing(Person?.none as Any, forKey: "owner") }
        #expect(realm.objects(Dog.self).first?.owner == nil)
        #expect(realm.objects(Person.self).count == 1)
    }

    @Test func valueDictionariesMayHoldBoxedNils() throws {
        let realm = try Realm(configuration: tempConfig())
        let values: [String: Any] = ["optInt": Int?.none as Any, "optString": NSNull(), "i": 3]
        let unmanaged = AllTypes(value: values)
        #expect(unmanaged.optInt == nil && unmanaged.optString == nil && unmanaged.i == 3)
        let created = try realm.write { realm.create(AllTypes.self, value: values) }
        #expect(created.optInt == nil && created.optString == nil && created.i == 3)
    }

    @Test func aNilForANonOptionalPropertyIsATypedError() throws {
        let realm = try Realm(configuration: tempConfig())
        let object = AllTypes()
        try realm.write { realm.add(object) }
        #expect(throws: Realm.Error.self) {
            try realm.write { try object.setValueThrowing(Int?.none as Any, forKey: "i") }
        }
        #expect(realm.objects(AllTypes.self).first?.i == 0)
    }
}
