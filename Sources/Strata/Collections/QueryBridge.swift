// The seam with the query engine (Sources/Strata/Query): objects as `QueryValueSource`, key-path
// naming for the typed `where {}` builder, the schema the type checker sees, and the evaluation
// of a `Results`' predicate / sort / distinct.
//
// Invariants:
// - A managed object's query values are read from the realm's current snapshot; links become
//   `.object` references whose identity is (class name, object key), so `==` on objects compares
//   stored identity.
// - Filtering evaluates the predicate on the candidates `Results.keys` found (an index lookup
//   or the whole table, Query/QueryIndexPlan.swift); the key list is cached per change counter
//   like unfiltered results.
import Foundation

extension Object: QueryValueSource {
    /// The value of a persisted property as the query evaluator sees it.
    ///
    /// Links become object references, so `==` on objects compares their stored identity.
    ///
    /// - Parameter key: the name of a persisted property of this object's class.
    /// - Returns: the property's value, ``QueryValue/null`` for `nil`.
    /// - Throws: `Realm.Error` with code `.invalidArgument` when the class has no such property,
    ///   `.invalidSchema` when the class breaks a schema rule.
    public func queryValue(forKey key: String) throws -> QueryValue {
        let info = try ClassInfo.of(type(of: self))
        guard let i = info.columnIndex(named: key) else {
            throw Realm.Error(.invalidArgument, "'\(info.schema.className)' has no property '\(key)'")
        }
        return Object.queryValue(of: info.fields[i].storedAny(self))
    }

    static func queryValue(of value: Any?) -> QueryValue { queryConstant(value) ?? .null }

    /// The query value a Swift value stands for: objects, collections, every stored type (an
    /// enum or a custom-persisted value by its stored form), and any `QueryValueConvertible`;
    /// nil for a value no query can use.
    static func queryConstant(_ value: Any?) -> QueryValue? {
        guard let value else { return .null }
        switch value {
        case let o as Object: return .object(o.queryReference)
        case let c as _QueryCollectionValue: return c._queryValue
        case let id as ObjectId:
            let b = id.array
            return QueryObjectID(bytes: b).map { .objectId($0) } ?? .null
        case let d as Decimal128: return .decimal(d.value)
        case let a as AnyRealmValue: return a.queryValue
        case let convertible as QueryValueConvertible: return convertible.queryValue
        case let stored as any _HasPersistedType: return storedFormConstant(stored)
        default: return QueryValue(converting: value)
        }
    }

    /// The query value of a value's stored form (an enum's raw value); nil for a type stored as
    /// itself, which `queryConstant` would already have converted if it could.
    private static func storedFormConstant<V: _HasPersistedType>(_ value: V) -> QueryValue? {
        let stored = value._strataPersistedValue
        guard type(of: stored as Any) != type(of: value as Any) else { return QueryValue(converting: value) }
        return queryConstant(stored)
    }

    var queryReference: QueryObjectReference {
        let name = type(of: self).className()
        if let b = _binding { return QueryObjectReference(identity: QueryObjectIdentity(typeName: name, key: b.key), source: self) }
        return QueryObjectReference(identity: QueryObjectIdentity(typeName: name, object: self), source: self)
    }
}

extension Object: QueryKeyPathNaming {
    /// The persisted property name a key path of this class stands for, or `nil` when the key path
    /// is not one of the class's own `@Persisted` properties; the typed query builder uses it to
    /// name properties.
    ///
    /// - Parameter keyPath: a key path rooted at this class.
    public class func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        guard let typed = keyPath as? PartialKeyPath<Self> else { return nil }
        return _strataPropertyName(for: typed)
    }
}

