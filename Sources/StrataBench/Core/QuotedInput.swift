// Input repeated in a message, short enough to read: a CSV cell, a flag's value or a file's text
// may be megabytes long or hold control bytes, and a message that prints it whole buries the cause
// (and a CI log) under it.
//
// Invariants: at most `limit` characters of the input are shown, followed by "… (N bytes)" when
// more were cut; control characters (NUL, escape, line breaks) are shown escaped, never sent to
// the terminal as they are.

public enum QuotedInput {
    /// How many characters of an input a message shows.
    public static let limit = 80

    /// `text` as a message may quote it: escaped, and clipped to `limit` characters.
    public static func clip(_ text: String, limit: Int = QuotedInput.limit) -> String {
        var shown = ""
        var count = 0
        for character in text {
            if count == limit {
                return shown + "… (\(text.utf8.count) bytes)"
            }
            shown += escaped(character)
            count += 1
        }
        return shown
    }

    static func escaped(_ character: Character) -> String {
        guard character.unicodeScalars.contains(where: isControl) else { return String(character) }
        return character.unicodeScalars.map { isControl($0) ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
    }
}
