// Numbers given on the command line, read from their text so that every bad value gets a message
// that names the flag and repeats the value as typed ("--duration nan: not a number").
//
// Invariants: a value is a decimal number (`DecimalText`: no hexadecimal, no words, nothing after
// the digits) and finite; spaces around it are ignored, as a shell quote leaves them; a
// whole-number flag takes an integer, also written in exponent form when it is a whole number
// ("1e6"), and a value beyond `Int`'s range is an error, never a wrap or a trap. Ranges (what the
// machine can do) are checked by `RunOptions.checkBounds`.

import Foundation

public enum NumericFlag {
    /// A real number (seconds, readings per second).
    public static func real(_ text: String, flag: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let shown = QuotedInput.clip(text)
        guard !trimmed.isEmpty else { throw BenchError(.invalidOption, "\(flag) \"\(shown)\": an empty value is not a number") }
        switch DecimalText.parseDouble(trimmed) {
        case .success(let value):
            return value
        case .failure(.outOfRange):
            throw BenchError(.invalidOption, "\(flag) \(shown): must be a finite number")
        case .failure:
            if infinityWords.contains(trimmed.lowercased()) {
                throw BenchError(.invalidOption, "\(flag) \(shown): must be a finite number")
            }
            throw BenchError(.invalidOption, "\(flag) \(shown): not a number")
        }
    }

    /// A whole number (readings, batch size, milliseconds, threads, repetitions).
    public static func integer(_ text: String, flag: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let shown = QuotedInput.clip(text)
        switch DecimalText.parseInteger(trimmed) {
        case .success(let value):
            return value
        case .failure(.notWhole):
            throw BenchError(.invalidOption, "\(flag) \(shown): must be a whole number")
        case .failure(.outOfRange):
            throw BenchError(.invalidOption, "\(flag) \(shown): far too large")
        case .failure(.notDecimal):
            // The real-number reading names the problem (empty, a word, infinite).
            _ = try real(text, flag: flag)
            throw BenchError(.invalidOption, "\(flag) \(shown): not a number")
        }
    }

    /// A count that may end in k (thousands) or M (millions): "10k", "1M", "2500". A suffix
    /// takes a whole or decimal number whose product is whole ("1.5M"); anything else is an error.
    public static func count(_ text: String, flag: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let scale: Double
        switch trimmed.last {
        case "k", "K": scale = 1_000
        case "m", "M": scale = 1_000_000
        default: return try integer(text, flag: flag)
        }
        let shown = QuotedInput.clip(text)
        let number = try real(String(trimmed.dropLast()), flag: flag)
        let value = number * scale
        guard value.isFinite, value == value.rounded() else {
            throw BenchError(.invalidOption, "\(flag) \(shown): must be a whole number")
        }
        guard abs(value) < 9e18 else { throw BenchError(.invalidOption, "\(flag) \(shown): far too large") }
        return Int(value)
    }

    /// A comma-separated list of `count`s ("10k,100k,1M"), in the order given. An empty element
    /// or a size given twice is an error naming the flag and the list.
    public static func counts(_ text: String, flag: String) throws -> [Int] {
        let shown = QuotedInput.clip(text)
        var sizes: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !part.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw BenchError(.invalidOption, "\(flag) \"\(shown)\": an empty size in the list (sizes are separated by single commas)")
            }
            let size = try count(String(part), flag: flag)
            if sizes.contains(size) {
                throw BenchError(.invalidOption, "\(flag) \(shown): \(describe(size)) is in the list twice")
            }
            sizes.append(size)
        }
        return sizes
    }

    /// How infinity is spelled by those who type it, for a message that says what is wrong.
    static let infinityWords: Set<String> = ["inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"]

    /// A number for a message: plain digits with thousands separators, "nan"/"inf" spelled out.
    static func describe(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded(), abs(value) < 1e15 { return describe(Int64(value)) }
        return CSVNumber.format(value, digits: 6)
    }

    static func describe<I: BinaryInteger>(_ value: I) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }
}
