// Sorting a class's objects by plain properties read from their stored rows, without making an
// object per row. `Results.sorted(byKeyPath:)` otherwise builds every object and resolves each
// sort key through the query evaluator: about a microsecond per object, most of a top-N query.
//
// Invariants:
// - The order is exactly `QueryOrdering.sorted`'s. The values are the same
//   (`RowColumnReader.value` is what `Object.queryValue(forKey:)` gives for the property), and they
//   are compared by `QueryOrdering.compare`, or for one column of integers or floating-point
//   numbers by the equivalent order it defines there: nil first, then NaN, then numbers by value
//   (-0 equal to +0); a whole class sorted by one column of those or of dates, by ColumnSort's
//   equivalent images. Ties keep the input order in both directions, as there.
// - Only single-component key paths of the scalar columns `RowColumnReader` covers; anything else
//   (links, enums, unknown names, whose errors the object path reports) returns nil and the
//   object path sorts; so does a key without a row, which the object path reports. `ColumnScan.wholeRows` (tests) turns this off, to compare both paths.
import Foundation
import StrataStorage

enum RowSort {
    /// `keys` of table `t` sorted by `descriptors`, nil when a descriptor is not covered.
    /// `wholeTable`: `keys` are every key of the table, ascending (read in one scan).
    static func sortedKeys(_ keys: [UInt64], table t: Int, by descriptors: [SortDescriptor], info: ClassInfo,
                           core: RealmCore, wholeTable: Bool) throws -> [UInt64]? {
        if ColumnScan.wholeRows || descriptors.isEmpty { return nil }
        var readers: [RowColumnReader] = []
        var bytes: [Range<Int>]? = []
        for descriptor in descriptors {
            guard let reader = columnReader(descriptor, info: info) else { return nil }
            readers.append(reader)
            if let read = reader.readBytes, let known = bytes { bytes = known + read } else { bytes = nil }
        }
        guard let values = try rowValues(keys, table: t, readers: readers, bytes: bytes, core: core, wholeTable: wholeTable) else {
            return nil
        }
        let order: [Int]
        if readers.count == 1, let numeric = NumericColumn(values) {
            order = numeric.order(ascending: descriptors[0].ascending)
        } else {
            order = genericOrder(values, width: readers.count, ascending: descriptors.map(\.ascending))
        }
        return order.map { keys[$0] }
    }

    /// Every key of table `t` sorted by `descriptors` when that is one numeric column, read and
    /// ordered by ColumnSort without listing the keys first; nil otherwise.
    static func sortedTable(_ t: Int, by descriptors: [SortDescriptor], info: ClassInfo, core: RealmCore) throws -> [UInt64]? {
        guard let (reader, ascending) = tableColumn(descriptors, info: info) else { return nil }
        return try ColumnSort.sortedKeys(by: reader, ascending: ascending, objects: core.snap.metas[t].objects, pages: try core.pages())
    }

    /// The first `count` keys of `sortedTable(_:by:info:core:)`, found without sorting the rest
    /// (Collections/LeadingKeys.swift); nil where `sortedTable` gives nil.
    static func leadingOfTable(_ t: Int, count: Int, by descriptors: [SortDescriptor], info: ClassInfo,
                               core: RealmCore) throws -> [UInt64]? {
        guard let (reader, ascending) = tableColumn(descriptors, info: info) else { return nil }
        return try ColumnSort.leadingKeys(count, by: reader, ascending: ascending, objects: core.snap.metas[t].objects,
                                          pages: try core.pages())
    }

    /// The last key of `sortedTable(_:by:info:core:)` (nil inside: an empty class), found in one
    /// scan; nil where `sortedTable` gives nil.
    static func lastOfTable(_ t: Int, by descriptors: [SortDescriptor], info: ClassInfo, core: RealmCore) throws -> UInt64?? {
        guard let (reader, ascending) = tableColumn(descriptors, info: info) else { return nil }
        return try ColumnSort.lastKey(by: reader, ascending: ascending, objects: core.snap.metas[t].objects, pages: try core.pages())
    }

    /// The one column and direction a whole-table column sort orders by; nil for several sort
    /// keys, a key path the rows cannot read, or when tests turn the row paths off.
    private static func tableColumn(_ descriptors: [SortDescriptor], info: ClassInfo) -> (RowColumnReader, Bool)? {
        guard !ColumnScan.wholeRows, descriptors.count == 1, let reader = columnReader(descriptors[0], info: info) else { return nil }
        return (reader, descriptors[0].ascending)
    }

    /// The reader of a descriptor's column: a single-component key path to a scalar column.
    private static func columnReader(_ descriptor: SortDescriptor, info: ClassInfo) -> RowColumnReader? {
        guard let path = try? QueryParser.parseKeyPath(descriptor.keyPath), path.variable == nil,
              path.components.count == 1 else { return nil }
        return RowColumnReader(property: path.components[0], info: info)
    }

