// Types of the app stored through `CustomPersistable` / `FailableCustomPersistable`: properties,
// optionals, collections, key-value coding and queries all see the persisted value.
import Foundation
import Strata
import Testing

struct Celsius: CustomPersistable {
    typealias PersistedType = Double
    var degrees: Double
    init(_ degrees: Double) { self.degrees = degrees }
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

struct Tag: CustomPersistable {
    typealias PersistedType = String
    var name: String
    init(persistedValue: String) { name = persistedValue }
    var persistableValue: String { name }
}

/// A share of a whole: stored values outside 0...100 have no `Percent`.
struct Percent: FailableCustomPersistable {
    typealias PersistedType = Int
    var value: Int
    init(unchecked value: Int) { self.value = value }
    init?(persistedValue: Int) {
        guard (0...100).contains(persistedValue) else { return nil }
        value = persistedValue
    }
    var persistableValue: Int { value }
}

final class Greenhouse: Object {
    @Persisted var name = ""
    @Persisted var temperature = Celsius(21)
    @Persisted var lastFrost: Celsius?
    @Persisted var readings: List<Celsius>
    @Persisted var tags: MutableSet<Tag>
    @Persisted var byZone: Map<String, Celsius>
    @Persisted var humidity: Percent
    @Persisted var lastHumidity: Percent?
    @Persisted var humidityLog: List<Percent?>
    @Persisted var humidityByZone: Map<String, Percent?>
}

@Suite("CustomPersistable")
struct CustomPersistableTests {
    private func openRealm() throws -> (Realm, Realm.Configuration) {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Greenhouse.self]
        return (try Realm(configuration: configuration), configuration)
    }

    @Test func theSchemaHoldsThePersistedTypes() throws {
        let (realm, _) = try openRealm()
        let schema = try #require(realm.schema["Greenhouse"])
        #expect(schema["temperature"]?.type == .double)
        #expect(schema["temperature"]?.isOptional == false)
        #expect(schema["lastFrost"]?.isOptional == true)
        #expect(schema["tags"]?.type == .string)
        #expect(schema["humidity"]?.type == .int)
    }

    @Test func defaultsComeFromTheDeclarationOrThePersistedDefault() {
        let house = Greenhouse()
        #expect(house.temperature == Celsius(21))
        #expect(house.lastFrost == nil)
        #expect(house.humidity == Percent(unchecked: 0))
    }

    @Test func valuesRoundTripThroughTheFile() throws {
        let (realm, configuration) = try openRealm()
        let house = Greenhouse()
        house.name = "north"
        house.temperature = Celsius(18.5)
        house.lastFrost = Celsius(-2)
        house.readings.append(objectsIn: [Celsius(17), Celsius(19.25)])
        house.tags.insert(Tag(persistedValue: "tomatoes"))
        house.byZone["east"] = Celsius(22)
        house.humidity = Percent(unchecked: 64)
        try realm.write { realm.add(house) }

        let seen = try onAnotherThread { [configuration] () -> [String] in
            let other = try Realm(configuration: configuration)
            let stored = try #require(other.objects(Greenhouse.self).first)
            return ["\(stored.temperature.degrees)", "\(stored.lastFrost?.degrees ?? .nan)",
                    stored.readings.map { "\($0.degrees)" }.joined(separator: ","),
                    stored.tags.map(\.name).joined(), "\(stored.byZone["east"]?.degrees ?? .nan)",
                    "\(stored.humidity.value)"]
        }
        #expect(seen == ["18.5", "-2.0", "17.0,19.25", "tomatoes", "22.0", "64"])

        try realm.write { house.lastFrost = nil }
        #expect(house.lastFrost == nil)
    }

    @Test func keyValueCodingSeesThePersistedValue() throws {
        let (realm, _) = try openRealm()
        let house = Greenhouse()
        house.temperature = Celsius(30)
        #expect(house.value(forKey: "temperature") as? Double == 30)
        try realm.write {
            realm.add(house)
            house.setValue(12.5, forKey: "temperature")
            house.setValue(Celsius(4), forKey: "lastFrost")
        }
        #expect(house.temperature == Celsius(12.5))
        #expect(house.value(forKey: "lastFrost") as? Double == 4)
        let created = try realm.write { realm.create(Greenhouse.self, value: ["temperature": 40.0, "humidity": 55] as [String: Any]) }
        #expect(created.temperature == Celsius(40))
        #expect(created.humidity.value == 55)
    }

    @Test func queriesCompareThePersistedValue() throws {
        let (realm, _) = try openRealm()
        try realm.write {
            for (name, degrees) in [("cold", 5.0), ("mild", 18.0), ("hot", 31.0)] {
                let house = Greenhouse()
                house.name = name
                house.temperature = Celsius(degrees)
                house.readings.append(Celsius(degrees + 1))
                realm.add(house)
            }
        }
        let houses = realm.objects(Greenhouse.self)
        #expect(houses.where { $0.temperature == Celsius(18) }.map(\.name) == ["mild"])
        #expect(houses.where { $0.temperature.persistableValue > 10 }.map(\.name).sorted() == ["hot", "mild"])
        #expect(houses.where { $0.lastFrost == nil }.count == 3)
        #expect(houses.filter("temperature < %@", Celsius(18)).map(\.name) == ["cold"])
        #expect(houses.filter("temperature < 6").map(\.name) == ["cold"])
        #expect(houses.filter("ANY readings == %@", Celsius(32)).map(\.name) == ["hot"])
        #expect(houses.sorted(byKeyPath: "temperature", ascending: false).map(\.name) == ["hot", "mild", "cold"])
    }

    @Test func aStoredValueAFailableTypeCannotConvertReadsAsNilWhereOptional() throws {
        let (realm, _) = try openRealm()
        let house = Greenhouse()
        house.humidity = Percent(unchecked: 50)
        house.lastHumidity = Percent(unchecked: 140)
        house.humidityLog.append(objectsIn: [Percent(unchecked: 30), Percent(unchecked: -1), nil])
        house.humidityByZone["west"] = Percent(unchecked: 101)
        house.humidityByZone["east"] = Percent(unchecked: 99)
        try realm.write { realm.add(house) }

        #expect(house.humidity == Percent(unchecked: 50))
        #expect(house.lastHumidity == nil)
        #expect(Array(house.humidityLog) == [Percent(unchecked: 30), nil, nil])
        #expect(house.humidityByZone["west"] == .some(nil))
        #expect(house.humidityByZone["east"] == .some(Percent(unchecked: 99)))
        #expect(house.value(forKey: "lastHumidity") == nil)
        // The persisted value is still there, and queries reach it.
        let houses = realm.objects(Greenhouse.self)
        #expect(houses.where { $0.lastHumidity.persistableValue == 140 }.count == 1)
        #expect(houses.filter("lastHumidity > 100").count == 1)
    }

    @Test func aLooseValueAFailableTypeCannotConvertFailsTheWrite() throws {
        let (realm, _) = try openRealm()
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(Greenhouse.self, value: ["name": "bad", "humidity": 250]) }
        }
        #expect(realm.objects(Greenhouse.self).isEmpty)
        let house = Greenhouse()
        #expect(throws: Realm.Error.self) { try house.setValueThrowing(-3, forKey: "humidity") }
        #expect(house.humidity == Percent(unchecked: 0))
    }
}
