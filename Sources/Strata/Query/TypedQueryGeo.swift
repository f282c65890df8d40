// Geospatial queries: `geoWithin` keeps the objects whose location lies in a shape. A location
// is an embedded object with `coordinates: List<Double>` ([longitude, latitude], an altitude
// after them is ignored) and `type: String`, which must be "Point"; RealmSwift documents this
// shape, so models written for it work unchanged:
//
//     class Location: EmbeddedObject {
//         @Persisted private var coordinates: List<Double>
//         @Persisted private var type = "Point"
//     }
//
// The location's shape is checked, and a location read, by the query language
// (StrataQuery's GeoLocation.swift); this file is only the typed builder's spelling.

extension Query where T: OptionalProtocol, T.Wrapped: EmbeddedObject {
    /// A condition: the location this link holds lies in `shape`: `$0.home.geoWithin(box)`.
    ///
    /// An object whose link is nil, or whose location's `type` is not "Point", does not match.
    /// A polygon that is not a valid region, or a link to a class that is not a location, is
    /// rejected when the query is built.
    ///
    /// - Parameter shape: a ``GeoBox``, ``GeoPolygon`` or ``GeoCircle``.
    public func geoWithin<S: GeoShape>(_ shape: S) -> Query<Bool> {
        Self.comparison(self, .geoWithin, .success(.constant(shape.queryValue)), rhsText: nil)
    }
}
