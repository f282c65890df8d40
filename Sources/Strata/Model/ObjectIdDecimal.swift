// `ObjectId` (12-byte BSON-style id) and `Decimal128` (a decimal number), Realm's two value types
// that Foundation does not have.
//
// Invariants:
// - An ObjectId is 12 bytes: 4-byte big-endian seconds since 1970, 5 random bytes fixed per
//   process, 3-byte big-endian counter; `generate()` ids made in one process are unique.
// - Decimal128 wraps Foundation's `Decimal`. It is stored in 16 bytes (a fixed row slot, like a
//   UUID): bytes 0..<14 the coefficient (unsigned, little-endian, < 2^112), byte 14 the decimal
//   exponent (Int8), byte 15 flags (bit 0 negative, bit 1 NaN). Like Realm's IEEE-754 decimal128,
//   that holds 34 significant digits: a value with more (Foundation's Decimal allows 38) is
//   rounded half-up to 34 when stored. Values of ≤ 34 digits round-trip exactly.
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

/// A decimal number, Realm's `Decimal128`, backed by Foundation's `Decimal`.
///
/// A stored value keeps 34 significant digits, as Realm's IEEE 754 decimal128 does: a value with
/// more (a `Decimal` can have 38) is rounded half-up to 34 digits when it is written, and values
/// of at most 34 digits read back exactly.
///
/// ```swift
/// final class Invoice: Object {
///     @Persisted var total: Decimal128 = 0
/// }
/// invoice.total = try Decimal128(string: "1234.56")
/// ```
public struct Decimal128: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// The number as a Foundation `Decimal`.
    public var value: Decimal

    /// Creates a decimal number from a `Decimal` (zero by default).
    ///
    /// - Parameter value: the number.
    public init(_ value: Decimal = 0) { self.value = value }
    public init(integerLiteral v: Int) { value = Decimal(v) }
    public init(floatLiteral v: Double) { value = Decimal(v) }
    /// A number written as a string literal (`let price: Decimal128 = "12.50"`, `Decimal128("1e3")`).
    /// A literal that is not a number is NaN, as Realm's is; ``init(string:)`` throws instead.
    public init(stringLiteral v: String) {
        value = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }
    /// Parses a decimal string; throws `.invalidArgument` when it is not a number.
    public init(string: String) throws {
        guard let d = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Realm.Error(.invalidArgument, "'\(string)' is not a decimal number")
        }
        value = d
    }

    public var description: String { value.description }
    public static func < (l: Decimal128, r: Decimal128) -> Bool { l.value < r.value }
    // Written out: Strideable's default `==` (by `distance(to:) == 0`) would otherwise replace the
    // synthesized one and recurse through the Stride, which is Decimal128 itself.
    public static func == (l: Decimal128, r: Decimal128) -> Bool { l.value == r.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension Decimal128: _PersistableElement {
    public static var _strataShape: _PropertyShape { _PropertyShape(type: .decimal128) }
    public static func _strataDefault() -> Decimal128 { Decimal128() }

    static let coefficientLimit: UInt128 = 1 << 112

    /// The 16-byte stored form (see the file header).
    func packed() -> (UInt64, UInt64) {
        if value.isNaN { return (0, UInt64(2) << 56) }
        var e = value.exponent
        // The significand of a finite Decimal is a non-negative integer of at most 38 digits.
        var m = UInt128(value.significand.description) ?? 0
        if m >= Self.coefficientLimit {
            // Drop the fewest trailing digits that make it fit, rounding once (half up).
            var divisor: UInt128 = 1
            while m / divisor >= Self.coefficientLimit { divisor *= 10; e += 1 }
            let (q, r) = m.quotientAndRemainder(dividingBy: divisor)
            m = r >= divisor - r ? q + 1 : q
            if m >= Self.coefficientLimit { m = (m + 5) / 10; e += 1 }  // the carry reached the limit
        }
        if m == 0 { e = 0 }
        let clampedExponent = Int8(clamping: e)
        let negative: UInt64 = (value.sign == .minus && m != 0) ? 1 : 0
        let low = UInt64(truncatingIfNeeded: m)
        let high = UInt64(truncatingIfNeeded: m >> 64)  // < 2^48
        let top = high | UInt64(UInt8(bitPattern: clampedExponent)) << 48 | negative << 56
        return (low, top)
    }

    /// Decodes the 16-byte form; shorter input (never written by this layer) reads as 0.
    static func unpack(_ b: UnsafeRawBufferPointer) -> Decimal128 {
        guard b.count >= 16 else { return Decimal128() }
        let low = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let top = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let flags = UInt8(truncatingIfNeeded: top >> 56)
        if flags & 2 != 0 { return Decimal128(Decimal.nan) }
        let exponent = Int(Int8(bitPattern: UInt8(truncatingIfNeeded: top >> 48)))
        let m = UInt128(top & 0xFFFF_FFFF_FFFF) << 64 | UInt128(low)
        let significand: Decimal
        if m <= UInt128(UInt64.max) {
            significand = Decimal(UInt64(m))
        } else {
            significand = Decimal(string: String(m)) ?? 0
        }
        return Decimal128(Decimal(sign: flags & 1 != 0 ? .minus : .plus, exponent: exponent, significand: significand))
    }

    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Decimal128? {
        unpack(row.fixedBytes(column, count: 16))
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        let (low, top) = packed()
        withUnsafeBytes(of: (low.littleEndian, top.littleEndian)) { row.storeBytes($0, column) }
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Decimal128 { unpack(element.bytes) }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        let (low, top) = packed()
        withUnsafeBytes(of: (low.littleEndian, top.littleEndian)) { out.bytes.append(contentsOf: $0) }
    }
}
