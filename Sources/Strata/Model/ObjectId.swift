// `ObjectId`, Realm's 12-byte BSON-style id, which Foundation does not have.
//
// Invariants:
// - An ObjectId is 12 bytes: 4-byte big-endian seconds since 1970, 5 random bytes fixed per
//   process, 3-byte big-endian counter; `generate()` ids made in one process are unique.
import Foundation
import Synchronization

/// A 12-byte unique identifier, as in Realm and MongoDB, often used as a primary key.
///
/// An id made by ``generate()`` holds its creation second, five random bytes chosen once per
/// process and a 24-bit counter, so ids made in one process do not repeat (unless more than 16
/// million are made within one second) and sort roughly by creation time.
///
/// ```swift
/// final class Item: Object {
///     @Persisted(primaryKey: true) var id = ObjectId.generate()
///     @Persisted var title = ""
/// }
/// let id = try ObjectId(string: "65a1f0c2e4b0a1b2c3d4e5f6")
/// print(id.timestamp)
/// ```
public struct ObjectId: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The twelve bytes of the id: the big-endian creation second, five per-process random bytes,
    /// and a three-byte big-endian counter.
    public var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    private static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Atomic<UInt32>(UInt32.random(in: 0..<0xFF_FFFF))

    /// Returns a new id, different from the other ids this process generates.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
        let c = counter.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF_FFFF
        let r = processRandom
        return ObjectId(bytes: (UInt8(seconds >> 24), UInt8((seconds >> 16) & 0xFF), UInt8((seconds >> 8) & 0xFF), UInt8(seconds & 0xFF),
                                r[0], r[1], r[2], r[3], r[4],
                                UInt8(c >> 16), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)))
    }

    /// Creates an id from its twelve bytes.
    ///
    /// - Parameter bytes: the id's bytes, as ``bytes`` returns them.
    public init(bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        self.bytes = bytes
    }

    /// The all-zero id (the default value of a non-optional ObjectId property).
    public init() { bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }

    /// Creates an id for a given creation time, machine and process, as a distributed id
    /// generator does; the last three bytes are this process's counter, so two calls with the same
    /// arguments still give different ids.
    ///
    /// The id has room for the low 24 bits of `machineId` and the low 16 bits of `processId`
    /// (higher bits are dropped), and for `timestamp` in whole seconds from 1970 to 2106.
    ///
    /// - Parameters:
    ///   - timestamp: the creation time ``timestamp`` returns (to the second).
    ///   - machineId: the machine identifier.
    ///   - processId: the process identifier.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt32(clamping: Int64(timestamp.timeIntervalSince1970.rounded(.down)))
        let c = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF_FFFF
        let m = UInt32(truncatingIfNeeded: machineId) & 0xFF_FFFF
        let p = UInt16(truncatingIfNeeded: processId)
        self.init(bytes: (UInt8(seconds >> 24), UInt8((seconds >> 16) & 0xFF), UInt8((seconds >> 8) & 0xFF), UInt8(seconds & 0xFF),
                          UInt8(m >> 16), UInt8((m >> 8) & 0xFF), UInt8(m & 0xFF),
                          UInt8(p >> 8), UInt8(p & 0xFF),
                          UInt8(c >> 16), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)))
    }

    /// Creates an id from 24 hexadecimal digits written in the source, as in
    /// `ObjectId("6058f12b957ba06156586a7c")`.
    ///
    /// A literal that is not 24 hexadecimal digits is a programming error and stops the process
    /// with a `Strata:` message; use ``init(string:)`` for text that comes from outside the program.
    ///
    /// - Parameter literal: the id's 24 hexadecimal digits.
    public init(_ literal: StaticString) {
        let text = literal.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do {
            try self.init(string: text)
        } catch {
            Stop.now("Strata: invalidArgument: ObjectId literal '\(text)' is not 24 hexadecimal digits")
        }
    }

    /// Parses an id from its 24 hexadecimal digits (upper or lower case).
    ///
    /// - Parameter string: the id, such as ``stringValue`` returns it.
    /// - Throws: `Realm.Error` with code `.invalidArgument` when `string` is not 24 hexadecimal digits.
    public init(string: String) throws {
        let hex = Array(string.utf8)
        guard hex.count == 24 else { throw Realm.Error(.invalidArgument, "ObjectId string '\(string)' is not 24 hex digits") }
        var out = [UInt8](repeating: 0, count: 12)
        for i in 0..<12 {
            guard let hi = Self.nibble(hex[2 * i]), let lo = Self.nibble(hex[2 * i + 1]) else {
                throw Realm.Error(.invalidArgument, "ObjectId string '\(string)' is not 24 hex digits")
            }
            out[i] = hi << 4 | lo
        }
        self.init()
        withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: out) }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }

    var array: [UInt8] { withUnsafeBytes(of: bytes) { Array($0) } }

    /// The id as 24 lowercase hexadecimal digits.
    public var stringValue: String { array.map { String(format: "%02x", $0) }.joined() }
    public var description: String { stringValue }
    /// The creation time the id records, to the second.
    public var timestamp: Date {
        let a = array
        let s = UInt32(a[0]) << 24 | UInt32(a[1]) << 16 | UInt32(a[2]) << 8 | UInt32(a[3])
        return Date(timeIntervalSince1970: TimeInterval(s))
    }

    public static func == (l: ObjectId, r: ObjectId) -> Bool { l.array == r.array }
    public func hash(into h: inout Hasher) { h.combine(array) }
    public static func < (l: ObjectId, r: ObjectId) -> Bool { l.array.lexicographicallyPrecedes(r.array) }
}

extension ObjectId: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .objectId) }
    public static func _strataDefault() -> ObjectId { ObjectId() }
    static func fromBytes(_ b: UnsafeRawBufferPointer) -> ObjectId {
        var id = ObjectId()
        guard b.count >= 12 else { return id }
        withUnsafeMutableBytes(of: &id.bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: b[b.startIndex..<(b.startIndex + 12)])) }
        return id
    }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> ObjectId? {
        fromBytes(row.fixedBytes(column, count: 12))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        withUnsafeBytes(of: bytes) { row.storeBytes($0, column) }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> ObjectId { fromBytes(element.bytes) }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        withUnsafeBytes(of: bytes) { out.bytes.append(contentsOf: $0) }
    }
}
