// The range operations of `List` that Realm offers beside the single-element ones
// (`replaceSubrange`, `removeSubrange`, `insert(contentsOf:at:)`, `remove(atOffsets:)`,
// `move(fromOffsets:toOffset:)`), built on those single-element operations so that a managed list
// gets the same checks (write transaction, thread, bounds) and the same deferred failures.
//
// Invariant: every range and offset is checked against the list before the first change, so a
// bad one stops the program (as Array does) without changing anything.
import Foundation

extension List {
    /// The elements in a range. Setting it replaces them with the elements of the slice given,
    /// which may be more or fewer, as `replaceSubrange(_:with:)` does and as RealmSwift's list
    /// allows (a `MutableCollection`'s range subscript only takes a slice of the same size).
    ///
    /// - Parameter bounds: positions of the list; a range outside `0...count` stops the program.
    public subscript(bounds: Range<Int>) -> Slice<List<Element>> {
        get { Slice(base: self, bounds: checkedBounds(bounds, "subscript")) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }

    /// Replaces the elements in a range with the elements of a collection (which may be longer or
    /// shorter).
    ///
    /// ```swift
    /// try realm.write { person.nicknames.replaceSubrange(0..<2, with: ["Al"]) }
    /// ```
    ///
    /// - Parameters:
    ///   - subrange: positions of the list; a range outside `0...count` stops the program.
    ///   - newElements: the elements to put in their place, in order.
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let bounds = checkedBounds(subrange, "replaceSubrange")
        let replaced = Swift.min(bounds.count, newElements.count)
        var position = bounds.lowerBound
        for element in newElements.prefix(replaced) {
            self[position] = element
            position += 1
        }
        if bounds.count > replaced {
            for _ in replaced..<bounds.count { remove(at: position) }
        } else {
            insert(contentsOf: newElements.dropFirst(replaced), at: position)
        }
    }

    /// Removes the elements in a range.
    ///
    /// - Parameter bounds: positions of the list; a range outside `0...count` stops the program.
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        let range = checkedBounds(bounds, "removeSubrange")
        for _ in range { remove(at: range.lowerBound) }
    }

    /// Inserts the elements of a collection at a position, in their order.
    ///
    /// - Parameters:
    ///   - newElements: the elements to insert.
    ///   - i: a position from `0` through ``count``; any other stops the program.
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Element == Element {
        let n = count
        guard i >= 0, i <= n else { stop("insert(contentsOf:at:) at \(i) is outside 0...\(n)") }
        var position = i
        for element in newElements {
            insert(element, at: position)
            position += 1
        }
    }

    /// Removes the elements at a set of positions (SwiftUI's `onDelete` hands such a set).
    ///
    /// - Parameter offsets: positions in `0..<count`; any other stops the program.
    public func remove(atOffsets offsets: IndexSet) {
        checkOffsets(offsets, "remove(atOffsets:)")
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at a set of positions so that, in their order, they end up just before
    /// the element that was at `destination` (at the end when `destination == count`), as
    /// SwiftUI's `onMove` and `Array.move(fromOffsets:toOffset:)` mean it.
    ///
    /// - Parameters:
    ///   - offsets: positions in `0..<count`; any other stops the program.
    ///   - destination: a position from `0` through ``count``, counted before the move.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        let n = count
        checkOffsets(offsets, "move(fromOffsets:toOffset:)")
        guard destination >= 0, destination <= n else {
            stop("move(fromOffsets:toOffset:) to \(destination) is outside 0...\(n)")
        }
        // The final order as original positions, then each element moved into its place from
        // left to right (positions left of `target` are final by then).
        let staying = (0..<n).filter { !offsets.contains($0) }
        let insertionPoint = staying.prefix { $0 < destination }.count
        let order = Array(staying[..<insertionPoint]) + Array(offsets) + Array(staying[insertionPoint...])
        var current = Array(0..<n)
        for (target, original) in order.enumerated() {
            guard let from = current[target...].firstIndex(of: original), from != target else { continue }
            move(from: from, to: target)
            current.remove(at: from)
            current.insert(original, at: target)
        }
    }

    private func checkedBounds<R: RangeExpression>(_ bounds: R, _ operation: String) -> Range<Int> where R.Bound == Int {
        let n = count
        let all = 0..<n
        // `relative(to:)` on a closed range past the end would trap inside the standard library
        // with a message that does not name the list; check the plain shapes first.
        if let r = bounds as? Range<Int>, r.lowerBound < 0 || r.upperBound > n {
            stop("\(operation) range \(r) is outside 0...\(n)")
        }
        if let r = bounds as? ClosedRange<Int>, r.lowerBound < 0 || r.upperBound >= n {
            stop("\(operation) range \(r) is outside 0..<\(n)")
        }
        let range = bounds.relative(to: all)
        guard range.lowerBound >= 0, range.upperBound <= n else {
            stop("\(operation) range \(range) is outside 0...\(n)")
        }
        return range
    }

    private func checkOffsets(_ offsets: IndexSet, _ operation: String) {
        let n = count
        if let first = offsets.first, let last = offsets.last, first < 0 || last >= n {
            stop("\(operation) offsets \(first)...\(last) are outside 0..<\(n)")
        }
    }

    private func stop(_ message: String) -> Never {
        Stop.now("Strata: invalidArgument: \(message)")
    }
}

extension List {
    /// The elements at `indexes`, in index order.
    ///
    /// An index outside the list stops with a `Strata:` message, as Realm's raises.
    ///
    /// - Parameter indexes: positions in the list.
    /// - Returns: the elements at those positions.
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        if let last = indexes.last, last >= count {
            Stop.now("Strata: invalidArgument: indexes \(Array(indexes)) are out of bounds 0..<\(count)")
        }
        return indexes.map { self[$0] }
    }
}
