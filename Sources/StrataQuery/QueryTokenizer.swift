// Tokenizer for Realm's query language.
//
// Invariants:
// - Works on the string's Unicode scalars (so a quote followed by a combining mark still closes a
//   string); every token records the scalar offset of its first character, which is what
//   `QueryError.offset` reports (for queries without combining sequences, the character offset).
// - Never traps: every malformed literal (unterminated string, bad escape, integer overflow,
//   bad date/oid/uuid/base64) is a `.syntax` QueryError at the literal's offset.
// - Keywords are not tokens of their own: they are identifiers the parser matches
//   case-insensitively, so a property may be named like a keyword only through `%K`. Likewise
//   `T` followed by a digit starts a date literal, `oid(`/`uuid(`/`decimal128(` and `B64"` start
//   literals: properties with such names are reachable through `%K` only.
import Foundation

enum QueryTokenKind: Equatable {
    case identifier(String)
    /// `$x` (the name includes the `$`).
    case variable(String)
    /// `$0`, `$1`, …
    case positionalArgument(Int)
    /// `@count` etc., lowercased, without the `@`.
    case aggregate(String)
    case string(String)
    case integer(Int64)
    case double(Double)
    case date(Date)
    case objectId(QueryObjectID)
    case uuid(UUID)
    case decimal(Decimal)
    case data(Data)
    /// `%@`, or a printf-style specifier (`%d`, `%f`, `%s`…) standing for a value
    case valueArgument
    /// `%K`
    case keyPathArgument
    /// A comparison or logical operator, normalised (`=` → `==`, `<>` → `!=`, `=<` → `<=`, `=>` → `>=`).
    case symbol(String)
    case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket, comma, dot
    case end
}

struct QueryToken: Equatable {
    var kind: QueryTokenKind
    var offset: Int
    /// The source text, for error messages.
    var text: String
}

struct QueryTokenizer {
    private let chars: [Unicode.Scalar]
    private var index = 0

    init(_ query: String) { chars = Array(query.unicodeScalars) }

