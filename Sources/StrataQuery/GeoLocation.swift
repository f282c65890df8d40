// Locations in the query language: the point a location object holds, and the check that the
// left side of a GEOWITHIN links to a location class. A location is an embedded object with
// `coordinates: List<Double>` ([longitude, latitude], an altitude after them is ignored) and
// `type: String`, which must be "Point", as RealmSwift documents it.
//
// Invariants: the class a query tests must be embedded and have both properties (checked when
// the query is built, a typed error otherwise); an object without a location, or whose
// location is not a valid point, is not in any shape.

extension QueryPredicate {
    /// Whether a comparison of the predicate is a GEOWITHIN.
    package var containsGeoWithin: Bool {
        switch self {
        case .truePredicate, .falsePredicate: return false
        case .comparison(let c): return c.op == .geoWithin
        case .and(let operands), .or(let operands): return operands.contains { $0.containsGeoWithin }
        case .not(let operand): return operand.containsGeoWithin
        }
    }
}

/// The point a location object holds, read through the query layer.
struct GeoLocation {
    let latitude: Double
    let longitude: Double

    /// The point of `source`, nil unless its `type` is "Point" and its `coordinates` hold a
    /// longitude and a latitude in range.
    init?(_ source: any QueryValueSource) {
        guard case .string("Point")? = try? source.queryValue(forKey: "type"),
              let coordinates = (try? source.queryValue(forKey: "coordinates"))?.collectionElements,
              coordinates.count >= 2,
              let longitude = QueryValueComparison.doubleValue(coordinates[0]),
              let latitude = QueryValueComparison.doubleValue(coordinates[1]),
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }
}

extension QueryTypeChecker {
    /// Checks that `operand`, the left side of a GEOWITHIN comparison, links to a location class.
    func checkLocation(_ operand: QueryOperandType, name: String) throws(QueryError) {
        guard let target = operand.linkTarget, let objectSchema = schema[target] else { return }
        guard objectSchema.isEmbedded else {
            throw QueryError(.typeMismatch, "GEOWITHIN needs a link to an embedded class, but '\(name)' links to '\(target)', a top-level class")
        }
        let coordinates = objectSchema.property(named: "coordinates")
        let type = objectSchema.property(named: "type")
        guard coordinates?.type == .double, coordinates?.collection == .list,
              type?.type == .string, type?.collection == .single else {
            throw QueryError(.typeMismatch, "'\(name)' links to '\(target)', which is not a location: a location has 'coordinates: List<Double>' and 'type: String'")
        }
    }
}
