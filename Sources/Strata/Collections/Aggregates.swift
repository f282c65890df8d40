// Column scans behind min/max/sum/average(ofProperty:) of Results, List and LinkingObjects.
//
// Invariants:
// - A scan decodes one column straight from each row (no object is materialised); over a whole
//   table it reads only that column's bytes (ColumnScan.swift).
// - The requested Swift type must match the property's stored type (any integer width for an
//   int property); a mismatch or unknown property stops with a "Strata:" message, as Realm raises.
import Foundation
import StrataStorage

enum RowSource {
    /// Every object of a table.
    case table(Int)
    /// These objects of a table.
    case keys(Int, [UInt64])
}

/// The column aggregates of the core's tables (see the file header). A read-only view of the core.
struct ColumnAggregates {
    /// Strong, not `unowned(unsafe)`: each use of an unowned reference is retained and released
    /// again (measured: bulk inserts took 12% more CPU), while a strong one read from the view
    /// is borrowed; a view is made by its core for one call and never kept.
    let core: RealmCore
}

extension ColumnAggregates {
    private func aggregateColumn(info: ClassInfo, property: String) -> _Column {
        guard let i = info.columnIndex(named: property) else {
            core.misuse(.invalidArgument, "'\(info.schema.className)' has no property '\(property)'")
        }
        let c = info.layout.columns[i]
        guard c.collection == .none, c.type != .object, c.type != .linkingObjects else {
            core.misuse(.invalidArgument, "'\(info.schema.className).\(property)' cannot be aggregated")
        }
        return c
    }

    /// Calls `body` with each row of `source`. Over a whole table, only the bytes of `column`
    /// (its null bit and fixed slot) are read when it has a fixed width (Core/ColumnScan.swift).
    private func scanRows(_ source: RowSource?, reading column: _Column, _ body: (_RowView) -> Void) {
        core.checkThread()
        guard let source else { return }
        do {
            let p = try core.pages()
            switch source {
            case .table(let t):
                if let bytes = ColumnScan.bytes(column.fixedBytes) {
                    try core.snap.metas[t].objects.forEach(from: 0, reading: bytes, in: p) { _, row in
                        body(_RowView(bytes: row, core: core))
                        return true
                    }
                    return
                }
                try core.snap.metas[t].objects.forEach(from: 0, in: p) { _, row in
                    body(_RowView(bytes: row, core: core))
                    return true
                }
            case .keys(let t, let keys):
                // A filter's matches come in key order: each lookup starts at the leaf of the one
                // before.
                let objects = core.snap.metas[t].objects
                var finger = LeafFinger()
                for k in keys {
                    _ = try objects.withValue(forKey: k, in: p, finger: &finger) { body(_RowView(bytes: $0, core: core)) }
                }
            }
        } catch {
            core.readFailed(error)
        }
    }

    /// Over a whole table, the bits (little-endian, zero-extended) of an int, Float or Double
    /// column in each row where it is not null, read leaf by leaf without a row view per object
    /// (StrataStorage KeyedTreeField.swift: the same rows and values as `scanRows`). False when
    /// the source is not a whole table or the column not such a number: the caller scans rows.
    func scanField(_ source: RowSource?, column c: _Column, _ body: (UInt64) -> Void) -> Bool {
        scanFieldValues(source, column: c) { values in
            for bits in values { body(bits) }
        }
    }

    /// `scanField` a leaf at a time: the non-null values of each leaf in one buffer. The
    /// aggregates that run over many values loop over the buffer in their own closure, so the
    /// loop is compiled with the aggregate's arithmetic: a closure call per value cost more
    /// than the arithmetic.
    func scanFieldValues(_ source: RowSource?, column c: _Column, _ body: (UnsafeBufferPointer<UInt64>) -> Void) -> Bool {
        guard case .table(let t)? = source, !ColumnScan.wholeRows, c.collection == .none else { return false }
        let width: Int
        switch c.type {
        case .int, .double: width = 8
        case .float: width = 4
        default: return false
        }
        core.checkThread()
        let field = c.fixedField(width: width, isOptional: c.isOptional)
        do {
            try core.snap.metas[t].objects.forEachFieldValues(field, in: try core.pages(), body)
        } catch {
            core.readFailed(error)
        }
        return true
    }

    func forEachValue<T: _PersistableElement>(_ type: T.Type, info: ClassInfo, property: String, source: RowSource?, _ body: (T) -> Void) {
        let c = aggregateColumn(info: info, property: property)
        guard T._strataShape.type == c.type else {
            core.misuse(.invalidArgument, "'\(info.schema.className).\(property)' is \(c.type), not \(T.self)")
        }
        scanRows(source, reading: c) { row in
            if c.isOptional && row.isNull(c) { return }
            if let v = T._strataRead(row, c) { body(v) }
        }
    }