    static func tokenize(_ query: String) throws(QueryError) -> [QueryToken] {
        var tokenizer = QueryTokenizer(query)
        var tokens: [QueryToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        let position = index + ahead
        return position < chars.count ? chars[position] : nil
    }

    private func text(from start: Int) -> String { string(start, index) }

    private func string(_ from: Int, _ to: Int) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: chars[from..<to])
        return String(result)
    }

    private func syntax(_ message: String, _ offset: Int) -> QueryError { QueryError(.syntax, message, offset: offset) }

    /// The length of the printf-style specifier at the current `%` (`%d`, `%i`, `%u`, `%f`, `%e`,
    /// `%g`, `%s`, with the length modifiers `h`, `hh`, `l`, `ll`, `q`, `z`), nil when there is
    /// none. NSPredicate takes these besides `%@`, and Realm's queries with it: each stands for a
    /// value argument, whose own type decides how it compares (the type checker rejects a value
    /// that does not fit the property).
    private func printfSpecifierLength() -> Int? {
        var length = 1
        for modifier in ["hh", "ll", "h", "l", "q", "z"] {
            let scalars = Array(modifier.unicodeScalars)
            if scalars.indices.allSatisfy({ peek(length + $0) == scalars[$0] }) {
                length += scalars.count
                break
            }
        }
        guard let conversion = peek(length), "diufegs".unicodeScalars.contains(conversion) else { return nil }
        // An identifier character right after it is not a specifier (`%dx`).
        if let following = peek(length + 1), following.properties.isAlphabetic || following == "_" { return nil }
        return length + 1
    }

    mutating func next() throws(QueryError) -> QueryToken {
        while let c = peek(), c.properties.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return QueryToken(kind: .end, offset: start, text: "end of query") }

        func simple(_ kind: QueryTokenKind, _ length: Int) -> QueryToken {
            index += length
            return QueryToken(kind: kind, offset: start, text: string(start, index))
        }

        switch c {
        case "(": return simple(.leftParen, 1)
        case ")": return simple(.rightParen, 1)
        case "{": return simple(.leftBrace, 1)
        case "}": return simple(.rightBrace, 1)
        case "[": return simple(.leftBracket, 1)
        case "]": return simple(.rightBracket, 1)
        case ",": return simple(.comma, 1)
        case ".": return simple(.dot, 1)
        case "=":
            switch peek(1) {
            case "=": return simple(.symbol("=="), 2)
            case "<": return simple(.symbol("<="), 2)
            case ">": return simple(.symbol(">="), 2)
            default: return simple(.symbol("=="), 1)
            }
        case "!": return peek(1) == "=" ? simple(.symbol("!="), 2) : simple(.symbol("!"), 1)
        case "<":
            switch peek(1) {
            case "=": return simple(.symbol("<="), 2)
            case ">": return simple(.symbol("!="), 2)
            default: return simple(.symbol("<"), 1)
            }
        case ">": return peek(1) == "=" ? simple(.symbol(">="), 2) : simple(.symbol(">"), 1)
        case "&":
            guard peek(1) == "&" else { throw syntax("unexpected '&' (did you mean '&&'?)", start) }
            return simple(.symbol("&&"), 2)
        case "|":
            guard peek(1) == "|" else { throw syntax("unexpected '|' (did you mean '||'?)", start) }
            return simple(.symbol("||"), 2)
        case "%":
            switch peek(1) {
            case "@": return simple(.valueArgument, 2)
            case "K": return simple(.keyPathArgument, 2)
            default:
                if let length = printfSpecifierLength() { return simple(.valueArgument, length) }
                throw syntax("unexpected '%' (expected '%@', '%K' or a format specifier such as '%d', '%f', '%s')", start)
            }
        case "'", "\"": return try quotedString(quote: c, start: start)
        case "$":
            index += 1
            if let d = peek(), isDigit(d) {
                while let d = peek(), isDigit(d) { index += 1 }
                guard let position = Int(string(start + 1, index)) else {
                    throw syntax("argument index '\(text(from: start))' is too large", start)
                }
                return QueryToken(kind: .positionalArgument(position), offset: start, text: text(from: start))
            }
            guard let d = peek(), isIdentifierStart(d) else { throw syntax("expected a variable name after '$'", start) }
            while let d = peek(), isIdentifierPart(d) { index += 1 }
            return QueryToken(kind: .variable(text(from: start)), offset: start, text: text(from: start))
        case "@":
            index += 1
            while let d = peek(), isIdentifierPart(d) { index += 1 }
            let name = string(start + 1, index)
            guard !name.isEmpty else { throw syntax("expected an aggregate name after '@'", start) }
            return QueryToken(kind: .aggregate(name.lowercased()), offset: start, text: text(from: start))
        default:
            break
        }
        if isDigit(c) { return try number(start: start) }
        if c == "-" || c == "+", let d = peek(1), isDigit(d) { return try number(start: start) }
        if c == "T", let d = peek(1), isDigit(d) || d == "-" {
            index += 1
            return try dateLiteral(start: start)
        }
        if isIdentifierStart(c) {
            while let d = peek(), isIdentifierPart(d) { index += 1 }
            let name = text(from: start)
            if peek() == "(", name == "oid" || name == "uuid" || name == "decimal128" { return try parenthesisedLiteral(name, start: start) }
            if name == "B64", let q = peek(), q == "\"" || q == "'" {
                let encoded = try quotedString(quote: q, start: index)
                guard case .string(let text) = encoded.kind, let data = Data(base64Encoded: text) else {
                    throw syntax("invalid base64 data literal", start)
                }
                return QueryToken(kind: .data(data), offset: start, text: self.text(from: start))
            }
            return QueryToken(kind: .identifier(name), offset: start, text: name)
        }
        throw syntax("unexpected character '\(c)'", start)
    }

    private func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
    private func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
    private func isHexDigit(_ c: Unicode.Scalar) -> Bool { c.isASCII && hexDigitValue(UInt8(c.value)) != nil }
    private func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic || c.properties.numericType != nil }

    private mutating func quotedString(quote: Unicode.Scalar, start: Int) throws(QueryError) -> QueryToken {
        index = start + 1
        var value = ""
        while true {
            guard let c = peek() else { throw syntax("unterminated string literal", start) }
            index += 1
            if c == quote { break }
            if c != "\\" { value.unicodeScalars.append(c); continue }
            guard let escaped = peek() else { throw syntax("unterminated string literal", start) }
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\\", "'", "\"": value.unicodeScalars.append(escaped)
            case "u":
                var digits = ""
                while digits.count < 4, let h = peek(), isHexDigit(h) { digits.unicodeScalars.append(h); index += 1 }
                guard digits.count == 4, let scalarValue = UInt32(digits, radix: 16),
                      let scalar = Unicode.Scalar(scalarValue) else {
                    throw syntax("invalid \\u escape in string literal", index - digits.count - 2)
                }
                value.unicodeScalars.append(scalar)
            default:
                throw syntax("unknown escape '\\\(escaped)' in string literal", index - 2)
            }
        }
        return QueryToken(kind: .string(value), offset: start, text: text(from: start))
    }

    private mutating func number(start: Int) throws(QueryError) -> QueryToken {
        if peek() == "-" || peek() == "+" { index += 1 }
        let digitsStart = index
        // Hexadecimal integer: 0x1F
        if peek() == "0", peek(1) == "x" || peek(1) == "X" {
            index += 2
            while let h = peek(), isHexDigit(h) { index += 1 }
            let digits = string(digitsStart + 2, index)
            guard !digits.isEmpty, let magnitude = UInt64(digits, radix: 16) else {
                throw syntax("invalid hexadecimal literal '\(text(from: start))'", start)
            }
            let negative = chars[start] == "-"
            guard magnitude <= (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)) else {
                throw syntax("integer literal '\(text(from: start))' does not fit in 64 bits", start)
            }
            let value = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
            return try finishNumber(.integer(value), start: start)
        }
        while let d = peek(), isDigit(d) { index += 1 }
        // A bare date: YYYY-MM-DD@HH:MM:SS
        if index - digitsStart == 4, digitsStart == start, peek() == "-", let d = peek(1), isDigit(d) {
            index = start
            return try dateLiteral(start: start)
        }
        var isDouble = false
        if peek() == ".", let d = peek(1), isDigit(d) {
            isDouble = true
            index += 1
            while let d = peek(), isDigit(d) { index += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var ahead = 1
            if peek(1) == "-" || peek(1) == "+" { ahead = 2 }
            if let d = peek(ahead), isDigit(d) {
                isDouble = true
                index += ahead
                while let d = peek(), isDigit(d) { index += 1 }
            }
        }
        let literal = text(from: start)
        if isDouble {
            guard let value = Double(literal), value.isFinite else { throw syntax("invalid number '\(literal)'", start) }
            return try finishNumber(.double(value), start: start)
        }
        guard let value = Int64(literal) else {
            throw syntax("integer literal '\(literal)' does not fit in 64 bits", start)
        }
        return try finishNumber(.integer(value), start: start)
    }

    /// A number must not run into letters (`12abc`).
    private func finishNumber(_ kind: QueryTokenKind, start: Int) throws(QueryError) -> QueryToken {
        if let c = peek(), isIdentifierPart(c) {
            throw syntax("invalid number '\(text(from: start))\(c)'", start)
        }
        return QueryToken(kind: kind, offset: start, text: text(from: start))
    }

    private mutating func readInteger() -> Int64? {
        let begin = index
        if peek() == "-" { index += 1 }
        while let d = peek(), isDigit(d) { index += 1 }
        return Int64(string(begin, index))
    }

    /// `T<seconds>:<nanoseconds>` or `[T]YYYY-MM-DD@HH:MM:SS[:nanoseconds]`, always UTC.
    private mutating func dateLiteral(start: Int) throws(QueryError) -> QueryToken {
        let bad = syntax("invalid date literal", start)
        guard let first = readInteger() else { throw bad }
        if peek() == ":" {
            index += 1
            guard let nanos = readInteger(), (0..<1_000_000_000).contains(nanos), first >= -(1 << 52), first <= (1 << 52) else {
                throw bad
            }
            let date = Date(timeIntervalSince1970: Double(first) + Double(nanos) / 1e9)
            return try finishNumber(.date(date), start: start)
        }
        var fields = [first]
        for separator in ["-", "-", "@", ":", ":"] as [Unicode.Scalar] {
            guard peek() == separator else { throw bad }
            index += 1
            guard let value = readInteger(), value >= 0 else { throw bad }
            fields.append(value)
        }
        var nanos: Int64 = 0
        if peek() == ":" {
            index += 1
            guard let value = readInteger(), (0..<1_000_000_000).contains(value) else { throw bad }
            nanos = value
        }
        let (year, month, day, hour, minute, second) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
        // Every field in its range, the day in its month (a date that does not exist, such as
        // 31 February, is refused rather than carried into the next month).
        guard (-200_000...200_000).contains(year) else { throw syntax("invalid date literal: year \(year) is out of range", start) }
        guard (1...12).contains(month) else { throw syntax("invalid date literal: month \(month) is not 1 to 12", start) }
        let monthDays = daysInMonth(month, of: year)
        guard (1...monthDays).contains(day) else {
            throw syntax("invalid date literal: \(year)-\(month) has no day \(day) (it has \(monthDays))", start)
        }
        guard (0...23).contains(hour) else { throw syntax("invalid date literal: hour \(hour) is not 0 to 23", start) }
        guard (0...59).contains(minute) else { throw syntax("invalid date literal: minute \(minute) is not 0 to 59", start) }
        guard (0...59).contains(second) else { throw syntax("invalid date literal: second \(second) is not 0 to 59", start) }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + Double(nanos) / 1e9
        return try finishNumber(.date(Date(timeIntervalSince1970: seconds)), start: start)
    }

    /// `oid(…)`, `uuid(…)` and `decimal128(…)`.
    private mutating func parenthesisedLiteral(_ name: String, start: Int) throws(QueryError) -> QueryToken {
        index += 1
        let contentStart = index
        while let c = peek(), c != ")" { index += 1 }
        guard peek() == ")" else { throw syntax("unterminated \(name)(…) literal", start) }
        let content = string(contentStart, index)
        index += 1
        if name == "decimal128" {
            let number = content.trimmingCharacters(in: .whitespaces)
            // Decimal(string:) accepts a numeric prefix ("12abc" → 12): check the whole text first.
            guard isDecimalText(number),
                  let value = Decimal(string: number, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
                throw syntax("invalid decimal128 '\(content)'", start)
            }
            return QueryToken(kind: .decimal(value), offset: start, text: text(from: start))
        }
        if name == "oid" {
            guard let id = QueryObjectID(hexString: content) else { throw syntax("invalid ObjectId '\(content)'", start) }
            return QueryToken(kind: .objectId(id), offset: start, text: text(from: start))
        }
        guard let uuid = UUID(uuidString: content) else { throw syntax("invalid UUID '\(content)'", start) }
        return QueryToken(kind: .uuid(uuid), offset: start, text: text(from: start))
    }
}

/// `[+-]digits[.digits][(e|E)[+-]digits]`, with at least one digit in the mantissa.
private func isDecimalText(_ text: String) -> Bool {
    var scalars = Array(text.unicodeScalars)[...]
    func digits() -> Int {
        var count = 0
        while let c = scalars.first, c.value >= 48, c.value <= 57 { scalars.removeFirst(); count += 1 }
        return count
    }
    if let c = scalars.first, c == "+" || c == "-" { scalars.removeFirst() }
    var mantissa = digits()
    if scalars.first == "." {
        scalars.removeFirst()
        mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if let c = scalars.first, c == "e" || c == "E" {
        scalars.removeFirst()
        if let c = scalars.first, c == "+" || c == "-" { scalars.removeFirst() }
        guard digits() > 0 else { return false }
    }
    return scalars.isEmpty
}
