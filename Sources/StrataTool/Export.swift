// `strata export`: a file's objects as JSON or CSV, read by the schema the file stores.
//
// The JSON form (one document):
// - without `--class`: an object whose members are the top-level classes (embedded ones appear
//   inside their owners), each an array of its objects in object-key order; with `--class C`:
//   the array of C's objects.
// - an object: its stored properties in schema order (LinkingObjects are computed, so left out).
// - values: bool, int and floating-point as JSON numbers (a non-finite float as the string
//   "nan", "inf" or "-inf"); string; data as base64; date as seconds since 1970-01-01 UTC,
//   exact (DateText.swift);
//   ObjectId as 24 hex digits; UUID and Decimal128 as strings; a list or set as an array in
//   stored order; a map as an object in key order; an AnyRealmValue as a one-member object
//   naming the type it holds ({"int": 5}; a link as {"link": {"Dog": <link>}}); nil as null.
// - a link: to a class with a primary key, that key's value; to a class without one,
//   {"$index": n}, the target's position in its class's export (0-based); to an embedded
//   object, the object itself, nested.
// The CSV form (one class): a header of property names, then one line per object; null is an
// empty field, an empty string is "", and collections, embedded objects, AnyRealmValues and
// links without a primary key are their JSON text on one line.
//
// Invariants: the output depends only on the file's contents (no dictionary order, no clock), so
// exporting the same data twice gives the same bytes.
import Foundation
import Strata

public struct Exporter {
    let file: StrataFile
    /// Per class: object key → its position in the class's export.
    private var positions: [String: [UInt64: Int]] = [:]
    /// Per class with a primary key: object key → the key's JSON value.
    private var primaryKeys: [String: [UInt64: JSONValue]] = [:]
    /// Objects of embedded classes by key.
    private var embedded: [String: [UInt64: StoredObject]] = [:]

    public init(file: StrataFile) throws(ToolError) {
        self.file = file
        // One pass per class, keeping only what links need: keys, primary keys, and the
        // (nested) embedded objects; the objects themselves are streamed by the writers.
        for schema in file.schema {
            let pk = schema.allProperties.firstIndex(where: \.isPrimary)
            var positions: [UInt64: Int] = [:]
            var keys: [UInt64: JSONValue] = [:]
            var embedded: [UInt64: StoredObject] = [:]
            try eachObject(of: schema.className) { (object) throws(ToolError) in
                if schema.isEmbedded {
                    embedded[object.key] = object
                    return
                }
                positions[object.key] = positions.count
                if let pk { keys[object.key] = try scalarJSON(object.values[pk], file.path) }
            }
            if schema.isEmbedded {
                self.embedded[schema.className] = embedded
            } else {
                self.positions[schema.className] = positions
                if pk != nil { primaryKeys[schema.className] = keys }
            }
        }
    }

    /// The JSON export of one class, or of every top-level class when `className` is nil.
    public func json(className: String?) throws(ToolError) -> String {
        var out = ""
        try writeJSON(className: className) { out += $0 }
        return out
    }

    /// The JSON export, written piece by piece to `sink` (one object at a time, so the export
    /// of a large file never exists whole in memory). The same bytes as `json(className:)`.
    public func writeJSON(className: String?, to sink: (String) -> Void) throws(ToolError) {
        if let className {
            try writeArray(className, indent: 0, to: sink)
            sink("\n")
            return
        }
        let classes = file.schema.filter { !$0.isEmbedded }
        sink("{")
        for (i, schema) in classes.enumerated() {
            if i > 0 { sink(",") }
            var name = ""
            JSONValue.quote(schema.className, into: &name)
            sink("\n  " + name + ": ")
            try writeArray(schema.className, indent: 1, to: sink)
        }
        sink(classes.isEmpty ? "}\n" : "\n}\n")
    }

    /// One class's objects as a JSON array whose brackets sit at `indent` (JSONValue's layout).
    private func writeArray(_ className: String, indent: Int, to sink: (String) -> Void) throws(ToolError) {
        let schema = try objectSchema(className)
        guard !schema.isEmbedded else {
            throw ToolError("'\(className)' is an embedded class: its objects are exported inside their owners", exitCode: 64)
        }
        let pad = String(repeating: "  ", count: indent + 1)
        var first = true
        try eachObject(of: className) { (object) throws(ToolError) in
            sink((first ? "[" : ",") + "\n" + pad + (try objectJSON(object, schema).text(indent: indent + 1)))
            first = false
        }
        sink(first ? "[]" : "\n" + String(repeating: "  ", count: indent) + "]")
    }

    private func objectSchema(_ className: String) throws(ToolError) -> ObjectSchema {
        do { return try file.objectSchema(className) } catch { throw ToolError(error.message, exitCode: 64) }
    }

