// JSON values of `strata export`'s form read back as stored values, by the property they are for
// (the inverse of Exporter.valueJSON for everything but links, which Importer resolves).
import Foundation
import Strata

enum ValueInput {
    /// The value of a non-link property (or one element, for `element`) from its JSON.
    static func value(_ json: JSONValue, _ property: Property, place: String, source: String) throws(ToolError) -> StoredValue {
        func fail(_ what: String) -> ToolError { ToolError("\(source): \(place): \(what)") }
        switch property.collection {
        case .none:
            return try single(json, property.type, optional: property.isOptional, place: place, source: source)
        case .list, .set:
            if case .null = json { return property.collection == .list ? .list([]) : .set([]) }
            guard case .array(let items) = json else { throw fail("expected an array") }
            var out: [StoredValue] = []
            for (i, item) in items.enumerated() {
                out.append(try single(item, property.type, optional: property.isOptional, place: "\(place)[\(i)]", source: source))
            }
            return property.collection == .list ? .list(out) : .set(out)
        case .map:
            if case .null = json { return .map([]) }
            guard case .object(let members) = json else { throw fail("expected an object") }
            var out: [StoredValue.MapEntry] = []
            for (k, item) in members {
                out.append(.init(key: k, value: try single(item, property.type, optional: property.isOptional, place: "\(place)[\(k)]", source: source)))
            }
            return .map(out.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        }
    }

    static func single(_ json: JSONValue, _ type: PropertyType, optional: Bool, place: String, source: String) throws(ToolError) -> StoredValue {
        func fail(_ what: String) -> ToolError { ToolError("\(source): \(place): \(what)") }
        if case .null = json {
            guard optional || type == .any else { throw fail("null for a \(type) that cannot be nil") }
            return type == .any ? .mixed(.null) : .null
        }
        switch (type, json) {
        case (.bool, .bool(let b)): return .bool(b)
        case (.int, .number(let t)):
            // Exact: no fraction or exponent, within Int64 (the width every int property stores).
            guard JSONParser.isNumber(t), let i = Int64(t) else {
                throw fail("\(t) is not a 64-bit integer (exact, from \(Int64.min) to \(Int64.max))")
            }
            return .int(i)
        case (.float, .number(let t)):
            // Parsed as a Float directly: through a Double, the value would be rounded twice.
            guard JSONParser.isNumber(t), let f = Float(t) else { throw fail("\(t) is not a number") }
            try checkRange(t, f.isFinite, f == 0, "Float", fail)
            return .float(f)
        case (.float, _):
            return .float(Float(try floating(json, place: place, source: source)))
        case (.double, _):
            return .double(try floating(json, place: place, source: source))
        case (.string, .string(let s)): return .string(s)
        case (.data, .string(let s)):
            guard let d = Data(base64Encoded: s) else { throw fail("data is base64 text") }
            return .data([UInt8](d))
        case (.date, _):
            guard let date = DateText.date(from: json) else {
                throw fail("a date is a number of seconds since 1970 (decimal digits, as JSON writes them) or \"nan\", \"inf\", \"-inf\", not \(json.text(indent: nil))")
            }
            return .date(date)
        case (.objectId, .string(let s)):
            guard let id = try? ObjectId(string: s) else { throw fail("'\(s)' is not an ObjectId (24 hexadecimal digits)") }
            return .objectId(id)
        case (.uuid, .string(let s)):
            guard let u = UUID(uuidString: s) else { throw fail("'\(s)' is not a UUID") }
            return .uuid(u)
        case (.decimal128, .string(let s)):
            guard let d = try? Decimal128(string: s) else { throw fail("'\(s)' is not a decimal number") }
            return .decimal128(d)
        case (.any, .object(let members)):
            guard members.count == 1, let kind = mixedType(members[0].0) else {
                throw fail("an AnyRealmValue is {\"<type>\": value} with type int, bool, float, double, string, data, date, objectId, uuid or decimal128")
            }
            return .mixed(try single(members[0].1, kind, optional: false, place: place, source: source))
        default:
            throw fail("\(json.text(indent: nil)) is not a \(type) value")
        }
    }

    /// A finite literal must give a finite value, and a non-zero one a non-zero value: 1e400
    /// is not infinity, nor 1e-50 a Float zero.
    private static func checkRange(_ text: String, _ finite: Bool, _ zero: Bool, _ typeName: String,
                                   _ fail: (String) -> ToolError) throws(ToolError) {
        guard finite else { throw fail("\(text) is out of the range of a \(typeName)") }
        if zero, hasNonZeroDigit(text) { throw fail("\(text) is too small for a \(typeName): it would become 0") }
    }

    /// Whether a JSON number's digits before its exponent include one other than 0.
    static func hasNonZeroDigit(_ text: String) -> Bool {
        for c in text.utf8 {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return false }
            if c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { return true }
        }
        return false
    }

    private static func floating(_ json: JSONValue, place: String, source: String) throws(ToolError) -> Double {
        switch json {
        case .number(let t):
            if JSONParser.isNumber(t), let d = Double(t) {
                try checkRange(t, d.isFinite, d == 0, "Double") { ToolError("\(source): \(place): \($0)") }
                return d
            }
        case .string("nan"): return .nan
        case .string("inf"): return .infinity
        case .string("-inf"): return -.infinity
        default: break
        }
        throw ToolError("\(source): \(place): \(json.text(indent: nil)) is not a number (or \"nan\", \"inf\", \"-inf\")")
    }

    private static func mixedType(_ name: String) -> PropertyType? {
        switch name {
        case "int": .int
        case "bool": .bool
        case "float": .float
        case "double": .double
        case "string": .string
        case "data": .data
        case "date": .date
        case "objectId": .objectId
        case "uuid": .uuid
        case "decimal128": .decimal128
        default: nil
        }
    }
}