    /// Each non-null value of a numeric property (integer, Float, Double or Decimal128) as a
    /// number to add, for sums and means of any `AddableType`.
    func forEachAddend(info: ClassInfo, property: String, source: RowSource?, _ body: (_StrataNumber) -> Void) {
        let c = aggregateColumn(info: info, property: property)
        guard c.type == .int || c.type == .float || c.type == .double || c.type == .decimal128 else {
            core.misuse(.invalidArgument, "'\(info.schema.className).\(property)' is \(c.type), not a number")
        }
        let scanned = scanField(source, column: c) { bits in
            switch c.type {
            case .int: body(.int(Int128(Int64(bitPattern: bits))))
            case .float: body(.double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))))
            default: body(.double(Double(bitPattern: bits)))
            }
        }
        if scanned { return }
        scanRows(source, reading: c) { row in
            if c.isOptional && row.isNull(c) { return }
            switch c.type {
            case .int: body(.int(Int128(Int64(littleEndian: row.load(c, as: Int64.self)))))
            case .float: body(.double(Double(Float(bitPattern: UInt32(littleEndian: row.load(c, as: UInt32.self))))))
            case .decimal128: let d = Decimal128.unpackedNumber(row.fixedBytes(c, count: 16)); if !d.isNaN { body(.decimal(d)) }
            default: body(.double(row.loadDouble(c)))
            }
        }
    }

    /// The mean of a numeric property as `T` (see `forEachAddend`), nil when no row has a value.
    func average<T: AddableType>(info: ClassInfo, property: String, source: RowSource?) -> T? {
        let (total, count) = addendTotal(info: info, property: property, source: source)
        return total.map { T._strataFrom($0.divided(by: count)) }
    }

    /// The total of the non-null values of a numeric property (see `forEachAddend`) and their
    /// count, added in row order as `_StrataNumber`'s `+` adds them: integers exactly, in 128
    /// bits; floating-point in Double, starting from the first value (so that a lone -0 stays
    /// -0). Over a whole table the column is read by `scanField` into a plain accumulator.
    func addendTotal(info: ClassInfo, property: String, source: RowSource?) -> (total: _StrataNumber?, count: Int) {
        let c = aggregateColumn(info: info, property: property)
        var count = 0
        switch c.type {
        case .int:
            var sum: Int128 = 0
            if scanFieldValues(source, column: c, { values in
                for bits in values { sum += Int128(Int64(bitPattern: bits)) }
                count += values.count
            }) { return (count == 0 ? nil : .int(sum), count) }
        case .double, .float:
            let float = c.type == .float
            var sum: Double?
            if scanFieldValues(source, column: c, { values in
                for bits in values {
                    let v = float ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
                    sum = sum.map { $0 + v } ?? v
                }
                count += values.count
            }) { return (sum.map { .double($0) }, count) }
        default:
            break
        }
        var total: _StrataNumber?
        forEachAddend(info: info, property: property, source: source) { n in
            total = total.map { $0 + n } ?? n
            count += 1
        }
        return (total, count)
    }
}

extension ColumnAggregates {
    /// The smallest or largest non-null value of a numeric or date property, boxed as Foundation
    /// boxes it (`NSNumber` of the property's own type, `NSDecimalNumber`, `NSDate`).
    func boxedExtreme(info: ClassInfo, property: String, source: RowSource?, smallest: Bool) -> AnyObject? {
        struct RowExtreme: ExtremeReader {
            let core: RealmCore, info: ClassInfo, property: String, source: RowSource?, smallest: Bool
            func extreme<T: _PersistableElement & Comparable>(_: T.Type) -> T? {
                var best: T?
                core.aggregates.forEachValue(T.self, info: info, property: property, source: source) { v in
                    if let b = best, smallest ? b <= v : b >= v {} else { best = v }
                }
                return best
            }
        }
        let c = aggregateColumn(info: info, property: property)
        guard c.type.hasBoxedExtreme else {
            core.misuse(.invalidArgument, "'\(info.schema.className).\(property)' is \(c.type), not a number or a date")
        }
        return c.type.boxedExtreme(RowExtreme(core: core, info: info, property: property, source: source, smallest: smallest))
    }

    /// The sum (or, with `mean`, the mean) of a numeric property as an `NSNumber`; the mean of no
    /// value is nil.
    func boxedTotal(info: ClassInfo, property: String, source: RowSource?, mean: Bool) -> NSNumber? {
        let (total, count) = addendTotal(info: info, property: property, source: source)
        guard let total else { return mean ? nil : NSNumber(value: 0) }
        return (mean ? total.divided(by: count) : total).boxed
    }
}

/// Reads the smallest or largest value of a property as a given type (from stored rows, or from
/// unmanaged objects).
protocol ExtremeReader {
    func extreme<T: _PersistableElement & Comparable>(_ type: T.Type) -> T?
}

extension PropertyType {
    /// Whether min and max of a property of this type can be boxed (numbers and dates).
    var hasBoxedExtreme: Bool { [.int, .float, .double, .decimal128, .date].contains(self) }

    /// The extreme `reader` reads, boxed as Foundation boxes a value of this type: an integer
    /// NSNumber for an integer, an NSDecimalNumber for a Decimal128, an NSDate for a date; nil
    /// when there is none (or the type has no boxed extreme, see `hasBoxedExtreme`).
    func boxedExtreme(_ reader: some ExtremeReader) -> AnyObject? {
        switch self {
        case .int: return reader.extreme(Int64.self).map { NSNumber(value: $0) }
        case .float: return reader.extreme(Float.self).map { NSNumber(value: $0) }
        case .double: return reader.extreme(Double.self).map { NSNumber(value: $0) }
        case .decimal128: return reader.extreme(Decimal128.self).map { NSDecimalNumber(decimal: $0.value) }
        case .date: return reader.extreme(Date.self).map { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) }
        default: return nil
        }
    }
}
