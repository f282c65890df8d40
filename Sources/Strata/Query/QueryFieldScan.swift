// A filter that is one comparison of a fixed-width column, run over that column a leaf at a time
// (StrataStorage's `KeyedTree.forEachFieldLeaf`): the comparison's operator and constant are
// chosen once per leaf, and each entry costs a load, a compare and, when it matches, an append.
// Through a closure per entry, which then called the test's own closure, a filtered count took
// about twice a sum's time over the same column.
//
// Invariants:
// - An entry matches exactly when the comparison's `evaluate(bits:)` says so (the row scan's and
//   the object path's answer: Query/QueryRowColumns.swift); a null entry matches exactly when
//   `evaluate(bits: nil)` does. The loops below only hoist the switch out of `evaluate`.
// - Matches are appended in the leaf's (ascending key) order.
import StrataStorage

/// The comparison a field scan runs (`QueryRowProgram.fieldTest`).
enum RowFieldTest {
    case int(RowIntComparison)
    case double(RowDoubleComparison)

    /// Appends to `out` the keys of the leaf's entries that match.
    func appendMatches(_ keys: UnsafeBufferPointer<UInt64>, _ bits: UnsafeBufferPointer<UInt64>,
                       _ isNull: UnsafeBufferPointer<Bool>, to out: inout [UInt64]) {
        switch self {
        case .int(let c): c.appendMatches(FieldLeaf(keys: keys, bits: bits, isNull: isNull), to: &out)
        case .double(let c): c.appendMatches(FieldLeaf(keys: keys, bits: bits, isNull: isNull), to: &out)
        }
    }
}

/// One leaf's entries as the field scan hands them over.
struct FieldLeaf {
    let keys: UnsafeBufferPointer<UInt64>
    let bits: UnsafeBufferPointer<UInt64>
    let isNull: UnsafeBufferPointer<Bool>

    /// Appends the keys of the entries whose bits pass `test`, and of the null entries when
    /// `nullMatches`.
    @inline(__always)
    func appendMatches(to out: inout [UInt64], nullMatches: Bool, _ test: (UInt64) -> Bool) {
        for i in 0..<keys.count {
            if isNull[i] {
                if nullMatches { out.append(keys[i]) }
            } else if test(bits[i]) {
                out.append(keys[i])
            }
        }
    }
}

extension RowIntComparison {
    func appendMatches(_ leaf: FieldLeaf, to out: inout [UInt64]) {
        let nullMatches = evaluate(bits: nil)
        let c = constant, width = bits
        @inline(__always) func value(_ raw: UInt64) -> Int64 { RowColumnReader.truncated(Int64(bitPattern: raw), bits: width) }
        switch op {
        case .equal: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) == c }
        case .notEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) != c }
        case .less: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) < c }
        case .lessOrEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) <= c }
        case .greater: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) > c }
        case .greaterOrEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) >= c }
        default: leaf.appendMatches(to: &out, nullMatches: nullMatches) { evaluate(bits: $0) }
        }
    }
}

extension RowDoubleComparison {
    func appendMatches(_ leaf: FieldLeaf, to out: inout [UInt64]) {
        let nullMatches = evaluate(bits: nil)
        // An Int constant compares exactly through the evaluator's own function, entry by entry.
        guard case .double(let c) = constant else {
            leaf.appendMatches(to: &out, nullMatches: nullMatches) { evaluate(bits: $0) }
            return
        }
        var isFloat = false
        if case .float = reader.kind { isFloat = true }
        @inline(__always) func value(_ raw: UInt64) -> Double {
            isFloat ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
        }
        switch op {
        case .equal: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) == c }
        case .notEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) != c }
        case .less: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) < c }
        case .lessOrEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) <= c }
        case .greater: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) > c }
        case .greaterOrEqual: leaf.appendMatches(to: &out, nullMatches: nullMatches) { value($0) >= c }
        default: leaf.appendMatches(to: &out, nullMatches: nullMatches) { evaluate(bits: $0) }
        }
    }
}
