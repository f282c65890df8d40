// The schema the import target imports with (`strata schema --format json`'s form): every
// property kind, optional and not, a list, a set, a map, a link to the same class and an embedded
// object; and how a scalar the input gave is compared with its export.
import Foundation
import StrataTool

enum ImportSchema {
    static let className = "FuzzRecord"

    static let json: String = {
        func p(_ name: String, _ type: String, collection: String = "none", optional: Bool = false, primaryKey: Bool = false,
               objectClass: String? = nil) -> JSONValue {
            var m: [(String, JSONValue)] = [("name", .string(name)), ("type", .string(type)), ("collection", .string(collection)),
                                            ("optional", .bool(optional)), ("primaryKey", .bool(primaryKey)), ("indexed", .bool(false))]
            if let objectClass { m.append(("objectClass", .string(objectClass))) }
            return .object(m)
        }
        let record: JSONValue = .object([
            ("name", .string(className)), ("embedded", .bool(false)),
            ("properties", .array([
                p("id", "int", primaryKey: true), p("i", "int"), p("d", "double"), p("f", "float"), p("s", "string"),
                p("b", "bool"), p("t", "date"), p("data", "data"), p("oi", "int", optional: true),
                p("os", "string", optional: true), p("dec", "decimal128"), p("oid", "objectId", optional: true),
                p("uuid", "uuid", optional: true), p("any", "any", optional: true), p("tags", "string", collection: "list"),
                p("nums", "int", collection: "set", optional: true), p("scores", "double", collection: "map"),
                p("partner", "object", optional: true, objectClass: className),
                p("home", "object", optional: true, objectClass: "FuzzHome"),
            ])),
        ])
        let home: JSONValue = .object([
            ("name", .string("FuzzHome")), ("embedded", .bool(true)),
            ("properties", .array([p("street", "string"), p("n", "int")])),
        ])
        return JSONValue.array([record, home]).text()
    }()

    enum Scalar { case integer, double, float, string, bool }

    static let scalarTypes: [String: Scalar] = [
        "id": .integer, "i": .integer, "oi": .integer, "d": .double, "f": .float, "s": .string, "os": .string, "b": .bool,
    ]

    static func primaryKey(_ object: [(String, JSONValue)]) -> Decimal? {
        guard case .number(let text)? = object.first(where: { $0.0 == "id" })?.1 else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Whether the exported `stored` is the input's `given`: numbers by value (Int exactly, Double
    /// and Float to the bit, so -0.0 stays -0.0), strings scalar by scalar.
    static func same(_ given: JSONValue, _ stored: JSONValue, type: Scalar) -> Bool {
        switch (given, stored) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return Array(a.unicodeScalars) == Array(b.unicodeScalars)
        case let (.number(a), .number(b)):
            switch type {
            case .integer:
                let posix = Locale(identifier: "en_US_POSIX")
                return Decimal(string: a, locale: posix).flatMap { x in Decimal(string: b, locale: posix).map { x == $0 } } ?? false
            case .double: return Double(a).flatMap { x in Double(b).map { x.bitPattern == $0.bitPattern } } ?? false
            case .float: return Float(a).flatMap { x in Float(b).map { x.bitPattern == $0.bitPattern } } ?? false
            default: return false
            }
        default: return false
        }
    }
}
