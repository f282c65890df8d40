// The shapes of geospatial queries (RealmSwift's GeoPoint, GeoBox, GeoPolygon, GeoCircle and
// Distance): values that only describe a region; none of them is stored. Stored locations are
// embedded objects with `coordinates: List<Double>` ([longitude, latitude]) and `type: String`
// ("Point"), as RealmSwift documents; GeoLocation.swift reads them, and Strata's
// TypedQueryGeo.swift spells the query in the typed builder.
//
// Invariants: a shape that exists is well formed as a value (coordinates in range, no NaN,
// closed rings of at least four points, a radius >= 0); whether a polygon is a valid region
// (edges that do not cross, holes inside the outer ring) is checked when a query uses it
// (GeoRegion.swift), as RealmSwift does.
import Foundation

/// A shape a `geoWithin` query can test locations against: ``GeoBox``, ``GeoPolygon`` or
/// ``GeoCircle``.
public protocol GeoShape: QueryValueConvertible, Sendable {}

/// RealmSwift's name for ``GeoShape``.
public typealias RLMGeospatial = GeoShape

/// A point on the Earth: latitude and longitude in degrees, altitude in meters (not used by
/// queries).
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
    /// Degrees north of the equator, -90...90.
    public let latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public let longitude: Double
    /// Meters, >= 0.
    public let altitude: Double

    /// A point, or nil when a coordinate is out of range or NaN, or the altitude is negative.
    ///
    /// - Parameters:
    ///   - latitude: degrees, -90...90.
    ///   - longitude: degrees, -180...180.
    ///   - altitude: meters, >= 0.
    public init?(latitude: Double, longitude: Double, altitude: Double = 0) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// A point from a `(latitude, longitude)` pair, nil when out of range.
    init?(_ pair: (Double, Double)) {
        self.init(latitude: pair.0, longitude: pair.1)
    }

    public var description: String { "[\(longitude), \(latitude), \(altitude)]" }
}

/// A distance along the Earth's surface, kept as the angle it spans (radians).
public struct Distance: Hashable, Sendable {
    /// The Earth's radius the conversions use, in kilometers.
    static let earthRadiusKilometers = 6378.1
    /// Kilometers per mile.
    static let kilometersPerMile = 1.609344

    /// The angle, in radians.
    public let radians: Double

    private init?(validRadians radians: Double) {
        guard radians >= 0 else { return nil }  // false for NaN too
        self.radians = radians
    }

    /// A distance of `radians` radians; nil when negative or NaN.
    ///
    /// - Parameter radians: the angle at the Earth's center.
    public static func radians(_ radians: Double) -> Distance? { Distance(validRadians: radians) }

    /// A distance of `degrees` degrees; nil when negative or NaN.
    ///
    /// - Parameter degrees: the angle at the Earth's center.
    public static func degrees(_ degrees: Double) -> Distance? { Distance(validRadians: degrees * .pi / 180) }

    /// A distance of `kilometers` km along the surface; nil when negative or NaN.
    ///
    /// - Parameter kilometers: the distance in kilometers.
    public static func kilometers(_ kilometers: Double) -> Distance? {
        Distance(validRadians: kilometers / earthRadiusKilometers)
    }

    /// A distance of `miles` miles along the surface; nil when negative or NaN.
    ///
    /// - Parameter miles: the distance in miles.
    public static func miles(_ miles: Double) -> Distance? {
        Distance(validRadians: miles * kilometersPerMile / earthRadiusKilometers)
    }

    /// The distance in kilometers.
    public func asKilometers() -> Double { radians * Self.earthRadiusKilometers }
    /// The distance in miles.
    public func asMiles() -> Double { asKilometers() / Self.kilometersPerMile }
    /// The angle in degrees.
    public func asDegrees() -> Double { radians * 180 / .pi }
}

/// A latitude/longitude rectangle: every point whose latitude lies between the corners' and
/// whose longitude lies between theirs (eastward from `bottomLeft`, across the 180th meridian
/// when `bottomLeft` is east of `topRight`).
public struct GeoBox: GeoShape, Hashable, CustomStringConvertible {
    /// The south-west corner.
    public let bottomLeft: GeoPoint
    /// The north-east corner.
    public let topRight: GeoPoint