extension Object {
    /// The arguments of a query in Realm's language as query values: objects, collections (of
    /// objects or values, as one list, set or map), and every scalar type.
    ///
    /// - Throws: `.invalidArgument` naming the first argument no query can use.
    static func queryArguments(_ args: [Any]) throws(Realm.Error) -> [QueryValue] {
        var values: [QueryValue] = []
        values.reserveCapacity(args.count)
        for (i, a) in args.enumerated() {
            // The common scalars first, matched by their exact dynamic type (no bridging, so an
            // NSNumber still converts below): each converts as `QueryValue(converting:)` would,
            // which first tries two protocol casts.
            let dynamicType = type(of: a)
            if dynamicType == Int.self, let v = a as? Int { values.append(.int(Int64(v))); continue }
            if dynamicType == Int64.self, let v = a as? Int64 { values.append(.int(v)); continue }
            if dynamicType == Double.self, let v = a as? Double { values.append(.double(v)); continue }
            if dynamicType == String.self, let v = a as? String { values.append(.string(v)); continue }
            if dynamicType == Date.self, let v = a as? Date { values.append(.date(v)); continue }
            if let o = a as? Object { values.append(.object(o.queryReference)); continue }
            if let c = a as? _QueryCollectionValue { values.append(c._queryValue); continue }
            guard let v = queryArgument(a) else {
                throw Realm.Error(.invalidArgument, "query argument \(i) (\(type(of: a))) cannot be used in a query")
            }
            values.append(v)
        }
        return values
    }

    /// One argument as a query value: a scalar, or any value a typed query takes (an enum or a
    /// custom-persisted value by its stored form, a mixed value), or an array of them.
    private static func queryArgument(_ a: Any) -> QueryValue? {
        if let v = QueryValue(converting: a) { return v }
        if let array = a as? [Any] {
            var elements: [QueryValue] = []
            for element in array {
                guard let v = queryArgument(element) else { return nil }
                elements.append(v)
            }
            return .list(elements)
        }
        return queryConstant(a)
    }
}

extension QueryValue {
    /// An embedded object not in a realm: a value compared property by property.
    var isUnmanagedEmbeddedObject: Bool {
        guard case .object(let reference) = self, let object = reference.source as? EmbeddedObject else { return false }
        return object._binding == nil
    }
}

/// Collections that turn into one `QueryValue` (`.list`, `.set`, `.map`).
protocol _QueryCollectionValue {
    var _queryValue: QueryValue { get }
}

extension List: QueryableCollection, _QueryCollectionValue {
    var _queryValue: QueryValue { .list(elements.map { Object.queryValue(of: $0._strataAny) }) }
}

extension MutableSet: QueryableCollection, _QueryCollectionValue {
    var _queryValue: QueryValue { .set(elements.map { Object.queryValue(of: $0._strataAny) }) }
}

extension LinkingObjects: QueryableCollection, _QueryCollectionValue {
    var _queryValue: QueryValue { .list(map { .object($0.queryReference) }) }
}

extension Results: _QueryCollectionValue {
    var _queryValue: QueryValue { .list(map { Object.queryValue(of: $0._strataAny) }) }
}

extension AnyRealmCollection: _QueryCollectionValue {
    var _queryValue: QueryValue { .list(map { Object.queryValue(of: $0._strataAny) }) }
}

extension Map: QueryMapType, _QueryCollectionValue {
    var _queryValue: QueryValue {
        var out: [String: QueryValue] = [:]
        for (k, v) in entries { out[k._strataKeyString] = Object.queryValue(of: v._strataAny) }
        return .map(out)
    }
}

extension SortDescriptor: QuerySortKey {}

extension Schema {
    /// The realm's schema as the query type checker sees it.
    var querySchema: QuerySchema {
        QuerySchema(objectSchema.map { s in
            var converted = QueryObjectSchema(s.className, s.allProperties.map { p in
                let type: QueryPropertyType
                switch p.type {
                case .int: type = .int
                case .bool: type = .bool
                case .float: type = .float
                case .double: type = .double
                case .string: type = .string
                case .data: type = .data
                case .date: type = .date
                case .decimal128: type = .decimal
                case .objectId: type = .objectId
                case .uuid: type = .uuid
                case .object, .linkingObjects: type = .object
                case .any: type = .mixed
                }
                let collection: QueryCollectionKind
                switch p.collection {
                case .none: collection = p.type == .linkingObjects ? .linkingObjects : .single
                case .list: collection = .list
                case .set: collection = .set
                case .map: collection = .map
                }
                return QueryPropertySchema(p.name, type, optional: p.isOptional || (p.type == .object && p.collection == .none),
                                           collection: collection, linkTarget: p.objectClassName)
            })
            converted.isEmbedded = s.isEmbedded
            return converted
        })
    }
}