    private func objectJSON(_ object: StoredObject, _ schema: ObjectSchema) throws(ToolError) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for (property, value) in zip(schema.allProperties, object.values) where property.type != .linkingObjects {
            members.append((property.name, try valueJSON(value)))
        }
        return .object(members)
    }

    func valueJSON(_ value: StoredValue) throws(ToolError) -> JSONValue {
        switch value {
        case .link(let className, let key): return try linkJSON(className, key)
        case .mixed(let inner):
            if case .null = inner { return .null }
            if case .link(let className, _) = inner {
                return .object([("link", .object([(className, try valueJSON(inner))]))])
            }
            return .object([(Self.typeName(inner), try valueJSON(inner))])
        case .list(let elements), .set(let elements):
            return .array(try elements.map { (e) throws(ToolError) -> JSONValue in try valueJSON(e) })
        case .map(let entries):
            return .object(try entries.map { (e) throws(ToolError) -> (String, JSONValue) in (e.key, try valueJSON(e.value)) })
        default: return try scalarJSON(value, file.path)
        }
    }

    private func linkJSON(_ className: String, _ key: UInt64) throws(ToolError) -> JSONValue {
        if let objects = embedded[className] {
            guard let target = objects[key] else { throw ToolError("\(file.path): a link to \(className) object \(key), which does not exist (run strata verify)") }
            return try objectJSON(target, try objectSchema(className))
        }
        if let keys = primaryKeys[className] {
            guard let pk = keys[key] else { throw ToolError("\(file.path): a link to \(className) object \(key), which does not exist (run strata verify)") }
            return pk
        }
        guard let position = positions[className]?[key] else {
            throw ToolError("\(file.path): a link to \(className) object \(key), which does not exist (run strata verify)")
        }
        return .object([("$index", .number(String(position)))])
    }

    static func typeName(_ value: StoredValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .objectId: "objectId"
        case .uuid: "uuid"
        case .decimal128: "decimal128"
        case .link: "link"
        case .mixed: "mixed"
        case .list: "list"
        case .set: "set"
        case .map: "map"
        }
    }

    // MARK: - CSV

    /// The CSV export of one class.
    public func csv(className: String) throws(ToolError) -> String {
        var out = ""
        try writeCSV(className: className) { out += $0 }
        return out
    }

    /// The CSV export, written a line at a time to `sink`.
    public func writeCSV(className: String, to sink: (String) -> Void) throws(ToolError) {
        let schema = try objectSchema(className)
        guard !schema.isEmbedded else {
            throw ToolError("'\(className)' is an embedded class: its objects are exported inside their owners", exitCode: 64)
        }
        let stored = schema.allProperties.enumerated().filter { $0.element.type != .linkingObjects }
        sink(stored.map { Self.csvField($0.element.name) }.joined(separator: ",") + "\n")
        try eachObject(of: className) { (object) throws(ToolError) in
            var fields: [String] = []
            for (i, _) in stored {
                let json = try valueJSON(object.values[i])
                switch json {
                case .null: fields.append("")
                case .string(let s): fields.append(Self.csvField(s, quoteEmpty: true))
                case .number(let n): fields.append(n)
                case .bool(let b): fields.append(b ? "true" : "false")
                case .array, .object: fields.append(Self.csvField(json.text(indent: nil)))
                }
            }
            sink(fields.joined(separator: ",") + "\n")
        }
    }

    /// Each object of a class, one at a time, with the failures of the file and of `body` as the
    /// tool's error.
    private func eachObject(of className: String, _ body: (StoredObject) throws(ToolError) -> Void) throws(ToolError) {
        var failure: ToolError? = nil
        do throws(Realm.Error) {
            try file.forEachObject(of: className) { object in
                do throws(ToolError) {
                    try body(object)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw ToolError(error, path: file.path)
        }
        if let failure { throw failure }
    }

    /// RFC 4180 quoting: a field with a comma, quote, line break or other control character is
    /// quoted, quotes doubled (the import refuses control characters outside quotes).
    static func csvField(_ s: String, quoteEmpty: Bool = false) -> String {
        if s.isEmpty { return quoteEmpty ? "\"\"" : "" }
        guard s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0.value < 0x20 || $0.value == 0x7F }) else { return s }
        // Doubled scalar by scalar: `replacingOccurrences` compares Characters, and a quote
        // followed by a combining mark is one Character that is not `"`: it stayed single, and the
        // import (which reads scalars) refused the export.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in s.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append(scalar) }
        }
        quoted.append("\"")
        return String(quoted)
    }
}

/// The JSON of a value that holds no link or collection.
func scalarJSON(_ value: StoredValue, _ path: String) throws(ToolError) -> JSONValue {
    switch value {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .int(let i): return .number(String(i))
    case .float(let f): return floating(Double(f), text: "\(f)")
    case .double(let d): return floating(d, text: "\(d)")
    case .string(let s): return .string(s)
    case .data(let bytes): return .string(Data(bytes).base64EncodedString())
    case .date(let d): return DateText.json(d)
    case .objectId(let id): return .string(id.stringValue)
    case .uuid(let u): return .string(u.uuidString)
    case .decimal128(let d): return .string(d.value.description)  // plain digits: an export is data, not Realm's display text
    case .link, .mixed, .list, .set, .map:
        throw ToolError("\(path): a \(Exporter.typeName(value)) where a single value was expected")
    }
}

/// A finite number as its shortest round-trip text; NaN and infinities as strings (JSON has no
/// literal for them).
private func floating(_ value: Double, text: String) -> JSONValue {
    if value.isNaN { return .string("nan") }
    if value.isInfinite { return .string(value > 0 ? "inf" : "-inf") }
    return .number(text)
}
