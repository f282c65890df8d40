// A filter that is one comparison of a fixed-width column, run over that column a leaf at a time
// (StrataStorage's `KeyedTree.forEachFieldLeaf`): the comparison's operator and constant are
// chosen once per leaf, and each entry costs a load, a compare and, when it matches, an append
// of its key (the results' keys). A `count` needs no key and no null flag: it runs over the
// column's non-null values alone (`KeyedTree.forEachFieldValues`, what the aggregates read) and
// adds the skipped rows, the nulls, when a null matches. Through a closure per entry, which then
// called the test's own closure, a filtered count took about twice a sum's time over the same
// column; with keys and null flags gathered beside the values, about 1.2 times.
//
// Invariants:
// - An entry matches exactly when the comparison's `evaluate(bits:)` says so (the row scan's and
//   the object path's answer: Query/QueryRowColumns.swift); a null entry matches exactly when
//   `evaluate(bits: nil)` does. The loops below only hoist the switch out of `evaluate`.
// - Matches reach the sink in the leaf's (ascending key) order.
// - `countMatches` counts exactly the values `evaluate(bits:)` accepts; `nullMatches` is
//   `evaluate(bits: nil)`.
import StrataStorage

/// What a field scan does with each matching entry's key.
protocol FieldMatchSink {
    mutating func take(_ key: UInt64)
}

/// Collects the matching keys (the results' key list).
struct FieldMatchKeys: FieldMatchSink {
    var keys: [UInt64] = []
    @inline(__always) mutating func take(_ key: UInt64) { keys.append(key) }
}

/// The comparison a field scan runs (`QueryRowProgram.fieldTest`).
enum RowFieldTest {
    case int(RowIntComparison)
    case double(RowDoubleComparison)

    /// Passes to `sink` the keys of the leaf's entries that match.
    func takeMatches(_ keys: UnsafeBufferPointer<UInt64>, _ bits: UnsafeBufferPointer<UInt64>,
                     _ isNull: UnsafeBufferPointer<Bool>, into sink: inout some FieldMatchSink) {
        let leaf = FieldLeaf(keys: keys, bits: bits, isNull: isNull)
        switch self {
        case .int(let c): c.takeMatches(leaf, into: &sink)
        case .double(let c): c.takeMatches(leaf, into: &sink)
        }
    }
}

extension RowFieldTest {
    /// Whether a null entry matches: a count adds the rows a values-only scan skipped.
    var nullMatches: Bool {
        switch self {
        case .int(let c): c.evaluate(bits: nil)
        case .double(let c): c.evaluate(bits: nil)
        }
    }

    /// How many of a leaf's non-null values match.
    func countMatches(_ values: UnsafeBufferPointer<UInt64>) -> Int {
        switch self {
        case .int(let c): c.countMatches(values)
        case .double(let c): c.countMatches(values)
        }
    }
}

extension UnsafeBufferPointer<UInt64> {
    /// How many values pass `test`: a loop without a branch per value.
    @inline(__always)
    func countPassing(_ test: (UInt64) -> Bool) -> Int {
        var n = 0
        for bits in self { n &+= test(bits) ? 1 : 0 }
        return n
    }

    /// `value(bits) op constant` counted for the six orderings, the operator chosen once for
    /// the leaf; nil for any other operator, which the caller evaluates value by value.
    @inline(__always)
    func countOrdered<T: Comparable>(_ op: QueryOperator, _ constant: T, _ value: (UInt64) -> T) -> Int? {
        switch op {
        case .equal: countPassing { value($0) == constant }
        case .notEqual: countPassing { value($0) != constant }
        case .less: countPassing { value($0) < constant }
        case .lessOrEqual: countPassing { value($0) <= constant }
        case .greater: countPassing { value($0) > constant }
        case .greaterOrEqual: countPassing { value($0) >= constant }
        default: nil
        }
    }
}

/// One leaf's entries as the field scan hands them over.
struct FieldLeaf {
    let keys: UnsafeBufferPointer<UInt64>
    let bits: UnsafeBufferPointer<UInt64>
    let isNull: UnsafeBufferPointer<Bool>

    /// Passes to `sink` the keys of the entries whose bits pass `test`, and of the null entries
    /// when `nullMatches`.
    @inline(__always)
    func takeMatches(into sink: inout some FieldMatchSink, nullMatches: Bool, _ test: (UInt64) -> Bool) {
        for i in 0..<keys.count {
            if isNull[i] {
                if nullMatches { sink.take(keys[i]) }
            } else if test(bits[i]) {
                sink.take(keys[i])
            }
        }
    }

    /// `value(bits) op constant` for the six orderings, the operator chosen once for the leaf;
    /// false (nothing taken) for any other operator, which the caller evaluates entry by entry.
    @inline(__always)
    func takeOrdered<T: Comparable>(_ op: QueryOperator, _ constant: T, nullMatches: Bool,
                                    into sink: inout some FieldMatchSink, _ value: (UInt64) -> T) -> Bool {
        switch op {
        case .equal: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) == constant }
        case .notEqual: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) != constant }
        case .less: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) < constant }
        case .lessOrEqual: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) <= constant }
        case .greater: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) > constant }
        case .greaterOrEqual: takeMatches(into: &sink, nullMatches: nullMatches) { value($0) >= constant }
        default: return false
        }
        return true
    }
}

extension RowIntComparison {
    func countMatches(_ values: UnsafeBufferPointer<UInt64>) -> Int {
        let width = bits
        return values.countOrdered(op, constant) { RowColumnReader.truncated(Int64(bitPattern: $0), bits: width) }
            ?? values.countPassing { evaluate(bits: $0) }
    }

    func takeMatches(_ leaf: FieldLeaf, into sink: inout some FieldMatchSink) {
        let nullMatches = evaluate(bits: nil)
        let width = bits
        let ordered = leaf.takeOrdered(op, constant, nullMatches: nullMatches, into: &sink) {
            RowColumnReader.truncated(Int64(bitPattern: $0), bits: width)
        }
        if !ordered { leaf.takeMatches(into: &sink, nullMatches: nullMatches) { evaluate(bits: $0) } }
    }
}

extension RowDoubleComparison {
    func countMatches(_ values: UnsafeBufferPointer<UInt64>) -> Int {
        guard case .double(let c) = constant else { return values.countPassing { evaluate(bits: $0) } }
        let float = readsFloat
        return values.countOrdered(op, c) { Self.value(ofBits: $0, float: float) }
            ?? values.countPassing { evaluate(bits: $0) }
    }

    func takeMatches(_ leaf: FieldLeaf, into sink: inout some FieldMatchSink) {
        let nullMatches = evaluate(bits: nil)
        // An Int constant compares exactly through the evaluator's own function, entry by entry.
        guard case .double(let c) = constant else {
            leaf.takeMatches(into: &sink, nullMatches: nullMatches) { evaluate(bits: $0) }
            return
        }
        let float = readsFloat
        let ordered = leaf.takeOrdered(op, c, nullMatches: nullMatches, into: &sink) { Self.value(ofBits: $0, float: float) }
        if !ordered { leaf.takeMatches(into: &sink, nullMatches: nullMatches) { evaluate(bits: $0) } }
    }
}
