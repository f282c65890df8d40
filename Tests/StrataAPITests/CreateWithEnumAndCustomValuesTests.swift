// `create(_:value:)` and `init(value:)` take, for a property declared as a `PersistableEnum` or a
// `CustomPersistable` type, the case or value itself or its raw / persisted value, and for a
// property declared as the raw or persisted type, a case or custom value of a type stored as it,
// as RealmSwift's bridging of values does; a value that fits neither is refused.
import Foundation
import Strata
import Testing

enum FittingSize: String, PersistableEnum { case small, medium, large }
enum FittingLevel: Int, PersistableEnum { case low = 1, high = 9 }

final class FittingRoom: Object {
    @Persisted var size: FittingSize
    @Persisted var sizeText = ""
    @Persisted var maybeSize: FittingSize?
    @Persisted var level = 0
    @Persisted var sizes: List<FittingSize>
    @Persisted var maybeSizes: List<FittingSize?>
    @Persisted var sizeTexts: List<String>
    @Persisted var levelsByName: Map<String, FittingLevel>
    @Persisted var temperature = Celsius(20)
    @Persisted var degrees = 0.0
    @Persisted var temperatures: List<Celsius>
    @Persisted var degreeLog: List<Double>
}

@Suite("create and init(value:) with enum and custom values")
struct CreateWithEnumAndCustomValuesTests {
    static var values: [String: Any] {
        [
        "size": FittingSize.large, "sizeText": FittingSize.medium, "maybeSize": FittingSize.small,
        "level": FittingLevel.high, "sizes": [FittingSize.small, FittingSize.large],
        "maybeSizes": [FittingSize.medium, nil] as [FittingSize?], "sizeTexts": [FittingSize.large],
        "levelsByName": ["a": FittingLevel.low], "temperature": Celsius(31), "degrees": Celsius(12.5),
        "temperatures": [Celsius(1), Celsius(2)], "degreeLog": [Celsius(3)],
        ]
    }
    static var rawValues: [String: Any] {
        [
        "size": "large", "sizeText": "medium", "maybeSize": "small", "level": 9,
        "sizes": ["small", "large"], "maybeSizes": ["medium", NSNull()], "sizeTexts": ["large"],
        "levelsByName": ["a": 1], "temperature": 31.0, "degrees": 12.5,
        "temperatures": [1.0, 2.0], "degreeLog": [3.0],
        ]
    }

    static func check(_ room: FittingRoom) {
        #expect(room.size == .large)
        #expect(room.sizeText == "medium")
        #expect(room.maybeSize == .small)
        #expect(room.level == 9)
        #expect(Array(room.sizes) == [.small, .large])
        #expect(Array(room.maybeSizes) == [.medium, nil])
        #expect(Array(room.sizeTexts) == ["large"])
        #expect(room.levelsByName["a"] == .low)
        #expect(room.temperature == Celsius(31))
        #expect(room.degrees == 12.5)
        #expect(Array(room.temperatures) == [Celsius(1), Celsius(2)])
        #expect(Array(room.degreeLog) == [3.0])
    }

    /// `raw`: the raw and persisted values; otherwise the cases and custom values.
    @Test(arguments: [false, true])
    func createTakesEitherForm(raw: Bool) throws {
        let values = raw ? Self.rawValues : Self.values
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [FittingRoom.self]))
        let room = try realm.write { realm.create(FittingRoom.self, value: values) }
        Self.check(room)
    }

    @Test(arguments: [false, true])
    func initTakesEitherForm(raw: Bool) {
        Self.check(FittingRoom(value: raw ? Self.rawValues : Self.values))
    }

    @Test func aValueOfAnotherTypeIsRefused() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [FittingRoom.self]))
        for (property, value) in [("size", "huge"), ("size", FittingLevel.low), ("level", FittingSize.small),
                                  ("degrees", Tag(persistedValue: "x")), ("sizes", [FittingLevel.high])] as [(String, Any)] {
            #expect(throws: Realm.Error.self, "\(property)") {
                try realm.write { realm.create(FittingRoom.self, value: [property: value]) }
            }
        }
    }
}
