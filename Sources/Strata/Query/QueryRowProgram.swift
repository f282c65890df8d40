// QueryRowProgram: a predicate compiled against one class's row layout, evaluated on the stored
// row bytes of each candidate, so a filter/count over a table creates no object.
//
// Invariants:
// - A program exists only when *every* comparison of the predicate reads plain scalar
//   properties of the queried class (no key paths through links, no collections, aggregates or
//   SUBQUERY) whose Swift type is a known scalar (Int/Int8/16/32/64, Bool, Float, Double, Date,
//   String, or an Optional of one). Anything else (enums, ObjectId, UUID, Data, Decimal128,
//   links…) returns nil, and the caller uses the object path (QueryMatcher on materialised
//   objects). There is no mixing of the two paths within one predicate.
// - The value read from a row is exactly what `Object.queryValue(forKey:)` yields for the same
//   row: the same decoding as the property's `_strataRead` (integers truncated to the Swift
//   width, optional columns nil when their null bit is set, strings decoded as UTF-8 with
//   repair). Comparisons then go through `QueryEvaluator.compare`, the object path's own code,
//   so the semantics cannot drift. Two fast leaves skip building a `QueryValue`:
//   `Int column op Int constant` (op among == != < <= > >=), `Double/Float/Date column op
//   number/date constant` (QueryRowColumns.swift) and `String column ==/!= String constant`
//   without options; all are exact (see their comments).
// - `QueryRowProgram.objectPathOnly` (a task-local, tests only) disables programs, to compare
//   both paths on the same data.
// - Not Sendable: a program holds the predicate's constants and is used on the thread of the
//   realm whose rows it reads, for one evaluation of a `Results`.
import Foundation
import StrataStorage

/// A predicate compiled to read row bytes directly.
final class QueryRowProgram {
    /// Tests: when true, `compile` returns nil so queries take the object path.
    @TaskLocal static var objectPathOnly = false

    private let root: RowPredicate

    private init(root: RowPredicate) { self.root = root }

    /// The program for `predicate` over objects described by `info`, or nil when some part of it
    /// needs the object path.
    static func compile(_ predicate: QueryPredicate, info: ClassInfo) -> QueryRowProgram? {
        if objectPathOnly { return nil }
        let compiled = CompiledPredicate(predicate)
        guard let root = RowPredicate(compiled, info: info) else { return nil }
        return QueryRowProgram(root: root)
    }

    /// Whether the object stored as `row` matches. Throws what the object path would throw
    /// (a BETWEEN without two bounds).
    @inline(__always)
    func matches(_ row: _RowView) throws -> Bool {
        try root.evaluate(row)
    }

    /// The row bytes `matches` reads, nil when it needs whole rows (Query/QueryRowColumns.swift).
    var readBytes: [Range<Int>]? { root.readBytes }

    /// When the predicate is one comparison of a fixed-width column with a constant: that
    /// column's field and the comparison, so that a scan can run over the field alone, a leaf
    /// at a time (KeyedTree.forEachFieldLeaf), with the very comparison `matches` makes
    /// (Query/QueryFieldScan.swift).
    var fieldTest: (field: FixedField, test: RowFieldTest)? {
        switch root {
        case .int(let c):
            guard let field = c.reader.field else { return nil }
            return (field, .int(c))
        case .double(let c):
            guard let field = c.reader.field else { return nil }
            return (field, .double(c))
        default:
            return nil
        }
    }
}

/// How to decode one scalar column into the `QueryValue` the object path would produce.
struct RowColumnReader {
    enum Kind {
        /// An integer of `bits` width (8, 16, 32 or 64) stored as Int64.
        case int(bits: Int)
        case bool
        case float
        case double
        case date
        case string
    }

    let column: _Column
    let kind: Kind
    /// An Optional Swift property: the null bit means nil. (Non-optional properties ignore the
    /// bit, as `_strataRead` does.)
    let isOptional: Bool