    /// The sort values of every key, row i's column c at `i * readers.count + c`; nil when a key
    /// has no row.
    private static func rowValues(_ keys: [UInt64], table t: Int, readers: [RowColumnReader], bytes: [Range<Int>]?,
                                  core: RealmCore, wholeTable: Bool) throws -> [QueryValue]? {
        var values: [QueryValue] = []
        values.reserveCapacity(keys.count * readers.count)
        let objects = core.snap.metas[t].objects
        let pages = try core.pages()
        if wholeTable {
            var index = 0
            var inStep = true
            try objects.forEachRow(reading: ColumnScan.bytes(bytes), in: pages) { k, row in
                guard index < keys.count, keys[index] == k else {
                    inStep = false
                    return false
                }
                let view = _RowView(bytes: row, core: core)
                for reader in readers { values.append(reader.value(view)) }
                index += 1
                return true
            }
            if inStep && index == keys.count { return values }
            // The keys were not this snapshot's whole table: read them one by one.
            values.removeAll(keepingCapacity: true)
        }
        // Keys of a filter or a list come mostly in key order: each lookup starts at the leaf of
        // the one before.
        var finger = LeafFinger()
        for k in keys {
            let found: Bool? = try objects.withValue(forKey: k, in: pages, finger: &finger) { row in
                let view = _RowView(bytes: row, core: core)
                for reader in readers { values.append(reader.value(view)) }
                return true
            }
            // A key without a row (the caller's keys come from the table, so only damage names
            // one): the object path sorts, and stops on that object as it would on any read of it,
            // rather than sorting it as if its values were nil.
            if found == nil { return nil }
        }
        return values
    }

    private static func genericOrder(_ values: [QueryValue], width: Int, ascending: [Bool]) -> [Int] {
        let count = width == 0 ? 0 : values.count / width
        return (0..<count).sorted { i, j in
            var column = 0
            while column < width {
                let result = QueryOrdering.compare(values[i * width + column], values[j * width + column])
                if result != 0 { return ascending[column] ? result < 0 : result > 0 }
                column += 1
            }
            return i < j
        }
    }
}

/// One sort column whose values are all integers (or Bools), all floating-point numbers or all
/// dates, with nils: sorted as plain numbers, in the order `QueryOrdering.compare` gives them. A
/// date is its interval since the reference date; a date whose interval is NaN has no place in
/// that order (it compares after everything, both ways), so a column holding one is left to the
/// generic order.
private struct NumericColumn {
    enum Numbers {
        case integers([(value: Int64, index: Int)])
        case doubles([(value: Double, index: Int)])
    }

    var nils: [Int] = []
    var nans: [Int] = []
    var numbers: Numbers

    init?(_ values: [QueryValue]) {
        var integers: [(value: Int64, index: Int)] = []
        var doubles: [(value: Double, index: Int)] = []
        var dates = 0
        for (index, value) in values.enumerated() {
            switch value {
            case .null: nils.append(index)
            case .int(let i): integers.append((i, index))
            case .bool(let b): integers.append((b ? 1 : 0, index))
            case .double(let d):
                if d.isNaN { nans.append(index) } else { doubles.append((d, index)) }
            case .float(let f):
                if f.isNaN { nans.append(index) } else { doubles.append((Double(f), index)) }
            case .date(let d):
                let interval = d.timeIntervalSinceReferenceDate
                if interval.isNaN { return nil }
                doubles.append((interval, index))
                dates += 1
            default: return nil
            }
        }
        // One property has one type; a mix (which a column cannot hold) takes the generic order.
        if !integers.isEmpty && !doubles.isEmpty { return nil }
        if dates != 0 && (dates != doubles.count || !nans.isEmpty) { return nil }
        numbers = doubles.isEmpty ? .integers(integers) : .doubles(doubles)
    }

    /// Row indices in order: nil, NaN, then numbers ascending; descending reverses the values'
    /// order but keeps equal values (and the nils, and the NaNs) in input order.
    func order(ascending: Bool) -> [Int] {
        var sorted: [Int]
        switch numbers {
        case .integers(var list):
            list.sort { a, b in a.value != b.value ? (ascending ? a.value < b.value : a.value > b.value) : a.index < b.index }
            sorted = list.map(\.index)
        case .doubles(var list):
            list.sort { a, b in a.value != b.value ? (ascending ? a.value < b.value : a.value > b.value) : a.index < b.index }
            sorted = list.map(\.index)
        }
        if ascending { return nils + nans + sorted }
        sorted.append(contentsOf: nans)
        sorted.append(contentsOf: nils)
        return sorted
    }
}
