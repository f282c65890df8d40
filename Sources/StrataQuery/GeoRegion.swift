// QueryGeoRegion: a geospatial shape as a query constant, with the geometry a `geoWithin`
// comparison needs: does a region hold a point, and is a polygon a valid region.
//
// Geometry on the unit sphere (points as 3-D unit vectors):
// - circle: the angle between the center and the point is at most the radius;
// - box: latitude between the corners', longitude in the eastward interval between them;
// - polygon: edges are great-circle arcs. A ring's inside is the side away from the antipode of
//   its corners' mean direction (the smaller side, for any ring less than half the Earth). A
//   point is inside when the path from it to that antipode crosses the ring an odd number of
//   times; the path takes a detour through a point 90 degrees away when the antipode is nearly
//   opposite the point, so every arc of it is well defined.
//
// Invariant: `validate()` runs when a query is built; evaluation assumes a valid region.
import Foundation

/// A geospatial shape inside a query (the constant of a `geoWithin` comparison).
public struct QueryGeoRegion: Hashable, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: the prepared rings are immutable after init.
    enum Shape: Hashable {
        case box(GeoBox)
        case polygon(GeoPolygon)
        case circle(GeoCircle)
    }

    let shape: Shape
    /// The polygon's rings as unit vectors (open: the closing point dropped), outer ring first.
    private let rings: [[Vector]]
    /// A point outside the outer ring (the antipode of its corners' mean direction).
    private let outside: Vector?
    /// The circle's center.
    private let center: Vector?

    init(_ shape: Shape) {
        self.shape = shape
        if case .circle(let circle) = shape { center = Vector(circle.center) } else { center = nil }
        guard case .polygon(let polygon) = shape else {
            rings = []
            outside = nil
            return
        }
        let rings = ([polygon.outerRing] + polygon.holes).map { ring in ring.dropLast().map(Vector.init) }
        self.rings = rings
        let sum = rings[0].reduce(Vector(0, 0, 0), +)
        outside = sum.length > 1e-9 ? (sum * -1).normalized : nil
    }

    public static func == (lhs: QueryGeoRegion, rhs: QueryGeoRegion) -> Bool { lhs.shape == rhs.shape }
    public func hash(into hasher: inout Hasher) { hasher.combine(shape) }

    public var description: String {
        switch shape {
        case .box(let box): return box.description
        case .polygon(let polygon): return polygon.description
        case .circle(let circle): return circle.description
        }
    }

    /// The shape as the value a query argument gives.
    package var argument: any GeoShape {
        switch shape {
        case .box(let box): return box
        case .polygon(let polygon): return polygon
        case .circle(let circle): return circle
        }
    }

    // MARK: - Containment

    /// Whether the region holds the point at `latitude`, `longitude` (degrees).
    func contains(latitude: Double, longitude: Double) -> Bool {
        switch shape {
        case .circle(let circle):
            guard let center else { return false }
            return center.angle(to: Vector(latitude: latitude, longitude: longitude)) <= circle.radiusInRadians
        case .box(let box):
            guard latitude >= box.bottomLeft.latitude, latitude <= box.topRight.latitude else { return false }
            let west = box.bottomLeft.longitude, east = box.topRight.longitude
            return west <= east ? (longitude >= west && longitude <= east) : (longitude >= west || longitude <= east)
        case .polygon:
            let point = Vector(latitude: latitude, longitude: longitude)
            guard inside(point, ring: 0) else { return false }
            for hole in rings.indices.dropFirst() where inside(point, ring: hole) { return false }
            return true
        }
    }

    /// Whether `point` is inside ring `index` (see the file header).
    private func inside(_ point: Vector, ring index: Int) -> Bool {
        guard let outside else { return false }
        var path = [point]
        if point.dot(outside) < -0.5 { path.append(point.perpendicular) }
        path.append(outside)
        let ring = rings[index]
        var crossings = 0
        for step in 0..<(path.count - 1) {
            for i in ring.indices where Vector.arcsCross(path[step], path[step + 1], ring[i], ring[(i + 1) % ring.count]) {
                crossings += 1
            }
        }
        return crossings % 2 == 1
    }

    // MARK: - Validation

    /// Checks that a polygon is a region: each ring has three distinct corners and no crossing
    /// edges, no edge is in two rings, every hole lies strictly inside the outer ring and in no
    /// other hole.
    func validate() throws(QueryError) {
        guard case .polygon = shape else { return }
        func invalid(_ why: String) -> QueryError {
            QueryError(.typeMismatch, "invalid region \(description): \(why)")
        }
        guard outside != nil else { throw invalid("the outer ring encloses no definite side of the Earth") }
        var edges = Set<[Vector]>()
        for (r, ring) in rings.enumerated() {
            guard Set(ring).count >= 3, ring.count == Set(ring).count else {
                throw invalid("ring \(r) needs three distinct corners and no repeated corner")
            }
            for i in ring.indices {
                let edge = [ring[i], ring[(i + 1) % ring.count]].sorted()
                guard edges.insert(edge).inserted else { throw invalid("ring \(r) repeats edge \(i), an edge of another ring") }
                for j in ring.indices where j > i + 1 && !(i == 0 && j == ring.count - 1) {
                    if Vector.arcsCross(ring[i], ring[(i + 1) % ring.count], ring[j], ring[(j + 1) % ring.count]) {
                        throw invalid("edges \(i) and \(j) of ring \(r) cross")
                    }
                }
            }
        }
        for h in rings.indices.dropFirst() {
            for corner in rings[h] where !inside(corner, ring: 0) || onBoundary(corner, ring: 0) {
                throw invalid("hole \(h) is not inside the outer ring")
            }
            for other in rings.indices.dropFirst() where other != h {
                if rings[h].contains(where: { inside($0, ring: other) && !onBoundary($0, ring: other) }) {
                    throw invalid("hole \(h) lies inside hole \(other); holes cannot be nested")
                }
            }
        }
    }

    /// Whether `point` lies on an edge of ring `index` (within about a micrometer).
    private func onBoundary(_ point: Vector, ring index: Int) -> Bool {
        let ring = rings[index]
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            let normal = a.cross(b).normalized
            guard abs(normal.dot(point)) < 1e-13 else { continue }
            if a.cross(point).dot(normal) >= -1e-13, point.cross(b).dot(normal) >= -1e-13 { return true }
        }
        return false
    }
}

