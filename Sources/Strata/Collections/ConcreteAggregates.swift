// min/max/sum of Results over Double and Int properties through concrete loops. The generic
// aggregates read each value through `_strataRead` and add or compare through `T`'s witnesses;
// unspecialised (the caller's `T` is not known here), that costs more per row than the column
// scan. These loops give the same answers: the same rows in the same order, the same decoding
// (`_strataRead` of a Double is its bit pattern; of an Int the Int64 slot), the same comparison
// code as ResultsAggregates.swift, and the integer total in 128 bits as ExactSum's.
// `ColumnScan.wholeRows` (tests) turns them off, to compare them with the generic path.
import Foundation

extension ColumnAggregates {
    /// The non-null values of a Double property as bit patterns, a batch at a time: a leaf's
    /// worth over a whole table (`scanFieldValues`), one value otherwise. False (nothing
    /// visited) when `property` is not a Double column, so that the generic path reports the
    /// misuse. Callers loop over each batch in their closure (see `scanFieldValues`).
    func doubleBatches(info: ClassInfo, property: String, source: RowSource?, _ body: (UnsafeBufferPointer<UInt64>) -> Void) -> Bool {
        guard let i = info.columnIndex(named: property), info.layout.columns[i].collection == .none,
              info.layout.columns[i].type == .double else { return false }
        if scanFieldValues(source, column: info.layout.columns[i], body) { return true }
        forEachValue(Double.self, info: info, property: property, source: source) { value in
            var bits = value.bitPattern
            withUnsafePointer(to: &bits) { body(UnsafeBufferPointer(start: $0, count: 1)) }
        }
        return true
    }

    /// The exact total of an Int property; nil when `property` is not an integer column.
    func integerTotal(info: ClassInfo, property: String, source: RowSource?) -> Int128? {
        guard let i = info.columnIndex(named: property), info.layout.columns[i].collection == .none,
              info.layout.columns[i].type == .int else { return nil }
        var total: Int128 = 0
        if scanFieldValues(source, column: info.layout.columns[i], { values in
            for bits in values { total += Int128(Int64(bitPattern: bits)) }
        }) { return total }
        forEachValue(Int64.self, info: info, property: property, source: source) { total += Int128($0) }
        return total
    }
}

extension Results where Element: Object {
    /// `min`/`max` of a Double property, nil when `T` is not Double or the column is not one.
    func doubleExtreme<T>(_: T.Type, property: String, smallest: Bool) -> T?? {
        guard T.self == Double.self, !ColumnScan.wholeRows else { return nil }
        var best: Double?
        let visited = core.aggregates.doubleBatches(info: info, property: property, source: rowSource) { values in
            for bits in values {
                let v = Double(bitPattern: bits)
                if let b = best, smallest ? b <= v : b >= v {} else { best = v }
            }
        }
        guard visited else { return nil }
        return .some(best.map { unsafeBitCast($0, to: T.self) })
    }

    /// The sum of a Double or Int property as `T` (Double or Int); nil when another type or
    /// column. Throws the error ExactSum throws when an integer total does not fit.
    func concreteSum<T>(_: T.Type, property: String) throws(Realm.Error) -> T? {
        if ColumnScan.wholeRows { return nil }
        if T.self == Double.self {
            var total = 0.0
            guard core.aggregates.doubleBatches(info: info, property: property, source: rowSource, { values in
                for bits in values { total += Double(bitPattern: bits) }
            }) else { return nil }
            return unsafeBitCast(total, to: T.self)
        }
        if T.self == Int.self, let total = core.aggregates.integerTotal(info: info, property: property, source: rowSource) {
            guard let fitted = Int(exactly: total) else {
                throw ExactSum.overflowError(of: "the sum of '\(info.schema.className).\(property)'", total: total, as: T.self)
            }
            return unsafeBitCast(fitted, to: T.self)
        }
        return nil
    }
}