    /// The reader for property `name` of `info`, nil unless it is a supported scalar.
    init?(property name: String, info: ClassInfo) {
        guard let i = info.columnIndex(named: name), i < info.fields.count, i < info.layout.columns.count else { return nil }
        let column = info.layout.columns[i]
        guard column.collection == .none else { return nil }
        guard let (kind, optional) = Self.kind(of: info.fields[i]) else { return nil }
        // The Swift type must agree with the stored column type (it always does for a bound class;
        // checked so a mismatch can only cost speed, never a wrong answer).
        switch (kind, column.type) {
        case (.int, .int), (.bool, .bool), (.float, .float), (.double, .double), (.date, .date), (.string, .string): break
        default: return nil
        }
        self.column = column
        self.kind = kind
        self.isOptional = optional
    }

    /// The supported Swift property types. Enums (`PersistableEnum`) are deliberately absent: the
    /// object path maps unknown raw values to a default case, which bytes alone cannot do.
    private static func kind(of field: AnyFieldIO) -> (Kind, Bool)? {
        switch field {
        case is FieldIO<Int>, is FieldIO<Int64>: return (.int(bits: 64), false)
        case is FieldIO<Int?>, is FieldIO<Int64?>: return (.int(bits: 64), true)
        case is FieldIO<Int32>: return (.int(bits: 32), false)
        case is FieldIO<Int32?>: return (.int(bits: 32), true)
        case is FieldIO<Int16>: return (.int(bits: 16), false)
        case is FieldIO<Int16?>: return (.int(bits: 16), true)
        case is FieldIO<Int8>: return (.int(bits: 8), false)
        case is FieldIO<Int8?>: return (.int(bits: 8), true)
        case is FieldIO<Bool>: return (.bool, false)
        case is FieldIO<Bool?>: return (.bool, true)
        case is FieldIO<Float>: return (.float, false)
        case is FieldIO<Float?>: return (.float, true)
        case is FieldIO<Double>: return (.double, false)
        case is FieldIO<Double?>: return (.double, true)
        case is FieldIO<Date>: return (.date, false)
        case is FieldIO<Date?>: return (.date, true)
        case is FieldIO<String>: return (.string, false)
        case is FieldIO<String?>: return (.string, true)
        default: return nil
        }
    }

    @inline(__always)
    func isNull(_ row: _RowView) -> Bool { isOptional && row.isNull(column) }

    /// The column's integer, truncated to the Swift property's width (as `_strataRead` does).
    @inline(__always)
    func integer(_ row: _RowView, bits: Int) -> Int64 {
        Self.truncated(Int64(littleEndian: row.load(column, as: Int64.self)), bits: bits)
    }

    /// `raw` truncated to a Swift integer of `bits` bits and sign-extended back.
    @inline(__always)
    static func truncated(_ raw: Int64, bits: Int) -> Int64 {
        switch bits {
        case 8: return Int64(Int8(truncatingIfNeeded: raw))
        case 16: return Int64(Int16(truncatingIfNeeded: raw))
        case 32: return Int64(Int32(truncatingIfNeeded: raw))
        default: return raw
        }
    }

    /// The value `Object.queryValue(forKey:)` returns for this property of the row's object.
    func value(_ row: _RowView) -> QueryValue {
        if isNull(row) { return .null }
        switch kind {
        case .int(let bits): return .int(integer(row, bits: bits))
        case .bool: return .bool(row.load(column, as: UInt8.self) != 0)
        case .float: return .float(Float(bitPattern: UInt32(littleEndian: row.load(column, as: UInt32.self))))
        case .double: return .double(Double(bitPattern: UInt64(littleEndian: row.load(column, as: UInt64.self))))
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(littleEndian: row.load(column, as: UInt64.self)))))
        case .string: return .string(String(decoding: row.variable(column), as: UTF8.self))
        }
    }
}

