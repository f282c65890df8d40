// Geospatial queries: shapes as values (their ranges, conversions and equality), and
// `geoWithin` through a link to a location object, in the typed builder and in query text
// (`IN %@`, `GEOWITHIN %@`), with boxes across the 180th meridian, circles, polygons with
// holes, invalid regions and links to classes that are not locations rejected with typed errors.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class GeoSpot: EmbeddedObject {
    @Persisted private(set) var coordinates: List<Double>
    @Persisted var type = "Point"

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

final class GeoVenue: Object {
    @Persisted var name = ""
    @Persisted var spot: GeoSpot?
    @Persisted var bareSpot: GeoBareSpot?
    @Persisted var topLevelSpot: GeoTopLevelSpot?
}

/// Has coordinates but no `type`: not a location.
final class GeoBareSpot: EmbeddedObject {
    @Persisted var coordinates: List<Double>
}

/// Shaped like a location but not embedded.
final class GeoTopLevelSpot: Object {
    @Persisted var coordinates: List<Double>
    @Persisted var type = "Point"
}

@Suite struct GeospatialQueryTests {
    private func populated() throws -> Realm {
        var configuration = tempConfig("geo")
        configuration.objectTypes = [GeoVenue.self, GeoSpot.self, GeoBareSpot.self, GeoTopLevelSpot.self]
        let realm = try Realm(configuration: configuration)
        let places: [(String, GeoSpot?)] = [
            ("Oslo", GeoSpot(59.91, 10.75)), ("Bergen", GeoSpot(60.39, 5.32)), ("Paris", GeoSpot(48.86, 2.35)),
            ("Sydney", GeoSpot(-33.87, 151.21)), ("Suva", GeoSpot(-18.14, 178.44)), ("Tonga", GeoSpot(-21.14, -175.2)),
            ("Nowhere", nil),
        ]
        try realm.write {
            for (name, spot) in places { realm.add(GeoVenue(value: ["name": name, "spot": spot as Any])) }
            let area = GeoSpot(59.91, 10.75)
            area.type = "Polygon"
            realm.add(GeoVenue(value: ["name": "NotAPoint", "spot": area]))
        }
        return realm
    }

    /// The names `shape` selects, the same through the typed builder, `IN %@` and `GEOWITHIN %@`.
    private func names(_ realm: Realm, _ shape: some GeoShape) throws -> [String] {
        let venues = realm.objects(GeoVenue.self)
        let typed = venues.where { $0.spot.geoWithin(shape) }.map(\.name).sorted()
        #expect(try venues.filtering("spot IN %@", [shape]).map(\.name).sorted() == typed)
        #expect(venues.filter("spot GEOWITHIN %@", shape).map(\.name).sorted() == typed)
        return typed
    }

    private func circle(_ latitude: Double, _ longitude: Double, kilometers: Double) throws -> GeoCircle {
        let radius = try #require(Distance.kilometers(kilometers))
        return try #require(GeoCircle(center: (latitude, longitude), radius: radius))
    }

