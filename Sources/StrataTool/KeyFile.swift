// Encryption keys for the `strata` tool come from a file only: a key on the command line or in an
// environment variable is visible to every user through `ps` and /proc.
import Foundation

public enum KeyFile {
    /// The 64-byte key in `path`: 64 raw bytes, or 128 hexadecimal digits (surrounding
    /// whitespace, such as a final newline, ignored).
    public static func read(_ path: String) throws(ToolError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError("\(path): cannot read the key file")
        }
        let bytes = [UInt8](data)
        if bytes.count == 64 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = Array(text.utf8)
        guard digits.count == 128 else {
            throw ToolError("\(path): a key file holds 64 raw bytes or 128 hexadecimal digits; this one holds \(bytes.count) bytes")
        }
        var key: [UInt8] = []
        key.reserveCapacity(64)
        for i in stride(from: 0, to: 128, by: 2) {
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else {
                throw ToolError("\(path): character \(i + 1) of the key is not a hexadecimal digit")
            }
            key.append(high << 4 | low)
        }
        return key
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
