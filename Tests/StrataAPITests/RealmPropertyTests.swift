// RealmProperty, RealmOptional and RealmEnum: the boxed optional properties of RealmSwift, read and
// written through `.value`, managed and unmanaged, stored as the boxed type would be.
import Foundation
import Strata
import StrataTestSupport
import Testing

enum Shade: Int, RealmEnum { case light = 1, dark = 2 }

final class BoxedProperties: Object {
    @Persisted var name = ""
    @Persisted var age = RealmProperty<Int?>()
    @Persisted var mixed = RealmProperty<AnyRealmValue>()
    @Persisted var weight = RealmOptional<Double>()
    @Persisted var shade = RealmOptional<Shade>()
    @Persisted var plainShade = Shade.light
}

@Suite("RealmProperty and RealmOptional")
struct RealmPropertyTests {
    @Test func unmanagedBoxesHoldTheirValues() {
        let o = BoxedProperties()
        #expect(o.age.value == nil && o.weight.value == nil && o.mixed.value == .none)
        o.age.value = 7
        o.weight.value = 1.5
        o.shade.value = .dark
        o.mixed.value = .string("x")
        #expect(o.age.value == 7 && o.weight.value == 1.5 && o.shade.value == .dark && o.mixed.value == .string("x"))
    }

    @Test func boxesAndObjectsCompareAsRealmSwiftsDo() throws {
        let a = BoxedProperties(), b = BoxedProperties()
        a.age.value = 3
        b.age.value = 3
        #expect(a.age == b.age && a.mixed == b.mixed)
        b.age.value = 4
        #expect(a.age != b.age)
        #expect(a.isEqual(a) && !a.isEqual(b) && !a.isEqual("a"))
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add(a) }
        let again: ObjectBase? = realm.objects(BoxedProperties.self).first
        // No primary key: another accessor of the stored object is not equal, the same one is.
        #expect(!a.isEqual(again) && a.isEqual(a) && a.isSameObject(as: again))
    }

    @Test func addedBoxesAreStoredAndWrittenThroughTheObject() throws {
        let realm = try Realm(configuration: memoryConfig())
        let o = BoxedProperties()
        o.age.value = 30
        o.weight.value = 70.5
        o.shade.value = .dark
        o.mixed.value = .int(4)
        try realm.write { realm.add(o) }
        let read = try #require(realm.objects(BoxedProperties.self).first)
        #expect(read.age.value == 30 && read.weight.value == 70.5 && read.shade.value == .dark && read.mixed.value == .int(4))
        try realm.write {
            read.age.value = nil
            read.weight.value = 2
            read.mixed.value = .string("now a string")
        }
        #expect(o.age.value == nil && o.weight.value == 2 && o.mixed.value == .string("now a string"))
        // Queried as the boxed type would be.
        #expect(realm.objects(BoxedProperties.self).filter("weight == 2 AND age == nil AND shade == 2").count == 1)
        #expect(read.value(forKey: "weight") as? Double == 2)
    }

    @Test func createTakesPlainValuesForBoxes() throws {
        let realm = try Realm(configuration: memoryConfig())
        let o = try realm.write {
            realm.create(BoxedProperties.self, value: ["name": "a", "age": 3, "weight": NSNull(), "shade": 1])
        }
        #expect(o.age.value == 3 && o.weight.value == nil && o.shade.value == .light)
    }

    @Test func aBoxIsStoredAsTheTypeItHolds() throws {
        var configuration = memoryConfig()
        configuration.objectTypes = [BoxedProperties.self]
        let realm = try Realm(configuration: configuration)
        let props = try #require(realm.schema["BoxedProperties"]?.properties)
        let byName = Dictionary(uniqueKeysWithValues: props.map { ($0.name, $0) })
        #expect(byName["age"]?.type == .int && byName["age"]?.isOptional == true)
        #expect(byName["weight"]?.type == .double && byName["weight"]?.isOptional == true)
        #expect(byName["shade"]?.type == .int && byName["shade"]?.isOptional == true)
        #expect(byName["mixed"]?.type == .any)
    }

    @Test func decimalHasADoubleValue() {
        #expect(Decimal128(number: 2.5).doubleValue == 2.5)
        let nan: Decimal128 = "NaN"
        #expect(nan.doubleValue.isNaN)
    }
}
