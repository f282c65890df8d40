// Parsing JSON (RFC 8259, exactly) into `JSONValue`, keeping numbers as their text and object
// members in order, so an import reads back exactly the values an export wrote (no detour
// through Double), and where each value starts, so that a value the schema refuses is named by
// its line and column.
//
// Invariants: any input either parses completely or throws a `ToolError` naming the line and
// column of the first byte that is not JSON — read from a `ByteInput`, so an endless input fails
// there rather than after being read whole; nesting deeper than 512 levels is refused rather than
// overflowing the stack; a member name given twice in one object is refused (which value was
// meant cannot be known); a `\u` escape takes exactly four hexadecimal digits.
import Foundation

/// Where a JSON value starts, and where its items (array) or member values (object) start, in
/// the same order.
public struct JSONPlace: Sendable {
    public var line: Int
    public var column: Int
    public var children: [JSONPlace] = []

    public var text: String { "line \(line), column \(column)" }
}

public struct JSONParser {
    private let input: ByteInput
    private var depth = 0

    /// Parses one JSON document; `source` names the input in errors.
    public static func parse(_ text: String, source: String) throws(ToolError) -> JSONValue {
        try parse(ByteInput(text, source: source)).value
    }

    /// Parses the one JSON document `input` holds, with where each value starts.
    public static func parse(_ input: ByteInput) throws(ToolError) -> (value: JSONValue, place: JSONPlace) {
        var parser = JSONParser(input: input)
        try parser.skipSpace()
        let parsed = try parser.value()
        try parser.skipSpace()
        guard try input.atEnd() else { throw input.error("text after the JSON value") }
        return parsed
    }

    private init(input: ByteInput) {
        self.input = input
    }

    private func error(_ what: String) -> ToolError { input.error(what) }

    private mutating func skipSpace() throws(ToolError) {
        while let b = try input.peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { _ = try input.next() }
    }

    private func here() -> JSONPlace { JSONPlace(line: input.line, column: input.column) }

    private mutating func value() throws(ToolError) -> (value: JSONValue, place: JSONPlace) {
        let place = here()
        guard let b = try input.peek() else { throw error("the input ends where a value was expected") }
        switch b {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return (.string(try string()), place)
        case UInt8(ascii: "t"): try literal("true"); return (.bool(true), place)
        case UInt8(ascii: "f"): try literal("false"); return (.bool(false), place)
        case UInt8(ascii: "n"): try literal("null"); return (.null, place)
        default: return (.number(try number()), place)
        }
    }

    private mutating func literal(_ word: String) throws(ToolError) {
        for w in word.utf8 {
            guard try input.peek() == w else { throw error("expected \(word)") }
            _ = try input.next()
        }
    }

    private mutating func nested() throws(ToolError) {
        depth += 1
        guard depth <= 512 else { throw error("nested more than 512 levels deep") }
    }

    private mutating func take(_ c: Character) throws(ToolError) -> Bool {
        guard try input.peek() == c.asciiValue else { return false }
        _ = try input.next()
        return true
    }

    private mutating func object() throws(ToolError) -> (value: JSONValue, place: JSONPlace) {
        var place = here()
        try nested()
        defer { depth -= 1 }
        _ = try input.next()
        var members: [(String, JSONValue)] = []
        var names = Set<String>()
        try skipSpace()
        if try take("}") { return (.object(members), place) }
        while true {
            try skipSpace()
            let namePlace = here()
            guard try input.peek() == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try string()
            guard names.insert(key).inserted else {
                throw ToolError("\(input.source): \(namePlace.text): the member '\(key)' is given twice in one object")
            }
            try skipSpace()
            guard try take(":") else { throw error("expected ':' after a member name") }
            try skipSpace()
            let (member, memberPlace) = try value()
            members.append((key, member))
            place.children.append(memberPlace)
            try skipSpace()
            guard try input.peek() != nil else { throw error("the input ends inside an object") }
            if try take(",") { continue }
            if try take("}") { return (.object(members), place) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func array() throws(ToolError) -> (value: JSONValue, place: JSONPlace) {
        var place = here()
        try nested()
        defer { depth -= 1 }
        _ = try input.next()
        var items: [JSONValue] = []
        try skipSpace()
        if try take("]") { return (.array(items), place) }
        while true {
            try skipSpace()
            let (item, itemPlace) = try value()
            items.append(item)
            place.children.append(itemPlace)
            try skipSpace()
            guard try input.peek() != nil else { throw error("the input ends inside an array") }
            if try take(",") { continue }
            if try take("]") { return (.array(items), place) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func string() throws(ToolError) -> String {
        _ = try input.next()
        var out: [UInt8] = []
        while let b = try input.peek() {
            switch b {
            case UInt8(ascii: "\""):
                _ = try input.next()
                // ByteInput hands out well-formed UTF-8 only, and escapes add whole scalars.
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                _ = try input.next()
                guard let e = try input.peek() else { throw error("the input ends inside a string") }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    _ = try input.next()
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard try take("\\"), try take("u") else { throw error("a lone surrogate in a string") }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("a lone surrogate in a string") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                    continue
                default:
                    throw error("an unknown escape \\\(e < 0x80 && e >= 0x20 ? String(Character(Unicode.Scalar(e))) : String(format: "0x%02X", e))")
                }
                _ = try input.next()
            default:
                guard b >= 0x20 else { throw error(String(format: "a control character (0x%02X) inside a string", b)) }
                _ = try input.next()
                out.append(b)
            }
        }
        throw error("the input ends inside a string")
    }

    /// Exactly four hexadecimal digits (no sign, no space).
    private mutating func hex4() throws(ToolError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let b = try input.peek(), let d = Self.hexDigit(b) else {
                throw error("\\u must be followed by four hexadecimal digits")
            }
            _ = try input.next()
            v = v << 4 | d
        }
        return v
    }

    private static func hexDigit(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func number() throws(ToolError) -> String {
        var text: [UInt8] = []
        func isDigit(_ b: UInt8?) -> Bool { b.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
        func digits() throws(ToolError) -> Int {
            var n = 0
            while isDigit(try input.peek()) { text.append(try input.next()!); n += 1 }
            return n
        }
        if try input.peek() == UInt8(ascii: "-") { text.append(try input.next()!) }
        guard isDigit(try input.peek()) else { throw error(text.isEmpty ? "expected a value" : "expected digits after '-'") }
        // No leading zeros: 0, 0.5, but not 01.
        if try input.peek() == UInt8(ascii: "0") {
            text.append(try input.next()!)
            if isDigit(try input.peek()) { throw error("a number does not start with 0 followed by digits") }
        } else {
            _ = try digits()
        }
        if try input.peek() == UInt8(ascii: ".") {
            text.append(try input.next()!)
            guard try digits() > 0 else { throw error("expected digits after '.'") }
        }
        if let e = try input.peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            text.append(try input.next()!)
            if let s = try input.peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { text.append(try input.next()!) }
            guard try digits() > 0 else { throw error("expected digits in an exponent") }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` is a JSON number, exactly (RFC 8259's grammar: no hexadecimal, no
    /// "infinity", no leading '+' or zeros).
    public static func isNumber(_ text: String) -> Bool {
        let input = ByteInput(text, source: "")
        var parser = JSONParser(input: input)
        guard let first = try? input.peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              (try? parser.number()) != nil else { return false }
        return (try? input.atEnd()) == true
    }
}
