// Sorting a whole class by one numeric column (an integer of any width, Bool, Float, Double, or a
// Date, stored as its Double interval):
// the column read a leaf at a time by the field scan (StrataStorage's `forEachFieldLeaf`), no
// value boxed per row, and the rows ordered by a stable radix sort of 64-bit images that order
// as the values do. A top-N over a million rows spent most of its time building a `QueryValue`
// per row and in the comparison closure of a general sort.
//
// Invariants:
// - The order is RowSort's (`QueryOrdering.compare`): ascending, nils, then NaNs, then numbers
//   ascending; descending, numbers descending, then NaNs, then nils. -0 equals +0. Equal values
//   keep key order in both directions (a stable sort of the images, complemented when
//   descending).
// - A value is what `RowColumnReader.value` reads: an integer truncated to its property's width,
//   a Bool as its byte's non-zero, a Float widened to Double (exactly), a Date as its interval
//   since the reference date, nil only for an optional property whose null bit is set.
// - Dates order as their intervals do, -0 equal to +0. A NaN interval has no place in Realm's
//   order of dates (it compares after everything, both ways), so a column holding one is left to
//   the object path (nil), which sorts it as it always has.
// - Every object of the table, as the scan finds them in this snapshot: the caller has no key
//   list to agree with (Results sorts a whole class this way before listing its keys).
import StrataStorage

enum ColumnSort {
    /// The table's keys ordered by `reader`'s column; nil when the column is not numeric.
    static func sortedKeys(by reader: RowColumnReader, ascending: Bool,
                           objects: KeyedTree, pages: any PageReading) throws -> [UInt64]? {
        guard sorts(by: reader) else { return nil }
        var all = AllSorted()
        let capacity = try objects.count(in: pages)
        all.images.reserveCapacity(capacity)
        all.numberKeys.reserveCapacity(capacity)
        guard try scan(by: reader, ascending: ascending, objects: objects, pages: pages, into: &all) else { return nil }
        RadixSort.sort(&all.images, carrying: &all.numberKeys)
        return ordered(nils: all.nils, nans: all.nans, numbers: all.numberKeys, ascending: ascending)
    }

    /// Whether `reader`'s column is one this sort orders (a numeric fixed-width field).
    static func sorts(by reader: RowColumnReader) -> Bool {
        reader.field != nil && NumericImage(reader.kind) != nil
    }

    /// Hands `sink` every row of the table in key order, as a nil, a NaN or a number's image
    /// (complemented when descending, so that ascending images give the order); false when the
    /// column is not numeric. Generic over the sink alone: the callers' pages are an existential,
    /// and a function generic over them too was left unspecialised, with a call through the
    /// sink's protocol for every row (a third of a top-100's time).
    @inline(__always)
    static func scan<Sink: ColumnSortSink>(by reader: RowColumnReader, ascending: Bool, objects: KeyedTree,
                                           pages: any PageReading, into sink: inout Sink) throws -> Bool {
        guard let field = reader.field, let image = NumericImage(reader.kind) else { return false }
        // Complementing the image reverses the order while a stable sort keeps ties in key order.
        let flip: UInt64 = ascending ? 0 : .max
        var sawNaN = false
        let nanHasNoPlace: Bool = if case .date = image { true } else { false }
        try objects.forEachFieldLeaf(field, in: pages) { leafKeys, bits, isNull in
            for i in 0..<leafKeys.count {
                let key = leafKeys[i]
                if isNull[i] {
                    sink.takeNil(key)
                } else if let value = image.of(bits[i]) {
                    sink.takeNumber(value ^ flip, key)
                } else {
                    sawNaN = true
                    sink.takeNaN(key)
                }
            }
        }
        return !(sawNaN && nanHasNoPlace)
    }

    /// Realm's places for nils and NaNs: first when ascending, last when descending.
    static func ordered(nils: [UInt64], nans: [UInt64], numbers: [UInt64], ascending: Bool) -> [UInt64] {
        if nils.isEmpty && nans.isEmpty { return numbers }
        if ascending { return nils + nans + numbers }
        return numbers + nans + nils
    }
}

/// What a column sort's scan hands each row to.
protocol ColumnSortSink {
    mutating func takeNil(_ key: UInt64)
    mutating func takeNaN(_ key: UInt64)
    /// `image` orders as the row's place does (ties: key order).
    mutating func takeNumber(_ image: UInt64, _ key: UInt64)
}

/// Every row, for a whole sort.
private struct AllSorted: ColumnSortSink {
    var nils: [UInt64] = []
    var nans: [UInt64] = []
    var images: [UInt64] = []
    var numberKeys: [UInt64] = []

    @inline(__always) mutating func takeNil(_ key: UInt64) { nils.append(key) }
    @inline(__always) mutating func takeNaN(_ key: UInt64) { nans.append(key) }
    @inline(__always) mutating func takeNumber(_ image: UInt64, _ key: UInt64) {
        images.append(image)
        numberKeys.append(key)
    }
}

/// A column's stored bits mapped to unsigned integers in the values' order (nil for NaN).
enum NumericImage {
    case integer(bits: Int)
    case bool
    case float
    case double
    case date

    init?(_ kind: RowColumnReader.Kind) {
        switch kind {
        case .int(let bits): self = .integer(bits: bits)
        case .bool: self = .bool
        case .float: self = .float
        case .double: self = .double
        case .date: self = .date
        case .string: return nil
        }
    }

    @inline(__always)
    func of(_ raw: UInt64) -> UInt64? {
        switch self {
        case .integer(let bits):
            // Flipping the sign bit orders two's complement as unsigned.
            return UInt64(bitPattern: RowColumnReader.truncated(Int64(bitPattern: raw), bits: bits)) ^ (1 << 63)
        case .bool:
            return raw & 0xFF != 0 ? 1 : 0
        case .float:
            return Self.ordered(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))))
        case .double, .date:
            return Self.ordered(Double(bitPattern: raw))
        }
    }

    /// IEEE order as unsigned order: negative numbers have every bit flipped (larger magnitudes
    /// sort first), positive ones only the sign bit. -0 is taken as +0, which it equals.
    @inline(__always)
    private static func ordered(_ d: Double) -> UInt64? {
        if d.isNaN { return nil }
        let bits = d == 0 ? 0 : d.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
