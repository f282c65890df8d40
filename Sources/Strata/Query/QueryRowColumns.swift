// Floating-point and date comparisons on row bytes, and the row bytes a compiled predicate
// reads (so a scan over packed leaves fills only those: StrataStorage's KeyedTreeProjection).
//
// Invariants:
// - `RowDoubleComparison` gives exactly what `QueryEvaluator.compare` gives for the same values
//   (see its comment); a predicate it does not cover keeps the generic leaf.
// - `readBytes` names every byte a predicate's evaluation reads: each column's null-bit byte and
//   fixed slot. A predicate reading a variable-length column (a string) needs the whole row: nil.
import Foundation
import StrataStorage

/// `column op constant`, op among == != < <= > >=, no options, on a Double or Float column
/// against a Double, Float or Int constant, or a Date column against a Date constant: compared
/// as `Double`s without building a `QueryValue` per row.
/// Exact against `QueryValueComparison`: the column's value widens exactly to Double (as
/// `doubleValue` widens a Float); between two doubles Realm's order is IEEE order with NaN
/// unordered, so `==` and the orderings are false and `!=` true when either is NaN, which is what
/// IEEE comparisons give; dates compare by their time interval, as `Date`'s own operators do;
/// an Int constant compares exactly through `compareIntToDouble`, the evaluator's own function.
/// A nil (optional column) equals nothing and is unordered against numbers and dates: only `!=`
/// holds.
final class RowDoubleComparison {
    enum Constant {
        case double(Double)
        case int(Int64)
    }

    let reader: RowColumnReader
    let op: QueryOperator
    let constant: Constant

    /// The comparison for `reader op value`, nil when this leaf does not cover it.
    init?(reader: RowColumnReader, op: QueryOperator, value: QueryValue) {
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: break
        default: return nil
        }
        switch (reader.kind, value) {
        case (.double, .double(let d)), (.float, .double(let d)): constant = .double(d)
        case (.double, .float(let f)), (.float, .float(let f)): constant = .double(Double(f))
        case (.double, .int(let i)), (.float, .int(let i)): constant = .int(i)
        case (.date, .date(let d)): constant = .double(d.timeIntervalSinceReferenceDate)
        default: return nil
        }
        self.reader = reader
        self.op = op
    }

    @inline(__always)
    func evaluate(_ row: _RowView) -> Bool {
        evaluate(bits: reader.isNull(row) ? nil : reader.fixedBits(row))
    }

    /// Whether the column is a Float, whose bits `value(ofBits:float:)` widens to a Double.
    var readsFloat: Bool {
        if case .float = reader.kind { return true }
        return false
    }

    /// The column's value from its bits: a Float widened (exactly), or a Double. `float` is
    /// `readsFloat`, passed in so that a loop over many values decides it once.
    @inline(__always)
    static func value(ofBits bits: UInt64, float: Bool) -> Double {
        float ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
    }

    /// The comparison on the column's bits as `RowColumnReader.fixedBits` reads them (nil: null),
    /// for the row scan and the field scan alike (`QueryRowProgram.fieldTest`).
    @inline(__always)
    func evaluate(bits: UInt64?) -> Bool {
        guard let bits else { return op == .notEqual }
        let x = Self.value(ofBits: bits, float: readsFloat)
        switch constant {
        case .double(let c):
            switch op {
            case .equal: return x == c
            case .notEqual: return x != c
            case .less: return x < c
            case .lessOrEqual: return x <= c
            case .greater: return x > c
            case .greaterOrEqual: return x >= c
            default: return false
            }
        case .int(let c):
            // The order of x against c, as `numericOrder(.double(x), .int(c))` computes it.
            let order = QueryValueComparison.compareIntToDouble(c, x).map { -$0 }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return (order ?? 0) < 0
            case .lessOrEqual: return order.map { $0 <= 0 } ?? false
            case .greater: return (order ?? 0) > 0
            case .greaterOrEqual: return order.map { $0 >= 0 } ?? false
            default: return false
            }
        }
    }
}

extension RowColumnReader {
    /// The bytes this reader reads, nil for a variable-length column (its bytes are anywhere in the row).
    var readBytes: [Range<Int>]? { column.fixedBytes }

    /// The slot's width for a fixed-width kind (an integer of any Swift width has an Int64
    /// slot), nil for a string.
    var fixedWidth: Int? {
        switch kind {
        case .int, .double, .date: return 8
        case .float: return 4
        case .bool: return 1
        case .string: return nil
        }
    }

    /// The column's slot and null bit as StrataStorage's field scan reads them: `fixedBits` and
    /// `isNull` of every row, without a row view (Trees/KeyedTreeField.swift).
    var field: FixedField? {
        guard let width = fixedWidth else { return nil }
        return column.fixedField(width: width, isOptional: isOptional)
    }

    /// The slot's bits, little-endian and zero-extended: what `forEachFieldLeaf` gives for `field`.
    @inline(__always)
    func fixedBits(_ row: _RowView) -> UInt64 {
        switch fixedWidth {
        case 4: return UInt64(UInt32(littleEndian: row.load(column, as: UInt32.self)))
        case 1: return UInt64(row.load(column, as: UInt8.self))
        default: return UInt64(littleEndian: row.load(column, as: UInt64.self))
        }
    }
}

extension _Column {
    /// The slot of `width` bytes and the null bit as StrataStorage's field scan reads them
    /// (Trees/KeyedTreeField.swift). Not optional: every row's slot is read, its null bit ignored.
    func fixedField(width: Int, isOptional: Bool) -> FixedField {
        FixedField(offset: offset, width: width, nullByte: index / 8, nullMask: isOptional ? 1 << UInt8(index % 8) : 0)
    }

    /// The null bit's byte and the fixed slot of a scalar column of fixed width; nil for
    /// variable-length values, links, collections and computed columns.
    var fixedBytes: [Range<Int>]? {
        guard collection == .none, !isVariable, type != .object, type != .linkingObjects else { return nil }
        let width = _Column.width(type: type, collection: collection)
        return [index / 8 ..< index / 8 + 1, offset ..< offset + width]
    }
}

extension RowPredicate {
    /// Every byte the evaluation reads; nil when it needs the whole row.
    var readBytes: [Range<Int>]? {
        switch self {
        case .constant: return []
        case .int(let c): return c.reader.readBytes
        case .double(let c): return c.reader.readBytes
        case .stringEquality: return nil
        case .generic(let c):
            guard let left = c.left.readBytes, let right = c.right.readBytes else { return nil }
            return left + right
        case .and(let list), .or(let list):
            var all: [Range<Int>] = []
            for item in list.items {
                guard let bytes = item.readBytes else { return nil }
                all += bytes
            }
            return all
        case .not(let box): return box.inner.readBytes
        }
    }
}

extension RowOperand {
    var readBytes: [Range<Int>]? {
        switch self {
        case .constant: return []
        case .column(let reader): return reader.readBytes
        }
    }
}