extension Results {
    /// The schema the type checker checks this collection's queries against: the element class
    /// and every class it reaches.
    var elementQuerySchema: QuerySchema { Schema(objectSchema: ClassInfo.schemaClosure(of: info)).querySchema }
}

extension Results where Element: RealmFetchable {
    /// Returns the objects that also match a query written in Realm's query language.
    ///
    /// Placeholders `%@` stand for values and `%K` for property names, taken from `args` in order.
    /// A query that does not parse or type-check stops the program with a `Strata:` message, as
    /// Realm raises; use ``filtering(_:_:)`` to receive that as an error instead.
    ///
    /// ```swift
    /// let rexes = dogs.filter("name == %@ AND age >= %@", "Rex", 2)
    /// let owned = dogs.filter("owner.name BEGINSWITH[c] 'a'")
    /// ```
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text.
    ///   - args: the values (and property names, for `%K`) the placeholders stand for.
    /// - Returns: new live results; the receiver is unchanged.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try filtering(predicateFormat, args) } catch let error as Realm.Error {
            core.misuse(error.code, error.message)
        } catch {
            core.misuse(.invalidArgument, "\(error)")
        }
    }

    /// Objects matching a Realm query, like `filter(_:_:)`, reporting a rejected query as an
    /// error instead of stopping.
    ///
    /// ```swift
    /// do {
    ///     let puppies = try dogs.filtering("age < %@ AND name BEGINSWITH[c] %@", [2, "r"])
    /// } catch let error as Realm.Error where error.code == .invalidQuery {
    ///     print(error.queryError?.offset ?? 0, error.message)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text, with `%@` / `%K` placeholders for `args`.
    ///   - args: the values (and key paths, for `%K`) the placeholders stand for.
    /// - Throws: `Realm.Error` with code `.invalidQuery` for malformed text, an unknown property,
    ///   a type mismatch or a missing argument (`queryError` gives the kind and the offset), and
    ///   `.invalidArgument` for an argument of a type no query can use.
    public func filtering(_ predicateFormat: String, _ args: [Any]) throws -> Results<Element> {
        try Realm.Error.wrap { try parsedFilter(predicateFormat, args) }
    }

    private func parsedFilter(_ predicateFormat: String, _ args: [Any]) throws -> Results<Element> {
        let values = try Object.queryArguments(args)
        // Repeated queries reuse a parsed template (Query/QueryParseCache.swift); the schema the
        // type checker needs is built only when parsing.
        let info = self.info
        var schema: QuerySchema?
        var predicate = try QueryParseCache.predicate(predicateFormat, arguments: values, info: info) { arguments in
            let s = schema ?? elementQuerySchema
            schema = s
            return try QueryParser.parse(predicateFormat, arguments: arguments, schema: s, typeName: info.schema.className)
        }
        if values.contains(where: \.isUnmanagedEmbeddedObject) {
            predicate = try predicate.comparingEmbeddedValues(schema: schema ?? elementQuerySchema, typeName: info.schema.className)
        }
        return adding(predicate)
    }

    fileprivate func adding(_ predicate: QueryPredicate) -> Results<Element> {
        var r = Results(core: core, info: info)
        r.query = query
        if let existing = query.predicate {
            r.query.predicate = .and([existing, predicate])
        } else {
            r.query.predicate = predicate
        }
        return r
    }

    /// Returns the results sorted by one property.
    ///
    /// - Parameters:
    ///   - keyPath: the property to sort by; a path through to-one links such as `"owner.name"` is
    ///     allowed.
    ///   - ascending: whether smaller values come first (the default).
    /// - Returns: new live results; a previous sort is replaced.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Returns the results sorted by several keys: by the first, then by the second among equal
    /// values of the first, and so on.
    ///
    /// ```swift
    /// let ordered = people.sorted(by: [SortDescriptor(keyPath: "lastName"),
    ///                                  SortDescriptor(keyPath: "age", ascending: false)])
    /// ```
    ///
    /// A key path that names no property, goes on through anything but a to-one link, or ends on
    /// a link or a collection stops the program with a `Strata:` message, as RealmSwift raises.
    ///
    /// - Parameter descriptors: the sort keys, most significant first.
    /// - Returns: new live results; a previous sort is replaced.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let descriptors = Array(descriptors)
        for descriptor in descriptors { SortKeyPathCheck.require(descriptor.keyPath, of: info, for: "sort") }
        var r = Results(core: core, info: info)
        r.query = query
        r.query.sort = descriptors
        return r
    }

    /// Returns the first object of each distinct combination of the values at `keyPaths`, in the
    /// results' order.
    ///
    /// A key path that names no property, goes on through anything but a to-one link, or ends on
    /// a collection stops the program with a `Strata:` message; one ending on a link tells objects
    /// apart by the object linked.
    ///
    /// - Parameter keyPaths: the property names whose values together must differ.
    /// - Returns: new live results.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let keyPaths = Array(keyPaths)
        for keyPath in keyPaths { SortKeyPathCheck.require(keyPath, of: info, for: "distinct") }
        var r = Results(core: core, info: info)
        r.query = query
        r.query.distinct = keyPaths
        return r
    }

}

