// A type of the app stored as an embedded object through `CustomPersistable` may be declared
// non-optional, as RealmSwift allows: it is added, read back, replaced and queried through the
// embedded object's properties.
import Foundation
import Strata
import Testing

final class MooringSpot: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

struct Mooring: CustomPersistable, Equatable {
    typealias PersistedType = MooringSpot
    var latitude: Double
    var longitude: Double
    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
    init(persistedValue: MooringSpot) {
        latitude = persistedValue.latitude
        longitude = persistedValue.longitude
    }
    var persistableValue: MooringSpot {
        let spot = MooringSpot()
        spot.latitude = latitude
        spot.longitude = longitude
        return spot
    }
}

/// An embedded object with a link: it cannot be compared property by property.
final class BuoyFix: EmbeddedObject {
    @Persisted var label = ""
    @Persisted var tender: Harbour?
}

struct Buoy: CustomPersistable {
    typealias PersistedType = BuoyFix
    var label: String
    init(label: String) { self.label = label }
    init(persistedValue: BuoyFix) { label = persistedValue.label }
    var persistableValue: BuoyFix { BuoyFix(value: ["label": label]) }
}

final class Harbour: Object {
    @Persisted var name = ""
    @Persisted var mooring: Mooring
    @Persisted var spare: Mooring?
    @Persisted var moorings: List<Mooring>
    @Persisted var berths: MutableSet<Mooring>
    @Persisted var byQuay: Map<String, Mooring?>
    @Persisted var buoy: Buoy?
}

