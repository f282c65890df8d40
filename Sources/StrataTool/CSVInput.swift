// CSV in `strata export --format csv`'s form read back as the JSON objects the importer takes:
// RFC 4180 records (text in UTF-8); an empty unquoted field is null, a quoted one ("") the empty
// string; a field holding a collection, an embedded object, an AnyRealmValue or a link by
// position is JSON text; a number is a JSON number (no hexadecimal, no "infinity").
//
// Invariants: anything else is a `ToolError` naming its line and column — a control character
// outside quotes (the export quotes every field that holds one), a quote inside an unquoted
// field, text after a closing quote, a carriage return not followed by a line feed, a header
// naming a column twice or a property the class does not store.
import Foundation
import Strata

enum CSVInput {
    /// One field, whether it was quoted, and where it starts.
    struct Field {
        var text: String
        var quoted: Bool
        var place: JSONPlace
    }

    static func objects(_ input: ByteInput, schema: ObjectSchema, writerSchema: [ObjectSchema]) throws(ToolError) -> [(JSONValue, JSONPlace)] {
        let source = input.source
        var header: [Field]? = nil
        var out: [(JSONValue, JSONPlace)] = []
        try parse(input) { (row) throws(ToolError) in
            guard let names = header else {
                var seen = Set<String>()
                for field in row {
                    guard schema.allProperties.contains(where: { $0.name == field.text && $0.type != .linkingObjects }) else {
                        throw ToolError("\(source): \(field.place.text): '\(schema.className)' has no stored property '\(field.text)' (CSV header)")
                    }
                    guard seen.insert(field.text).inserted else {
                        throw ToolError("\(source): \(field.place.text): the header names the column '\(field.text)' twice")
                    }
                }
                header = row
                return
            }
            let line = row.first?.place.line ?? 0
            guard row.count == names.count else {
                throw ToolError("\(source): line \(line) has \(row.count) fields, the header \(names.count)")
            }
            var members: [(String, JSONValue)] = []
            var place = JSONPlace(line: line, column: 1)
            for (name, field) in zip(names, row) {
                guard let property = schema.allProperties.first(where: { $0.name == name.text }) else { continue }
                let at = "\(source): \(field.place.text) (\(schema.className) object \(out.count).\(name.text))"
                members.append((name.text, try json(field, property, writerSchema: writerSchema, place: at)))
                place.children.append(field.place)
            }
            out.append((.object(members), place))
        }
        guard header != nil else { throw ToolError("\(source): the CSV has no header line") }
        return out
    }

    /// The JSON the exporter would have written for this field.
    private static func json(_ field: Field, _ property: Property, writerSchema: [ObjectSchema], place: String) throws(ToolError) -> JSONValue {
        if field.text.isEmpty && !field.quoted { return .null }
        var type = property.type
        if property.type == .object, property.collection == .none,
           let target = writerSchema.first(where: { $0.className == property.objectClassName }),
           !target.isEmbedded, let pk = target.allProperties.first(where: \.isPrimary) {
            type = pk.type  // a link by primary key: the key's own text
        } else if property.collection != .none || property.type == .object || property.type == .any {
            return try JSONParser.parse(ByteInput(field.text, source: place)).value
        }
        switch type {
        case .bool:
            guard field.text == "true" || field.text == "false" else { throw ToolError("\(place): '\(field.text)' is not true or false") }
            return .bool(field.text == "true")
        case .int:
            guard JSONParser.isNumber(field.text) else { throw ToolError("\(place): '\(field.text)' is not an integer") }
            return .number(field.text)
        case .float, .double, .date:
            if ["nan", "inf", "-inf"].contains(field.text) { return .string(field.text) }
            guard JSONParser.isNumber(field.text) else {
                throw ToolError("\(place): '\(field.text)' is not a number (decimal digits, as JSON writes them, or nan, inf, -inf)")
            }
            return .number(field.text)
        default: return .string(field.text)
        }
    }

    /// RFC 4180: fields separated by commas, records by line breaks (CRLF or LF); a quoted field
    /// may hold commas, line breaks and doubled quotes. Calls `row` with each record as it ends.
    static func parse(_ input: ByteInput, row body: ([Field]) throws(ToolError) -> Void) throws(ToolError) {
        var row: [Field] = []
        var field: [UInt8] = []
        var start = JSONPlace(line: input.line, column: input.column)
        var quoted = false
        var inQuotes = false
        func endField() {
            // ByteInput hands out well-formed UTF-8 only.
            row.append(Field(text: String(decoding: field, as: UTF8.self), quoted: quoted, place: start))
            field = []
            quoted = false
        }
        while let c = try input.peek() {
            if inQuotes {
                _ = try input.next()
                if c == UInt8(ascii: "\"") {
                    if try input.peek() == UInt8(ascii: "\"") { _ = try input.next(); field.append(c) } else { inQuotes = false }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                guard field.isEmpty && !quoted else { throw input.error("a quote inside an unquoted field") }
                _ = try input.next()
                inQuotes = true
                quoted = true
            case UInt8(ascii: ","):
                _ = try input.next()
                endField()
                start = JSONPlace(line: input.line, column: input.column)
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                if c == UInt8(ascii: "\r") {
                    _ = try input.next()
                    guard try input.peek() == UInt8(ascii: "\n") else { throw input.error("a carriage return not followed by a line feed") }
                }
                _ = try input.next()
                endField()
                try body(row)
                row = []
                start = JSONPlace(line: input.line, column: input.column)
            default:
                guard !quoted else { throw input.error("text after a quoted field") }
                guard c >= 0x20 && c != 0x7F else {
                    throw input.error(String(format: "a control character (0x%02X) outside quotes", c))
                }
                _ = try input.next()
                field.append(c)
            }
        }
        guard !inQuotes else { throw input.error("the input ends inside a quoted field") }
        if !field.isEmpty || quoted || !row.isEmpty {
            endField()
            try body(row)
        }
    }
}
