// `==` / `!=` with a value of a custom type stored as an embedded object
// (`$0.position == Point(x: 1, y: 2)`): an embedded object has no identity of its own, so the
// comparison is made property by property, as RealmSwift makes it.
//
// Semantics (RealmSwift's):
// - To one: `path == v` is `path.p1 == v.p1 AND path.p2 == v.p2 …`; `!=` is its negation (a nil
//   link differs from every value).
// - Through a collection (`$0.list == v`, `$0.map.values == v`): `==` holds when some element is
//   equal property by property; `!=` when the collection has elements and none is equal.
// - A property that is a link or a collection cannot be compared this way: the query records an
//   `.unsupported` error (running it stops, as RealmSwift raises).
import Foundation

extension Query {
    /// The embedded object a value of a custom-persisted type stands for; nil for any other value.
    static func memberwiseObject(_ value: Any?) -> EmbeddedObject? {
        guard let custom = value as? any _CustomPersistable else { return nil }
        return custom.persistableValue as? EmbeddedObject
    }

    /// `lhs op value` for a value stored as an embedded object; `through` tells whether `lhs` reads
    /// a collection's elements (a collection property, map values, or a path through one).
    static func memberwise(_ lhs: Query<T>, _ op: QueryOperator, _ object: EmbeddedObject, through collection: Bool) -> Query<Bool> {
        guard case .expression(.keyPath(let path)) = lhs.node else {
            if case .failure(let error) = lhs.node { return Query<Bool>(.failure(error)) }
            return Query<Bool>(.failure(QueryError(.unsupported, "an embedded value can only be compared with a property")))
        }
        guard collection || lhs.collection != nil else {
            return Query<Bool>(memberwiseNode(object, at: path, negated: op == .notEqual), collection: nil)
        }
        // Every element is compared with the whole value: a SUBQUERY over the collection, whose
        // element path is what `lhs` reads after the collection.
        let variable = "$member"
        let collectionPath = lhs.collection ?? path
        let element = QueryKeyPath(Array(path.components.dropFirst(lhs.collection == nil ? path.components.count : collectionPath.components.count)),
                                   variable: variable)
        let matching: QueryPredicate
        switch memberwiseNode(object, at: element, negated: false) {
        case .predicate(let predicate): matching = predicate
        case .failure(let error): return Query<Bool>(.failure(error))
        case .expression: return Query<Bool>(.failure(QueryError(.unsupported, "an embedded value cannot be compared here")))
        }
        let count = QueryExpression.subqueryCount(collection: collectionPath, variable: variable, predicate: matching)
        if op == .equal {
            return Query<Bool>(.predicate(.comparison(QueryComparison(count, .greater, .constant(.int(0))))))
        }
        return Query<Bool>(.predicate(.and([
            .comparison(QueryComparison(.aggregate(.count, collectionPath), .greater, .constant(.int(0)))),
            .comparison(QueryComparison(count, .equal, .constant(.int(0)))),
        ])))
    }

    /// `path.p == object.p AND …` (negated for `!=`), or the error for a property that cannot be
    /// compared.
    private static func memberwiseNode(_ object: EmbeddedObject, at path: QueryKeyPath, negated: Bool) -> Query<Bool>.Node {
        let info: ClassInfo
        do { info = try ClassInfo.of(type(of: object)) } catch {
            return .failure(QueryError(.unsupported, "\(error.message)"))
        }
        var parts: [QueryPredicate] = []
        for (index, property) in info.schema.allProperties.enumerated() where property.type != .linkingObjects {
            guard property.collection == .none, property.type != .object else {
                let what = property.collection == .none ? "a link" : "a collection"
                return .failure(QueryError(.unsupported, "'\(info.schema.className).\(property.name)' is \(what): an embedded value with one cannot be compared property by property"))
            }
            var propertyPath = path
            propertyPath.components.append(property.name)
            let value = Object.queryValue(of: info.fields[index].storedAny(object))
            parts.append(.comparison(QueryComparison(.keyPath(propertyPath), .equal, .constant(value))))
        }
        let all: QueryPredicate = parts.isEmpty ? .truePredicate : (parts.count == 1 ? parts[0] : .and(parts))
        return .predicate(negated ? .not(all) : all)
    }
}

extension QueryPredicate {
    /// The predicate with each `==`/`!=` of a key path and an unmanaged embedded object (a query
    /// text's argument, as `_constructPredicate()` gives it for a custom value stored as an
    /// embedded object) made property by property, as the typed query makes it.
    ///
    /// - Parameters:
    ///   - schema: the schema the key paths are read in; `typeName` is the queried class.
    /// - Throws: `.unsupported` when the embedded class has a link or a collection.
    func comparingEmbeddedValues(schema: QuerySchema, typeName: String) throws(QueryError) -> QueryPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .and(let operands):
            var rewritten: [QueryPredicate] = []
            for operand in operands { rewritten.append(try operand.comparingEmbeddedValues(schema: schema, typeName: typeName)) }
            return .and(rewritten)
        case .or(let operands):
            var rewritten: [QueryPredicate] = []
            for operand in operands { rewritten.append(try operand.comparingEmbeddedValues(schema: schema, typeName: typeName)) }
            return .or(rewritten)
        case .not(let operand): return .not(try operand.comparingEmbeddedValues(schema: schema, typeName: typeName))
        case .comparison(let c):
            guard c.op == .equal || c.op == .notEqual, c.quantifier == .implicit || c.quantifier == .any,
                  case .keyPath(let path) = c.left, path.variable == nil,
                  case .constant(.object(let reference)) = c.right,
                  let object = reference.source as? EmbeddedObject, object._binding == nil else { return self }
            let lhs = Query<Any>(.expression(.keyPath(path)),
                                 collection: Self.firstCollection(of: path, schema: schema, typeName: typeName))
            let readsValues = path.components.last == QueryKeyPath.valuesComponent
            return try Query<Any>.memberwise(lhs, c.op, object, through: readsValues).predicate()
        }
    }

    /// The part of `path` up to its first list, set or linking objects, which the typed query
    /// records as the collection a comparison reads through.
    private static func firstCollection(of path: QueryKeyPath, schema: QuerySchema, typeName: String) -> QueryKeyPath? {
        var current = schema[typeName]
        for (i, name) in path.components.enumerated() {
            guard let property = current?.property(named: name) else { return nil }
            switch property.collection {
            case .list, .set, .linkingObjects: return QueryKeyPath(Array(path.components[...i]))
            case .single, .map: current = property.linkTarget.flatMap { schema[$0] }
            }
        }
        return nil
    }
}