@Suite("CustomPersistable stored as an embedded object")
struct CustomEmbeddedPersistableTests {
    private func openRealm() throws -> (Realm, Realm.Configuration) {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Harbour.self, MooringSpot.self, BuoyFix.self]
        return (try Realm(configuration: configuration), configuration)
    }

    @Test func theNonOptionalWrapperIsAnOptionalLinkInTheSchema() throws {
        let (realm, _) = try openRealm()
        let schema = try #require(realm.schema["Harbour"])
        #expect(schema["mooring"]?.type == .object)
        #expect(schema["mooring"]?.objectClassName == "MooringSpot")
        #expect(schema["mooring"]?.isOptional == true)
        #expect(schema["moorings"]?.isOptional == false && schema["moorings"]?.objectClassName == "MooringSpot")
    }

    @Test func listsAndMapsOfTheTypeHoldEmbeddedObjects() throws {
        let (realm, _) = try openRealm()
        let harbour = Harbour()
        harbour.moorings.append(objectsIn: [Mooring(latitude: 1, longitude: 2), Mooring(latitude: 3, longitude: 4)])
        harbour.byQuay["east"] = Mooring(latitude: 5, longitude: 6)
        harbour.byQuay["west"] = nil   // assigning nil through the subscript removes the key
        try realm.write { realm.add(harbour) }
        #expect(Array(harbour.moorings) == [Mooring(latitude: 1, longitude: 2), Mooring(latitude: 3, longitude: 4)])
        #expect(harbour.byQuay["east"] == Mooring(latitude: 5, longitude: 6))
        #expect(harbour.byQuay.count == 1)
        try realm.write { harbour.moorings[0] = Mooring(latitude: 7, longitude: 8) }
        #expect(harbour.moorings.first == Mooring(latitude: 7, longitude: 8))
        #expect(realm.objects(Harbour.self).filter("ANY moorings.latitude == 3").count == 1)
    }

    @Test func aNewObjectHoldsTheValueOfANewEmbeddedObject() {
        let harbour = Harbour()
        #expect(harbour.mooring == Mooring(latitude: 0, longitude: 0))
        #expect(harbour.spare == nil)
    }

    @Test func valuesRoundTripAndReplace() throws {
        let (realm, configuration) = try openRealm()
        let harbour = Harbour()
        harbour.name = "Kiel"
        harbour.mooring = Mooring(latitude: 54.3, longitude: 10.1)
        try realm.write { realm.add(harbour) }

        let seen = try onAnotherThread { [configuration] () -> [Double] in
            let other = try Realm(configuration: configuration)
            let stored = try #require(other.objects(Harbour.self).first)
            return [stored.mooring.latitude, stored.mooring.longitude, stored.spare?.latitude ?? -1]
        }
        #expect(seen == [54.3, 10.1, -1])

        try realm.write {
            harbour.mooring = Mooring(latitude: 1.5, longitude: 2.5)
            harbour.spare = Mooring(latitude: 3, longitude: 4)
        }
        #expect(harbour.mooring == Mooring(latitude: 1.5, longitude: 2.5))
        #expect(harbour.spare == Mooring(latitude: 3, longitude: 4))
        #expect(realm.objects(MooringSpot.self).count == 2)
    }

    @Test func anObjectCreatedWithoutTheValueReadsTheValueOfANewEmbeddedObject() throws {
        let (realm, _) = try openRealm()
        let harbour = try realm.write { realm.create(Harbour.self, value: ["name": "Bergen"] as [String: Any]) }
        #expect(harbour.mooring == Mooring(latitude: 0, longitude: 0))
        let created = try realm.write {
            realm.create(Harbour.self, value: ["name": "Cork", "mooring": ["latitude": 51.9, "longitude": -8.5]] as [String: Any])
        }
        #expect(created.mooring == Mooring(latitude: 51.9, longitude: -8.5))
    }

    @Test func nilForTheNonOptionalValueIsTheValueOfANewEmbeddedObject() throws {
        let (realm, _) = try openRealm()
        let unmanaged = Harbour(value: ["name": "Oban", "mooring": NSNull(), "spare": NSNull()] as [String: Any])
        #expect(unmanaged.mooring == Mooring(latitude: 0, longitude: 0) && unmanaged.spare == nil)
        let created = try realm.write {
            realm.create(Harbour.self, value: ["name": "Wick", "mooring": NSNull()] as [String: Any])
        }
        #expect(created.mooring == Mooring(latitude: 0, longitude: 0))
        try realm.write { created.setValue(nil, forKey: "mooring") }
        #expect(created.mooring == Mooring(latitude: 0, longitude: 0))
    }

    @Test func aValueIsComparedPropertyByProperty() throws {
        let (realm, _) = try openRealm()
        try realm.write {
            for (name, latitude, longitude) in [("A", 1.0, 2.0), ("B", 1.0, 3.0), ("C", 2.0, 2.0)] {
                let harbour = Harbour()
                harbour.name = name
                harbour.mooring = Mooring(latitude: latitude, longitude: longitude)
                if name != "A" { harbour.spare = Mooring(latitude: 9, longitude: 9) }
                if name == "A" {
                    harbour.moorings.append(Mooring(latitude: 1, longitude: 2))
                    harbour.byQuay["x"] = Mooring(latitude: 1, longitude: 2)
                }
                if name == "B" { harbour.moorings.append(objectsIn: [Mooring(latitude: 5, longitude: 5), Mooring(latitude: 6, longitude: 6)]) }
                realm.add(harbour)
            }
        }
        let harbours = realm.objects(Harbour.self)
        func names(_ query: (Query<Harbour>) -> Query<Bool>) -> [String] { harbours.where(query).map(\.name).sorted() }
        let point = Mooring(latitude: 1, longitude: 2)
        #expect(names { $0.mooring == point } == ["A"])
        #expect(names { $0.mooring != point } == ["B", "C"])
        #expect(names { $0.spare == Mooring(latitude: 9, longitude: 9) } == ["B", "C"])
        #expect(names { $0.spare != Mooring(latitude: 9, longitude: 9) } == ["A"])   // a nil link differs
        // Through a collection: some element equal; or elements, none equal.
        #expect(names { $0.moorings == point } == ["A"])
        #expect(names { $0.moorings != point } == ["B"])
        #expect(names { $0.byQuay.values == point } == ["A"])
        #expect(names { $0.mooring == point || $0.name == "C" } == ["A", "C"])
        // Written out as RealmSwift writes it (the value an argument), the text selects the same.
        let written: [(String, (Query<Harbour>) -> Query<Bool>)] = [
            ("(mooring == %@)", { $0.mooring == point }),
            ("(mooring != %@)", { $0.mooring != point }),
            ("(spare != %@)", { $0.spare != Mooring(latitude: 9, longitude: 9) }),
            ("(ANY moorings == %@)", { $0.moorings == point }),
            ("(ANY moorings != %@)", { $0.moorings != point }),
            ("(ANY byQuay.@allValues == %@)", { $0.byQuay.values == point }),
            ("((mooring == %@) || (name == %@))", { $0.mooring == point || $0.name == "C" }),
        ]
        for (expected, query) in written {
            let (text, arguments) = query(Query<Harbour>._constructForTesting())._constructPredicate()
            #expect(text == expected)
            #expect(try harbours.filtering(text, arguments).map(\.name).sorted() == names(query), "\(text)")
        }
    }

    @Test func anEmbeddedValueWithALinkInQueryTextIsATypedError() throws {
        let (realm, _) = try openRealm()
        #expect(throws: Realm.Error.self) {
            try realm.objects(Harbour.self).filtering("buoy == %@", [Buoy(label: "red")])
        }
    }

    @Test func anEmbeddedValueWithALinkCannotBeComparedAndStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "memberwise-link")
            configuration.objectTypes = [Harbour.self, MooringSpot.self, BuoyFix.self]
            _ = try Realm(configuration: configuration).objects(Harbour.self).where { $0.buoy == Buoy(label: "red") }
        }
    }

    @Test func queriesReachTheEmbeddedProperties() throws {
        let (realm, _) = try openRealm()
        try realm.write {
            for (name, latitude) in [("Oslo", 59.9), ("Genoa", 44.4)] {
                let harbour = Harbour()
                harbour.name = name
                harbour.mooring = Mooring(latitude: latitude, longitude: 10)
                realm.add(harbour)
            }
        }
        let harbours = realm.objects(Harbour.self)
        #expect(harbours.filter("mooring.latitude > 50").map(\.name) == ["Oslo"])
        #expect(harbours.where { $0.mooring.persistableValue.latitude < 50 }.map(\.name) == ["Genoa"])
        #expect(harbours.where { $0.spare == nil }.count == 2)
    }
}