/// One side of a generic row comparison.
enum RowOperand {
    case constant(QueryOperand)
    case column(RowColumnReader)

    init?(_ expression: CompiledExpression, info: ClassInfo) {
        switch expression.kind {
        case .constant: self = .constant(expression.constant)
        case .property:
            guard let reader = RowColumnReader(property: expression.property, info: info) else { return nil }
            self = .column(reader)
        case .list:
            // `{a, b}` with non-folded elements: fine when every element is a constant.
            var values: [QueryValue] = []
            for element in expression.elements {
                guard element.kind == .constant else { return nil }
                values.append(contentsOf: element.constant.values)
            }
            self = .constant(.many(values))
        case .keyPath, .aggregate, .subqueryCount:
            return nil
        }
    }

    @inline(__always)
    func operand(_ row: _RowView) -> QueryOperand {
        switch self {
        case .constant(let operand): return operand
        case .column(let reader): return .one(reader.value(row))
        }
    }
}

/// `column op constant` on integers, both sides `.int` (no QueryValue built per row).
/// Exact: for `.int` vs `.int`, Realm equality and order are integer equality and order; a nil
/// (optional column) equals nothing, so only `!=` holds, and no ordering with nil holds.
final class RowIntComparison {
    let reader: RowColumnReader
    let bits: Int
    let op: QueryOperator
    let constant: Int64

    init(reader: RowColumnReader, bits: Int, op: QueryOperator, constant: Int64) {
        self.reader = reader
        self.bits = bits
        self.op = op
        self.constant = constant
    }

    @inline(__always)
    func evaluate(_ row: _RowView) -> Bool {
        evaluate(bits: reader.isNull(row) ? nil : reader.fixedBits(row))
    }

    /// The comparison on the slot's bits (nil: null), for the row scan and the field scan alike.
    @inline(__always)
    func evaluate(bits raw: UInt64?) -> Bool {
        guard let raw else { return op == .notEqual }
        let v = RowColumnReader.truncated(Int64(bitPattern: raw), bits: bits)
        switch op {
        case .equal: return v == constant
        case .notEqual: return v != constant
        case .less: return v < constant
        case .lessOrEqual: return v <= constant
        case .greater: return v > constant
        case .greaterOrEqual: return v >= constant
        default: return false
        }
    }
}

/// `column ==/!= constant` on strings without options, comparing UTF-8 bytes.
/// Exact against Swift's `String ==` (canonical equivalence): equal bytes are equal strings; when
/// the bytes differ and both sides are ASCII the strings differ (ASCII text is its own canonical
/// form); otherwise the row's string is decoded and compared as the object path does.
final class RowStringEquality {
    let reader: RowColumnReader
    let negated: Bool
    let constant: String
    let bytes: [UInt8]
    let constantIsASCII: Bool

    init(reader: RowColumnReader, negated: Bool, constant: String) {
        self.reader = reader
        self.negated = negated
        self.constant = constant
        self.bytes = Array(constant.utf8)
        self.constantIsASCII = bytes.allSatisfy { $0 < 0x80 }
    }

    @inline(__always)
    func evaluate(_ row: _RowView) -> Bool {
        if reader.isNull(row) { return negated }
        return equal(row) != negated
    }

    private func equal(_ row: _RowView) -> Bool {
        let stored = row.variable(reader.column)
        let same = bytes.withUnsafeBytes { mine -> Bool in
            guard mine.count == stored.count else { return false }
            guard let a = mine.baseAddress, let b = stored.baseAddress else { return mine.count == 0 && stored.count == 0 }
            return memcmp(a, b, mine.count) == 0
        }
        if same { return true }
        if constantIsASCII && !stored.contains(where: { $0 >= 0x80 }) { return false }
        return String(decoding: stored, as: UTF8.self) == constant
    }
}

/// Any other comparison of columns and constants, through the object path's comparison code.
final class RowGenericComparison {
    let left: RowOperand
    let right: RowOperand
    let comparison: CompiledComparison

