// CSV in `strata export --format csv`'s form read back as the JSON objects the importer takes:
// RFC 4180 fields; an empty unquoted field is null, a quoted one ("") the empty string; a field
// holding a collection, an embedded object, an AnyRealmValue or a link by position is JSON text.
import Foundation
import Strata

enum CSVInput {
    /// One field and whether it was quoted.
    struct Field {
        var text: String
        var quoted: Bool
    }

    static func objects(_ input: String, schema: ObjectSchema, writerSchema: [ObjectSchema], source: String) throws(ToolError) -> [JSONValue] {
        let rows = try parse(input, source: source)
        guard let header = rows.first else { throw ToolError("\(source): the CSV has no header line") }
        let names = header.map(\.text)
        for name in names where !schema.allProperties.contains(where: { $0.name == name && $0.type != .linkingObjects }) {
            throw ToolError("\(source): '\(schema.className)' has no stored property '\(name)' (CSV header)")
        }
        var out: [JSONValue] = []
        for (line, row) in rows.dropFirst().enumerated() {
            guard row.count == names.count else {
                throw ToolError("\(source): line \(line + 2) has \(row.count) fields, the header \(names.count)")
            }
            var members: [(String, JSONValue)] = []
            for (name, field) in zip(names, row) {
                let property = schema.allProperties.first { $0.name == name }!
                members.append((name, try json(field, property, writerSchema: writerSchema, place: "\(source): line \(line + 2), \(name)")))
            }
            out.append(.object(members))
        }
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
            return try JSONParser.parse(field.text, source: place)
        }
        switch type {
        case .bool:
            guard field.text == "true" || field.text == "false" else { throw ToolError("\(place): '\(field.text)' is not true or false") }
            return .bool(field.text == "true")
        case .int: return .number(field.text)
        case .float, .double, .date:
            return ["nan", "inf", "-inf"].contains(field.text) ? .string(field.text) : .number(field.text)
        default: return .string(field.text)
        }
    }

    /// RFC 4180: fields separated by commas, records by line breaks (CRLF or LF); a quoted field
    /// may hold commas, line breaks and doubled quotes.
    static func parse(_ text: String, source: String) throws(ToolError) -> [[Field]] {
        var rows: [[Field]] = []
        var row: [Field] = []
        var field = ""
        var quoted = false
        var inQuotes = false
        var chars = Array(text.unicodeScalars)[...]
        var line = 1
        while let c = chars.popFirst() {
            if inQuotes {
                if c == "\"" {
                    if chars.first == "\"" { chars.removeFirst(); field.unicodeScalars.append("\"") } else { inQuotes = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty && !quoted else { throw ToolError("\(source): line \(line): a quote inside an unquoted field") }
                inQuotes = true
                quoted = true
            case ",":
                row.append(Field(text: field, quoted: quoted)); field = ""; quoted = false
            case "\r" where chars.first == "\n":
                break
            case "\n":
                row.append(Field(text: field, quoted: quoted)); field = ""; quoted = false
                rows.append(row); row = []
                line += 1
            default:
                guard !quoted else { throw ToolError("\(source): line \(line): text after a quoted field") }
                field.unicodeScalars.append(c)
            }
        }
        guard !inQuotes else { throw ToolError("\(source): the input ends inside a quoted field") }
        if !field.isEmpty || quoted || !row.isEmpty {
            row.append(Field(text: field, quoted: quoted))
            rows.append(row)
        }
        return rows
    }
}