extension Results where Element: Object {
    /// Returns the objects that also match a typed query built from key paths.
    ///
    /// The closure receives a ``Query`` of the element type; its operators build a predicate that is
    /// checked by the compiler, and evaluated like a text query. A condition the query engine
    /// rejects when it is assembled stops the program with a `Strata:` message.
    ///
    /// ```swift
    /// let puppies = dogs.where { $0.age < 2 && $0.name.starts(with: "R") }
    /// let inTown = people.where { $0.address.city == "Oslo" }
    /// ```
    ///
    /// - Parameter query: builds the condition from a ``Query`` of the element type.
    /// - Returns: new live results; the receiver is unchanged.
    public func `where`(_ query: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        do {
            let predicate = try query(Query<Element>()).predicate()
            // A typed query is well typed by construction, except what only the schema and the
            // shape can tell: a geoWithin's location class and polygon.
            if predicate.containsGeoWithin {
                try predicate.validate(against: elementQuerySchema, type: info.schema.className)
            }
            return adding(predicate)
        } catch {
            core.misuse(.invalidArgument, "\(error)")
        }
    }
}

extension Results {
    /// Applies predicate (unless an exact index lookup already decided it), sort and distinct to
    /// candidate keys (ascending).
    func evaluate(keys: [UInt64], table: Int, predicateDecided: Bool = false) throws -> [UInt64] {
        if (predicateDecided || query.predicate == nil) && query.sort.isEmpty && query.distinct.isEmpty { return keys }
        // Sorting by plain properties reads them from the rows (Collections/RowSort.swift).
        if predicateDecided || query.predicate == nil, query.distinct.isEmpty,
           let sorted = try RowSort.sortedKeys(keys, table: table, by: query.sort, info: info, core: core,
                                               wholeTable: query.base == nil && query.predicate == nil) {
            return sorted
        }
        var objects = keys.map { core.materializeAny(info: info, table: table, key: $0) }
        if let p = query.predicate, !predicateDecided {
            if !core.isFrozen { core.indexing.rowsExamined &+= objects.count }
            let matcher = QueryMatcher(p)
            objects = try objects.filter { try matcher.matches($0) }
        }
        if !query.sort.isEmpty { objects = try QueryOrdering.sorted(objects, by: query.sort) }
        if !query.distinct.isEmpty { objects = try QueryOrdering.distinct(objects, by: query.distinct) }
        return objects.compactMap { $0._binding?.key }
    }
}

extension ClassInfo {
    /// The schemas of `info`'s class and every class it links to.
    static func schemaClosure(of info: ClassInfo) -> [ObjectSchema] {
        ((try? closure(of: [info.type])) ?? [info]).map(\.schema)
    }
}
