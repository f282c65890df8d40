// Parsing JSON into `JSONValue`, keeping numbers as their text and object members in order, so
// an import reads back exactly the values an export wrote (no detour through Double).
//
// Invariants: any input either parses completely or throws a `ToolError` naming the line and
// column; nesting deeper than 512 levels is refused rather than overflowing the stack.
import Foundation

public struct JSONParser {
    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0
    private let source: String

    /// Parses one JSON document; `source` names the input in errors.
    public static func parse(_ text: String, source: String) throws(ToolError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8), source: source)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.error("text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    private func error(_ what: String) -> ToolError {
        var line = 1, column = 1
        for b in bytes[0..<min(at, bytes.count)] {
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return ToolError("\(source): line \(line), column \(column): \(what)")
    }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func value() throws(ToolError) -> JSONValue {
        guard at < bytes.count else { throw error("the input ends where a value was expected") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws(ToolError) {
        let w = Array(word.utf8)
        guard at + w.count <= bytes.count, Array(bytes[at..<(at + w.count)]) == w else { throw error("expected \(word)") }
        at += w.count
    }

    private mutating func nested() throws(ToolError) {
        depth += 1
        guard depth <= 512 else { throw error("nested more than 512 levels deep") }
    }

    private mutating func object() throws(ToolError) -> JSONValue {
        try nested()
        defer { depth -= 1 }
        at += 1
        var members: [(String, JSONValue)] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try string()
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            at += 1
            skipSpace()
            members.append((key, try value()))
            skipSpace()
            guard at < bytes.count else { throw error("the input ends inside an object") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func array() throws(ToolError) -> JSONValue {
        try nested()
        defer { depth -= 1 }
        at += 1
        var items: [JSONValue] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard at < bytes.count else { throw error("the input ends inside an array") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func string() throws(ToolError) -> String {
        at += 1
        var out: [UInt8] = []
        while at < bytes.count {
            let b = bytes[at]
            at += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw error("a string that is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { break }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                            throw error("a lone surrogate in a string")
                        }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw error("an unknown escape \\\(Character(Unicode.Scalar(e)))")
                }
            default:
                guard b >= 0x20 else { throw error("a control character inside a string") }
                out.append(b)
            }
        }
        throw error("the input ends inside a string")
    }

    private mutating func hex4() throws(ToolError) -> UInt32 {
        guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<(at + 4)], as: UTF8.self), radix: 16) else {
            throw error("\\u must be followed by four hexadecimal digits")
        }
        at += 4
        return v
    }

    private mutating func number() throws(ToolError) -> String {
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        func digits(_ p: inout Int) -> Int {
            let s = p
            while p < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[p]) { p += 1 }
            return p - s
        }
        guard digits(&at) > 0 else { throw error("expected a value") }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            guard digits(&at) > 0 else { throw error("expected digits after '.'") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits(&at) > 0 else { throw error("expected digits in an exponent") }
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }
}