    @Test func shapesCheckTheirValues() throws {
        #expect(GeoPoint(latitude: 90, longitude: -180) != nil)
        #expect(GeoPoint(latitude: 90.000001, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: 180.5) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: 0, altitude: -1) == nil)
        #expect(GeoBox(bottomLeft: (-91, 0), topRight: (0, 0)) == nil)
        #expect(GeoCircle(center: (0, 0), radiusInRadians: -1) == nil)
        #expect(GeoCircle(center: (0, 0), radiusInRadians: .nan) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 0)]) == nil)                  // three points
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (3, 3)]) == nil)          // not closed
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)], holes: [(0, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)]) != nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)]) == GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)]))
        #expect(GeoCircle(center: (1, 2), radiusInRadians: 1) != GeoCircle(center: (1, 2), radiusInRadians: 2))
    }

    @Test func distancesConvertThroughTheEarthsRadius() throws {
        #expect(Distance.kilometers(-1) == nil && Distance.miles(.nan) == nil && Distance.degrees(-0.1) == nil)
        let quarter = try #require(Distance.degrees(90))
        #expect(abs(quarter.radians - .pi / 2) < 1e-12)
        let kilometers = try #require(Distance.kilometers(6378.1))
        #expect(abs(kilometers.radians - 1) < 1e-12)
        #expect(abs(kilometers.asMiles() - 6378.1 / 1.609344) < 1e-9)
        let miles = try #require(Distance.miles(100))
        #expect(abs(miles.asKilometers() - 160.9344) < 1e-9)
        let half = try #require(Distance.radians(.pi))
        #expect(abs(half.asDegrees() - 180) < 1e-12)
    }

    @Test func boxesIncludingOneAcrossTheAntimeridian() throws {
        let realm = try populated()
        #expect(try names(realm, try #require(GeoBox(bottomLeft: (58, 4), topRight: (61, 11)))) == ["Bergen", "Oslo"])
        #expect(try names(realm, try #require(GeoBox(bottomLeft: (-25, 170), topRight: (-10, -170)))) == ["Suva", "Tonga"])
        #expect(try names(realm, try #require(GeoBox(bottomLeft: (-90, -180), topRight: (90, 180)))).count == 6)
    }

    @Test func circlesMeasureAlongTheSurface() throws {
        let realm = try populated()
        // Oslo–Bergen is about 305 km.
        #expect(try names(realm, try circle(59.91, 10.75, kilometers: 100)) == ["Oslo"])
        #expect(try names(realm, try circle(59.91, 10.75, kilometers: 350)) == ["Bergen", "Oslo"])
        // Across the antimeridian: Suva–Tonga is about 700 km.
        #expect(try names(realm, try circle(-18.14, 178.44, kilometers: 800)) == ["Suva", "Tonga"])
        #expect(try names(realm, try circle(-18.14, 178.44, kilometers: 600)) == ["Suva"])
    }

    @Test func polygonsWithHoles() throws {
        let realm = try populated()
        let europe: [(Double, Double)] = [(40, -10), (40, 20), (65, 20), (65, -10), (40, -10)]
        #expect(try names(realm, try #require(GeoPolygon(outerRing: europe))) == ["Bergen", "Oslo", "Paris"])
        let aroundOslo: [(Double, Double)] = [(59, 10), (59, 12), (61, 12), (61, 10), (59, 10)]
        #expect(try names(realm, try #require(GeoPolygon(outerRing: europe, holes: aroundOslo))) == ["Bergen", "Paris"])
        // The same ring in the other direction is the same region.
        #expect(try names(realm, try #require(GeoPolygon(outerRing: europe.reversed()))) == ["Bergen", "Oslo", "Paris"])
        // A wide triangle across the antimeridian. Its edge from (-10, -170) toward (-60, 100)
        // leaves heading about 30 degrees west of south, so at Tonga's longitude it is near
        // -19 degrees: Tonga (-21.1) lies beyond it, Suva and Sydney inside.
        let wide: [(Double, Double)] = [(-60, 100), (10, 170), (-10, -170), (-60, 100)]
        #expect(try names(realm, try #require(GeoPolygon(outerRing: wide))) == ["Suva", "Sydney"])
        let wider: [(Double, Double)] = [(-60, 100), (10, 170), (-10, -165), (-40, -165), (-60, 100)]
        #expect(try names(realm, try #require(GeoPolygon(outerRing: wider))) == ["Suva", "Sydney", "Tonga"])
    }

    @Test func invalidRegionsAreTypedErrors() throws {
        let realm = try populated()
        let venues = realm.objects(GeoVenue.self)
        func rejected(_ polygon: GeoPolygon?) throws -> Bool {
            let shape = try #require(polygon)
            do {
                _ = try venues.filtering("spot IN %@", [shape])
                return false
            } catch let error as Realm.Error {
                return error.code == .invalidQuery
            }
        }
        // A bow tie: edges 0 and 2 cross.
        #expect(try rejected(GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 1), (1, 0), (0, 0)])))
        let square: [(Double, Double)] = [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)]
        // A hole reaching outside the outer ring, one on its edge, nested holes, a shared edge.
        #expect(try rejected(GeoPolygon(outerRing: square, holes: [(1, 1), (1, 5), (2, 5), (2, 1), (1, 1)])))
        #expect(try rejected(GeoPolygon(outerRing: square, holes: [(0, 1), (1, 1), (1, 2), (0, 2), (0, 1)])))
        #expect(try rejected(GeoPolygon(outerRing: square, holes: [(1, 1), (1, 3), (3, 3), (3, 1), (1, 1)], [(1.5, 1.5), (1.5, 2), (2, 2), (2, 1.5), (1.5, 1.5)])))
        #expect(try rejected(GeoPolygon(outerRing: square, holes: [(0, 0), (0, 4), (2, 2), (0, 0)])))
        // Valid with a hole strictly inside.
        #expect(try !rejected(GeoPolygon(outerRing: square, holes: [(1, 1), (1, 3), (3, 3), (3, 1), (1, 1)])))
    }

    @Test func onlyLocationsCanBeTested() throws {
        let realm = try populated()
        let venues = realm.objects(GeoVenue.self)
        let circle = try #require(GeoCircle(center: (0, 0), radiusInRadians: 1))
        for query in ["bareSpot IN %@", "topLevelSpot GEOWITHIN %@", "name IN %@", "spot GEOWITHIN %@ "] {
            let argument: Any = query.hasSuffix(" ") ? "not a shape" : circle
            #expect { try venues.filtering(query, [argument]) } throws: { ($0 as? Realm.Error)?.code == .invalidQuery }
        }
    }

    @Test func aTypedQueryWithAnInvalidPolygonStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = tempConfig("geo-stop-polygon")
            configuration.objectTypes = [GeoVenue.self, GeoSpot.self, GeoBareSpot.self, GeoTopLevelSpot.self]
            let realm = try Realm(configuration: configuration)
            let bowTie = GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 1), (1, 0), (0, 0)])!
            _ = realm.objects(GeoVenue.self).where { $0.spot.geoWithin(bowTie) }
        }
    }

    @Test func aTypedQueryOnAClassThatIsNotALocationStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = tempConfig("geo-stop")
            configuration.objectTypes = [GeoVenue.self, GeoSpot.self, GeoBareSpot.self, GeoTopLevelSpot.self]
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(GeoVenue.self).where { $0.bareSpot.geoWithin(GeoCircle(center: (0, 0), radiusInRadians: 1)!) }
        }
    }
}
