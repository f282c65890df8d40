// Sorting and distinct over QueryValueSource objects, with Realm's ordering.
//
// Invariants:
// - `QueryOrdering.compare` is a total order on QueryValue: nil first, then by kind
//   (bool < number < string < data < date < objectId < uuid < object < list < map); numbers of
//   any kind compare by value (NaN first among numbers).
// - Sorting is stable: objects with equal keys keep their input order.
// - Sort keys are any `QuerySortKey` (the object layer's `SortDescriptor` adopts it).
// - Sort key paths may go through to-one links but not to-many ones. An object whose path stops
//   at a nil link has no value there; it sorts as Realm sorts it, after every object the path
//   reaches when ascending and before them when descending (the reverse of the order), while a
//   nil value the path does reach sorts as nil (first ascending).
// - `distinct` keeps the first object of each distinct key tuple (structural equality of the
//   values, so 1 and 1.0 are distinct; one property always has one type), and leaves out an
//   object whose path stops at a nil link, as Realm does.

/// One sort key: a key path (possibly through to-one links) and a direction.
///
/// Realm's `SortDescriptor(keyPath:ascending:)` is declared by the object layer (next to
/// `Results`); it adopts this protocol with an empty extension, so sorting lives here without two
/// declarations of `SortDescriptor` in the module.
package protocol QuerySortKey {
    var keyPath: String { get }
    var ascending: Bool { get }
}