/// A 3-D vector; unit vectors stand for points on the sphere.
private struct Vector: Hashable, Comparable {
    var x, y, z: Double

    init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(latitude: Double, longitude: Double) {
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        self.init(cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    init(_ point: GeoPoint) { self.init(latitude: point.latitude, longitude: point.longitude) }

    static func + (a: Vector, b: Vector) -> Vector { Vector(a.x + b.x, a.y + b.y, a.z + b.z) }
    static func * (a: Vector, k: Double) -> Vector { Vector(a.x * k, a.y * k, a.z * k) }
    static func < (a: Vector, b: Vector) -> Bool { (a.x, a.y, a.z) < (b.x, b.y, b.z) }

    func dot(_ b: Vector) -> Double { x * b.x + y * b.y + z * b.z }
    func cross(_ b: Vector) -> Vector { Vector(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
    var length: Double { dot(self).squareRoot() }
    var normalized: Vector { self * (1 / length) }

    /// The angle to `b` (both unit vectors), accurate for small and large angles alike.
    func angle(to b: Vector) -> Double { atan2(cross(b).length, dot(b)) }

    /// A unit vector at a right angle to this one.
    var perpendicular: Vector {
        let axis = abs(x) < 0.6 ? Vector(1, 0, 0) : Vector(0, 1, 0)
        return cross(axis).normalized
    }

    /// Whether the great-circle arcs a–b and c–d (each shorter than half a circle) cross at a
    /// point inside both: c and d lie on opposite sides of a–b's great circle, a and b on
    /// opposite sides of c–d's, and the orientations agree so both arcs meet at the same one of
    /// the two points where the great circles meet.
    static func arcsCross(_ a: Vector, _ b: Vector, _ c: Vector, _ d: Vector) -> Bool {
        let ab = a.cross(b)
        let acb = -ab.dot(c), bda = ab.dot(d)
        guard acb * bda > 0 else { return false }
        let cd = c.cross(d)
        let cbd = -cd.dot(b), dac = cd.dot(a)
        return acb * cbd > 0 && acb * dac > 0
    }
}
