// The per-table fingers of a core (Core/RowFingers.swift) are lent in place, one at a time: a
// read that starts inside another's body gets a finger of its own, and what it does to the
// fingers' version never leaves the lent ones answering for another version.
import Testing
@testable import Strata
@testable import StrataStorage

@Suite struct RowFingersTests {
    /// Held by a class, as the core holds its fingers, so that a body can reach them again.
    final class Holder {
        @exclusivity(unchecked) var fingers = RowFingers()
    }

    static func finger(root: UInt32) -> LeafFinger {
        LeafFinger(root: PageRef(root), leaf: PageRef(root + 1), lower: 0, upper: nil)
    }

    @Test func aFingerSetInPlaceIsKeptForItsTableAndVersion() {
        let holder = Holder()
        holder.fingers.withFinger(table: 2, version: 5) { $0 = Self.finger(root: 40) }
        holder.fingers.withFinger(table: 2, version: 5) { #expect($0.root == PageRef(40)) }
        holder.fingers.withFinger(table: 1, version: 5) { #expect($0.root.isNull) }
        holder.fingers.withFinger(table: 2, version: 6) { #expect($0.root.isNull) }
    }

    @Test func aReadInsideAnotherGetsAFingerOfItsOwn() {
        let holder = Holder()
        holder.fingers.withFinger(table: 0, version: 5) { $0 = Self.finger(root: 40) }
        holder.fingers.withFinger(table: 0, version: 5) { outer in
            #expect(outer.root == PageRef(40))
            holder.fingers.withFinger(table: 0, version: 5) { inner in
                #expect(inner.root.isNull)
                inner = Self.finger(root: 70)
            }
            outer = Self.finger(root: 50)
        }
        holder.fingers.withFinger(table: 0, version: 5) { #expect($0.root == PageRef(50)) }
    }

    @Test func anotherVersionInsideALoanLeavesNoFingerOfTheFirst() {
        let holder = Holder()
        holder.fingers.withFinger(table: 0, version: 5) { $0 = Self.finger(root: 40) }
        holder.fingers.withFinger(table: 0, version: 5) { _ in
            holder.fingers.withFinger(table: 0, version: 6) { $0 = Self.finger(root: 70) }
        }
        holder.fingers.withFinger(table: 0, version: 6) { #expect($0.root.isNull) }
    }

    @Test func droppingTheFingersDuringALoanForgetsThemAfterIt() {
        let holder = Holder()
        holder.fingers.withFinger(table: 0, version: 5) { outer in
            outer = Self.finger(root: 40)
            holder.fingers.removeAll()
        }
        holder.fingers.withFinger(table: 0, version: 5) { #expect($0.root.isNull) }
    }
}