/// Realm's ordering of values and the sort/distinct algorithms built on it.
package enum QueryOrdering {
    /// Total order: negative when `a` sorts before `b`, zero when equal, positive after.
    package static func compare(_ a: QueryValue, _ b: QueryValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case let (.object(x), .object(y)):
            if x.identity.typeName != y.identity.typeName { return x.identity.typeName < y.identity.typeName ? -1 : 1 }
            return x.identity.key == y.identity.key ? 0 : (x.identity.key < y.identity.key ? -1 : 1)
        case (.list(let x), .list(let y)), (.set(let x), .set(let y)), (.list(let x), .set(let y)), (.set(let x), .list(let y)):
            for (p, q) in zip(x, y) {
                let order = compare(p, q)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case let (.map(x), .map(y)):
            return compare(.list(QueryValue.map(x).collectionElements ?? []), .list(QueryValue.map(y).collectionElements ?? []))
        default:
            if let order = QueryValueComparison.order(a, b) { return order }
            // Only NaN reaches here (numbers that are not ordered): NaN sorts first.
            let (aNaN, bNaN) = (isNaN(a), isNaN(b))
            if aNaN && bNaN { return 0 }
            return aNaN ? -1 : 1
        }
    }

    private static func isNaN(_ value: QueryValue) -> Bool {
        switch value {
        case .double(let d): return d.isNaN
        case .float(let f): return f.isNaN
        case .decimal(let d): return d.isNaN
        default: return false
        }
    }

    private static func rank(_ value: QueryValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal: return 2
        case .string: return 3
        case .data: return 4
        case .date: return 5
        case .objectId: return 6
        case .uuid: return 7
        case .object: return 8
        case .list, .set: return 9
        case .map: return 10
        case .geo: return 11
        }
    }

    /// The value of a sort key path on `object` (nil through a nil link).
    /// - Throws: `QueryError(.typeMismatch)` if the path goes through a to-many property, or the
    ///   source's own error for an unknown property.
    ///   A key path that does not parse is a `.syntax` QueryError.
    static func sortKey(_ keyPath: String, of object: some QueryValueSource) throws -> QueryValue {
        try sortKey(QueryParser.parseKeyPath(keyPath), of: object)
    }

    static func sortKey(_ path: QueryKeyPath, of object: some QueryValueSource) throws -> QueryValue {
        let evaluator = QueryEvaluator(root: object)
        switch try evaluator.resolve(path) {
        case .one(let value): return value
        case .many:
            throw QueryError(.typeMismatch, "cannot sort or distinct by '\(path)': it goes through a to-many property")
        }
    }

    /// Whether a link on `path` (before its last property) is nil for `object`.
    private static func linkEnds(before path: QueryKeyPath, of object: some QueryValueSource) throws -> Bool {
        let evaluator = QueryEvaluator(root: object)
        for length in 1..<path.components.count {
            let prefix = QueryKeyPath(Array(path.components.prefix(length)), variable: path.variable)
            if case .one(let value) = try evaluator.resolve(prefix), value.isNull { return true }
        }
        return false
    }

    /// Compares two objects' key tuples (as returned by `sortKey`) under `descriptors`.
    static func compare<K: QuerySortKey>(keys a: [QueryValue], _ b: [QueryValue], by descriptors: [K]) -> Int {
        compare(keys: a, b, ascending: descriptors.map(\.ascending))
    }

    /// The comparison loop, non-generic: a generic loop over `[K]` instantiated type metadata on
    /// every call (5× slower sorts when measured).
    static func compare(keys a: [QueryValue], _ b: [QueryValue], ascending: [Bool]) -> Int {
        let count = min(ascending.count, a.count, b.count)
        var index = 0
        while index < count {
            let order = compare(a[index], b[index])
            if order != 0 { return ascending[index] ? order : -order }
            index += 1
        }
        return 0
    }

    /// `objects` sorted by `descriptors` (stable).
    /// - Throws: as `sortKey`.
    package static func sorted<S: QueryValueSource, K: QuerySortKey>(_ objects: [S], by descriptors: [K]) throws -> [S] {
        guard !descriptors.isEmpty else { return objects }
        var paths: [QueryKeyPath] = []
        for descriptor in descriptors { paths.append(try QueryParser.parseKeyPath(descriptor.keyPath)) }
        // Keys in one flat array (row i at i * width): no per-row array to retain per comparison.
        let width = paths.count
        var keys: [QueryValue] = []
        keys.reserveCapacity(objects.count * width)
        // Whether the path's links end before its last property (a nil link on the way): such an
        // object sorts after every object the path reaches when ascending and before them when
        // descending, as in Realm (a nil link ranks above every value).
        var unreached: [Bool] = []
        let throughLinks = paths.map { $0.components.count > 1 }
        let anyThroughLinks = throughLinks.contains(true)
        if anyThroughLinks { unreached.reserveCapacity(objects.count * width) }
        for object in objects {
            for (c, path) in paths.enumerated() {
                let key = try sortKey(path, of: object)
                keys.append(key)
                if anyThroughLinks {
                    let ends = throughLinks[c] && key.isNull ? try linkEnds(before: path, of: object) : false
                    unreached.append(ends)
                }
            }
        }
        let ascending = descriptors.map(\.ascending)
        let order = objects.indices.sorted { i, j in
            var column = 0
            while column < width {
                if !unreached.isEmpty, unreached[i * width + column] != unreached[j * width + column] {
                    return ascending[column] ? unreached[j * width + column] : unreached[i * width + column]
                }
                let result = compare(keys[i * width + column], keys[j * width + column])
                if result != 0 { return ascending[column] ? result < 0 : result > 0 }
                column += 1
            }
            return i < j
        }
        return order.map { objects[$0] }
    }

    /// The first object for each distinct combination of values of `keyPaths`, in input order.
    /// An object that a path does not reach (a nil link before its last property) is left out,
    /// as Realm leaves it out: it has no value there to be distinct by.
    /// - Throws: as `sortKey`.
    package static func distinct<S: QueryValueSource>(_ objects: [S], by keyPaths: [String]) throws -> [S] {
        guard !keyPaths.isEmpty else { return objects }
        var paths: [QueryKeyPath] = []
        for keyPath in keyPaths { paths.append(try QueryParser.parseKeyPath(keyPath)) }
        var seen: Set<[QueryValue]> = []
        var result: [S] = []
        objects: for object in objects {
            var key: [QueryValue] = []
            key.reserveCapacity(paths.count)
            for path in paths {
                let value = try sortKey(path, of: object)
                if value.isNull, path.components.count > 1, try linkEnds(before: path, of: object) { continue objects }
                key.append(value)
            }
            if seen.insert(key).inserted { result.append(object) }
        }
        return result
    }
}
