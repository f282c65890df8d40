// The geospatial example of Strata.docc's "Queries" article, as it shows it.
import Foundation
import Strata
import Testing

final class Location: EmbeddedObject {
    @Persisted private var coordinates: List<Double>
    @Persisted private var type = "Point"

    convenience init(latitude: Double, longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

final class Cafe: Object {
    @Persisted var name = ""
    @Persisted var location: Location?
}

extension ArticleExample {
    @Suite struct QueriesGeoExampleTests {
        @Test func cafesNearAPointAndInABox() throws {
            let directory = try TemporaryDirectory()
            var configuration = Realm.Configuration(fileURL: directory.file("cafes.realm"))
            configuration.objectTypes = [Cafe.self, Location.self]
            let realm = try Realm(configuration: configuration)
            try realm.write {
                // Two cafes in central Oslo (about 1 km apart), one in Bergen, one without a location.
                realm.add(Cafe(value: ["name": "Torget", "location": Location(latitude: 59.9127, longitude: 10.7461)]))
                realm.add(Cafe(value: ["name": "Grunerlokka", "location": Location(latitude: 59.9225, longitude: 10.7590)]))
                realm.add(Cafe(value: ["name": "Bryggen", "location": Location(latitude: 60.3975, longitude: 5.3242)]))
                realm.add(Cafe(value: ["name": "Van"]))
            }

            let cafes = realm.objects(Cafe.self)
            let nearby = cafes.where { $0.location.geoWithin(GeoCircle(center: (59.91, 10.75), radius: .kilometers(2)!)!) }
            let inBox = cafes.filter("location IN %@", GeoBox(bottomLeft: (59.9, 10.7), topRight: (60.0, 10.8))!)

            #expect(Set(nearby.map(\.name)) == ["Torget", "Grunerlokka"])
            #expect(Set(inBox.map(\.name)) == ["Torget", "Grunerlokka"])
        }
    }
}
