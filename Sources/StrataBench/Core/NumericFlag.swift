// Numbers given on the command line, read from their text so that every bad value gets a message
// that names the flag and repeats the value as typed ("--duration nan: not a number").
//
// Invariants: a value is finite; a whole-number flag takes an integer, also written in exponent
// form when it is a whole number ("1e6"), and a value beyond `Int`'s range is an error, never a
// wrap or a trap. Ranges (what the machine can do) are checked by `RunOptions.checkBounds`.

import Foundation

public enum NumericFlag {
    /// A real number (seconds, readings per second).
    public static func real(_ text: String, flag: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let text = QuotedInput.clip(text)
        guard !trimmed.isEmpty else { throw BenchError(.invalidOption, "\(flag) \"\(text)\": an empty value is not a number") }
        guard let value = Double(trimmed) else {
            throw BenchError(.invalidOption, "\(flag) \(text): not a number")
        }
        if value.isNaN { throw BenchError(.invalidOption, "\(flag) \(text): not a number") }
        if value.isInfinite { throw BenchError(.invalidOption, "\(flag) \(text): must be a finite number") }
        return value
    }

    /// A whole number (readings, batch size, milliseconds, threads, repetitions).
    public static func integer(_ text: String, flag: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed) { return value }
        let value = try real(text, flag: flag)
        let text = QuotedInput.clip(text)
        guard value == value.rounded() else {
            throw BenchError(.invalidOption, "\(flag) \(text): must be a whole number")
        }
        // Doubles at or above 2^63 do not fit in Int (Int(value) would trap).
        guard value < 9.2e18 && value > -9.2e18 else {
            throw BenchError(.invalidOption, "\(flag) \(text): far too large")
        }
        return Int(value)
    }

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