    init(left: RowOperand, right: RowOperand, comparison: CompiledComparison) {
        self.left = left
        self.right = right
        self.comparison = comparison
    }

    func evaluate(_ row: _RowView) throws -> Bool {
        try QueryEvaluator.compare(left.operand(row), right.operand(row), comparison)
    }
}

final class RowPredicateList {
    let items: [RowPredicate]
    init(_ items: [RowPredicate]) { self.items = items }
}

final class RowPredicateBox {
    let inner: RowPredicate
    init(_ inner: RowPredicate) { self.inner = inner }
}

/// The compiled tree (class payloads, as CompiledPredicate, so evaluation retains little).
enum RowPredicate {
    case constant(Bool)
    case int(RowIntComparison)
    case double(RowDoubleComparison)
    case stringEquality(RowStringEquality)
    case generic(RowGenericComparison)
    case and(RowPredicateList)
    case or(RowPredicateList)
    case not(RowPredicateBox)

    init?(_ predicate: CompiledPredicate, info: ClassInfo) {
        switch predicate {
        case .constant(let value): self = .constant(value)
        case .comparison(let c):
            guard let leaf = Self.leaf(c, info: info) else { return nil }
            self = leaf
        case .and(let list):
            var items: [RowPredicate] = []
            for item in list.items {
                guard let compiled = RowPredicate(item, info: info) else { return nil }
                items.append(compiled)
            }
            self = .and(RowPredicateList(items))
        case .or(let list):
            var items: [RowPredicate] = []
            for item in list.items {
                guard let compiled = RowPredicate(item, info: info) else { return nil }
                items.append(compiled)
            }
            self = .or(RowPredicateList(items))
        case .not(let box):
            guard let inner = RowPredicate(box.inner, info: info) else { return nil }
            self = .not(RowPredicateBox(inner))
        }
    }

    private static func leaf(_ c: CompiledComparison, info: ClassInfo) -> RowPredicate? {
        guard let left = RowOperand(c.left, info: info), let right = RowOperand(c.right, info: info) else { return nil }
        // Fast leaves: a column on the left, one constant on the right, no options. For `.one`
        // operands with these operators the evaluator ignores the quantifier.
        if c.options.isEmpty, case .column(let reader) = left, case .constant(.one(let value)) = right {
            switch (reader.kind, value, c.op) {
            case (.int(let bits), .int(let constant), .equal), (.int(let bits), .int(let constant), .notEqual),
                 (.int(let bits), .int(let constant), .less), (.int(let bits), .int(let constant), .lessOrEqual),
                 (.int(let bits), .int(let constant), .greater), (.int(let bits), .int(let constant), .greaterOrEqual):
                return .int(RowIntComparison(reader: reader, bits: bits, op: c.op, constant: constant))
            case (.double, _, _), (.float, _, _), (.date, _, _):
                if let comparison = RowDoubleComparison(reader: reader, op: c.op, value: value) { return .double(comparison) }
            case (.string, .string(let text), .equal):
                return .stringEquality(RowStringEquality(reader: reader, negated: false, constant: text))
            case (.string, .string(let text), .notEqual):
                return .stringEquality(RowStringEquality(reader: reader, negated: true, constant: text))
            default: break
            }
        }
        return .generic(RowGenericComparison(left: left, right: right, comparison: c))
    }

    func evaluate(_ row: _RowView) throws -> Bool {
        switch self {
        case .constant(let value): return value
        case .int(let c): return c.evaluate(row)
        case .double(let c): return c.evaluate(row)
        case .stringEquality(let c): return c.evaluate(row)
        case .generic(let c): return try c.evaluate(row)
        case .and(let list):
            for item in list.items where try !item.evaluate(row) { return false }
            return true
        case .or(let list):
            for item in list.items where try item.evaluate(row) { return true }
            return false
        case .not(let box): return try !box.inner.evaluate(row)
        }
    }
}
