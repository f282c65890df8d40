// The bytes of an import's input, read a chunk at a time, for parsers that look at one byte at a
// time: a standard input without end (`< /dev/zero`) is refused at its first invalid byte or at
// the stated limit, never read whole into memory first.
//
// Invariants:
// - Every byte handed out is part of well-formed UTF-8: a malformed sequence (a stray
//   continuation byte, an overlong form, a surrogate, a value past U+10FFFF, a sequence cut
//   short) is a `ToolError` naming its line and column when its first byte is reached, so what
//   the parsers collect always decodes exactly (nothing becomes U+FFFD).
// - At most `limit` bytes are read; one more is an error stating the limit.
// - `line` and `column` are those of the next byte (column counts characters, from 1).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class ByteInput {
    /// The limit when none is given: an input larger than this is refused.
    public static let defaultLimit = 1 << 30

    /// How the input is named in errors ("standard input", its path).
    public let source: String
    private let fd: Int32
    private let limit: Int
    private var buffer: [UInt8]
    private var index = 0
    /// Bytes read from the descriptor so far.
    private var total = 0
    private var ended: Bool
    /// Continuation bytes still to come of a sequence already checked.
    private var continuing = 0
    public private(set) var line = 1
    public private(set) var column = 1

    /// Reads `fd` (not closed here) up to `limit` bytes.
    public init(fd: Int32, source: String, limit: Int = ByteInput.defaultLimit) {
        self.fd = fd
        self.source = source
        self.limit = limit
        buffer = []
        ended = false
    }

    /// Bytes already in memory (a test's input, a CSV field holding JSON).
    public init(bytes: [UInt8], source: String) {
        self.fd = -1
        self.source = source
        self.limit = bytes.count
        buffer = bytes
        total = bytes.count
        ended = true
    }

    public convenience init(_ text: String, source: String) {
        self.init(bytes: Array(text.utf8), source: source)
    }

    /// An error at the next byte's position.
    public func error(_ what: String) -> ToolError {
        ToolError("\(source): line \(line), column \(column): \(what)")
    }

    /// Makes at least `count` bytes available from `index` when the input has them; false when
    /// it ends first.
    private func fill(_ count: Int) throws(ToolError) -> Bool {
        while buffer.count - index < count {
            if ended { return false }
            if index > 0 {
                buffer.removeSubrange(0..<index)
                index = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ToolError("\(source): cannot read the input (errno \(errno))")
            }
            if n == 0 { ended = true; return buffer.count - index >= count }
            total += n
            guard total <= limit else {
                throw ToolError("\(source): the input is larger than the limit of \(limit) bytes (--input-limit)")
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
        return true
    }

    /// The next byte without taking it; nil at the end.
    public func peek() throws(ToolError) -> UInt8? {
        if index >= buffer.count {
            guard try fill(1) else { return nil }
        }
        let b = buffer[index]
        if b >= 0x80 && continuing == 0 { try checkSequence(b) }
        return b
    }

    /// Takes the next byte; nil at the end.
    public func next() throws(ToolError) -> UInt8? {
        guard let b = try peek() else { return nil }
        index += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
        if b >= 0x80 {
            if continuing > 0 { continuing -= 1 } else { continuing = Self.sequenceLength(b) - 1 }
        }
        return b
    }

    /// Every remaining byte (up to the limit), not checked as UTF-8.
    public func readAll() throws(ToolError) -> [UInt8] {
        while try fill(buffer.count - index + 1) {}
        let rest = Array(buffer[index...])
        index = buffer.count
        return rest
    }

    /// Whether the input ends here (only whitespace is not skipped: the caller does that).
    public func atEnd() throws(ToolError) -> Bool { try peek() == nil }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
    }

    /// Checks the UTF-8 sequence starting with `lead` at `index` (Unicode's table of well-formed
    /// byte sequences).
    private func checkSequence(_ lead: UInt8) throws(ToolError) {
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error(String(format: "the byte 0x%02X is not valid UTF-8 here", lead))
        }
        guard try fill(length) else { throw error("a UTF-8 sequence cut short by the end of the input") }
        for i in 1..<length {
            let b = buffer[index + i]
            let (lo, hi) = i == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard b >= lo && b <= hi else {
                throw error(String(format: "the byte 0x%02X after 0x%02X is not valid UTF-8", b, lead))
            }
        }
    }
}