    /// The rectangle between two corners.
    ///
    /// - Parameters:
    ///   - bottomLeft: the south-west corner.
    ///   - topRight: the north-east corner.
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// The rectangle between two `(latitude, longitude)` corners; nil when one is out of range.
    ///
    /// - Parameters:
    ///   - bottomLeft: the south-west corner.
    ///   - topRight: the north-east corner.
    public init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let low = GeoPoint(bottomLeft), let high = GeoPoint(topRight) else { return nil }
        self.init(bottomLeft: low, topRight: high)
    }

    /// The shape as a query constant.
    public var queryValue: QueryValue { .geo(QueryGeoRegion(.box(self))) }
    public var description: String { "GeoBox(\(bottomLeft), \(topRight))" }
}

/// A polygon: an outer ring and holes cut out of it. Each ring is closed (its last point is its
/// first) and has at least three distinct corners; edges are arcs of great circles. The region
/// is the smaller side of the outer ring (less than half the Earth), minus the holes.
public struct GeoPolygon: GeoShape, Hashable, CustomStringConvertible {
    /// The outer boundary, closed.
    public let outerRing: [GeoPoint]
    /// The boundaries of the holes, each closed.
    public let holes: [[GeoPoint]]

    /// A polygon, or nil when a ring has fewer than four points or is not closed.
    ///
    /// - Parameters:
    ///   - outerRing: the outer boundary; its last point equals its first.
    ///   - holes: rings inside the outer one whose insides are left out.
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]] = []) {
        for ring in [outerRing] + holes where ring.count < 4 || ring.first != ring.last { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon with holes given one by one.
    ///
    /// - Parameters:
    ///   - outerRing: the outer boundary; its last point equals its first.
    ///   - holes: rings inside the outer one whose insides are left out.
    public init?(outerRing: [GeoPoint], holes: [GeoPoint]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// A polygon of `(latitude, longitude)` pairs; nil when a pair is out of range or a ring is
    /// not a closed ring of at least four points.
    ///
    /// - Parameters:
    ///   - outerRing: the outer boundary; its last point equals its first.
    ///   - holes: rings inside the outer one whose insides are left out.
    public init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        func points(_ ring: [(Double, Double)]) -> [GeoPoint]? {
            let converted = ring.compactMap(GeoPoint.init)
            return converted.count == ring.count ? converted : nil
        }
        guard let outer = points(outerRing) else { return nil }
        var inner: [[GeoPoint]] = []
        for hole in holes {
            guard let ring = points(hole) else { return nil }
            inner.append(ring)
        }
        self.init(outerRing: outer, holes: inner)
    }

    /// A polygon of `(latitude, longitude)` pairs, its holes given one by one.
    ///
    /// - Parameters:
    ///   - outerRing: the outer boundary; its last point equals its first.
    ///   - holes: rings inside the outer one whose insides are left out.
    public init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// The shape as a query constant.
    public var queryValue: QueryValue { .geo(QueryGeoRegion(.polygon(self))) }
    public var description: String {
        let rings = ([outerRing] + holes).map { "{" + $0.map(\.description).joined(separator: ", ") + "}" }
        return "GeoPolygon(\(rings.joined(separator: ", ")))"
    }
}

/// A circle on the Earth's surface: every point within an angle of its center.
public struct GeoCircle: GeoShape, Hashable, CustomStringConvertible {
    /// The center.
    public let center: GeoPoint
    /// The radius, as the angle at the Earth's center (radians).
    public let radiusInRadians: Double

    /// A circle, or nil when the radius is negative or NaN.
    ///
    /// - Parameters:
    ///   - center: the center.
    ///   - radiusInRadians: the radius as an angle, >= 0.
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radiusInRadians = radiusInRadians
    }

    /// A circle of radius `radius`.
    ///
    /// - Parameters:
    ///   - center: the center.
    ///   - radius: the radius.
    public init?(center: GeoPoint, radius: Distance) {
        self.init(center: center, radiusInRadians: radius.radians)
    }

    /// A circle around a `(latitude, longitude)` center; nil when it is out of range or the
    /// radius is negative or NaN.
    ///
    /// - Parameters:
    ///   - center: the center.
    ///   - radiusInRadians: the radius as an angle, >= 0.
    public init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(center) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle of radius `radius` around a `(latitude, longitude)` center.
    ///
    /// - Parameters:
    ///   - center: the center.
    ///   - radius: the radius.
    public init?(center: (Double, Double), radius: Distance) {
        self.init(center: center, radiusInRadians: radius.radians)
    }

    /// The shape as a query constant.
    public var queryValue: QueryValue { .geo(QueryGeoRegion(.circle(self))) }
    public var description: String { "GeoCircle(\(center), \(radiusInRadians))" }
}
