// Iterating results moves an accessor nothing else holds to the next row instead of making one
// per row (Collections/AccessorRebinding.swift). These tests hold the objects every way a program
// can (strongly, weakly, unowned) and use classes that keep state in the accessor, and check that
// each object read stays the object of its own row.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

final class RebindCounted: Object {
    @Persisted var n = 0
    @Persisted var label = ""

    /// Instances made since the last `takeMade()`.
    static let made = Mutex(0)
    static func takeMade() -> Int { made.withLock { let m = $0; $0 = 0; return m } }

    required init() {
        super.init()
        RebindCounted.made.withLock { $0 += 1 }
    }
}

/// Keeps a plain stored property per accessor.
final class RebindScratch: Object {
    @Persisted var n = 0
    var scratch = 0
}

/// Keeps an ignored property in its wrapper.
final class RebindIgnored: Object {
    @Persisted var n = 0
    @Persisted var note = ""
    override class func ignoredProperties() -> [String] { ["note"] }
}

/// Keeps the accessor of its list in the wrapper.
final class RebindListed: Object {
    @Persisted var n = 0
    @Persisted var tags: List<String>
}

/// Holds rebindable objects in a list, and once more at the end (the same object twice).
final class RebindOwner: Object {
    @Persisted var items: List<RebindCounted>
}

private final class WeakHolder {
    weak var object: RebindCounted?
    init(_ object: RebindCounted) { self.object = object }
}

private final class UnownedHolder {
    unowned let object: Object
    init(_ object: Object) { self.object = object }
}

@Suite(.serialized) struct AccessorRebindingTests {
    static let rows = 40

    func filled() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<Self.rows {
                realm.add(RebindCounted(value: ["n": i, "label": "row \(i)"]))
                realm.add(RebindScratch(value: ["n": i]))
                realm.add(RebindIgnored(value: ["n": i]))
                let listed = RebindListed(value: ["n": i])
                listed.tags.append("tag \(i)")
                realm.add(listed)
            }
        }
        return realm
    }

    @Test func onlyClassesThatKeepNothingPerAccessorRebind() throws {
        #expect(try ClassInfo.of(RebindCounted.self).rebindsAccessors)
        #expect(try !ClassInfo.of(RebindScratch.self).rebindsAccessors)
        #expect(try !ClassInfo.of(RebindIgnored.self).rebindsAccessors)
        #expect(try !ClassInfo.of(RebindListed.self).rebindsAccessors)
    }

    @Test func anAccessorLetGoOfIsMovedToTheNextRow() throws {
        let realm = try filled()
        _ = RebindCounted.takeMade()
        var seen: [Int] = []
        var labels: [String] = []
        for object in realm.objects(RebindCounted.self) {
            seen.append(object.n)
            labels.append(object.label)
        }
        #expect(seen == Array(0..<Self.rows))
        #expect(labels == (0..<Self.rows).map { "row \($0)" })
        #expect(RebindCounted.takeMade() == 1, "one accessor served the whole loop")
    }

    @Test func keptAccessorsStayOnTheirRows() throws {
        let realm = try filled()
        var kept: [RebindCounted] = []
        for object in realm.objects(RebindCounted.self) { kept.append(object) }
        #expect(kept.map(\.n) == Array(0..<Self.rows))
        #expect(Set(kept.map(ObjectIdentifier.init)).count == Self.rows)
        // Every other one kept, and a filtered, sorted view.
        var everyOther: [RebindCounted] = []
        for object in realm.objects(RebindCounted.self).filter("n >= 10").sorted(byKeyPath: "n", ascending: false)
            where object.n % 2 == 0 {
            everyOther.append(object)
        }
        #expect(everyOther.map(\.n) == stride(from: Self.rows - 2, through: 10, by: -2).map { $0 })
    }

    @Test func aWeaklyHeldAccessorNeverTurnsIntoAnotherRow() throws {
        let realm = try filled()
        var holders: [WeakHolder] = []
        for object in realm.objects(RebindCounted.self) {
            if let previous = holders.last?.object {
                #expect(previous.n == object.n - 1, "a weak reference still reaches row \(object.n - 1)")
                #expect(previous !== object)
            }
            holders.append(WeakHolder(object))
        }
        for (row, holder) in holders.enumerated() {
            if let object = holder.object { #expect(object.n == row) }
        }
    }

    @Test func theRuntimeCountsDecideWhetherAnObjectIsUnreachable() {
        var lent: Object? = RebindCounted()
        #expect(AccessorRebinding.unreachable(&lent) != nil)

        let strong = lent
        #expect(AccessorRebinding.unreachable(&lent) == nil, "a second strong reference")
        _ = strong

        var weaklyHeld: Object? = RebindCounted()
        weak var weak = weaklyHeld
        #expect(AccessorRebinding.unreachable(&weaklyHeld) == nil, "a weak reference")
        weak = nil
        #expect(AccessorRebinding.unreachable(&weaklyHeld) != nil, "the weak reference is gone")
        _ = weak

        var unownedHeld: Object? = RebindCounted()
        let holder = UnownedHolder(unownedHeld!)
        #expect(AccessorRebinding.unreachable(&unownedHeld) == nil, "an unowned reference")
        withExtendedLifetime(holder) {}

        var none: Object? = nil
        #expect(AccessorRebinding.unreachable(&none) == nil)
    }

    @Test func accessorsThatKeepStateAreNeverMoved() throws {
        let realm = try filled()
        var row = 0
        for object in realm.objects(RebindScratch.self) {
            #expect(object.scratch == 0, "row \(object.n) starts with its own plain property")
            #expect(object.n == row)
            object.scratch = object.n + 1
            row += 1
        }
        row = 0
        for object in realm.objects(RebindIgnored.self) {
            #expect(object.note == "", "row \(object.n) starts with its own ignored property")
            #expect(object.n == row)
            object.note = "seen \(object.n)"
            row += 1
        }
        row = 0
        for object in realm.objects(RebindListed.self) {
            #expect(Array(object.tags) == ["tag \(row)"])
            row += 1
        }
        #expect(row == Self.rows)
    }

    @Test func writesThroughARecycledAccessorReachTheirOwnRow() throws {
        let realm = try filled()
        try realm.write {
            for object in realm.objects(RebindCounted.self) { object.label = "now \(object.n)" }
        }
        let labels = realm.objects(RebindCounted.self).sorted(byKeyPath: "n").map(\.label)
        #expect(labels == (0..<Self.rows).map { "now \($0)" })
    }

    @Test func deletingInTheLoopLeavesTheNextAccessorValid() throws {
        let realm = try filled()
        try realm.write {
            for object in realm.objects(RebindCounted.self) where object.n % 2 == 0 {
                realm.delete(object)
                #expect(object.isInvalidated)
            }
        }
        let left = realm.objects(RebindCounted.self).sorted(byKeyPath: "n").map(\.n)
        #expect(left == stride(from: 1, to: Self.rows, by: 2).map { $0 })
    }

    @Test func aBindingMovesInPlaceOnlyWithinItsRealmClassAndTable() throws {
        let realm = try filled()
        let all = realm.objects(RebindCounted.self)
        let object = all[0]
        let row5 = try #require(all[5]._binding)
        let bound = try #require(object._binding)
        let otherRealm = try Realm(configuration: memoryConfig())
        let scratchInfo = try #require(realm.objects(RebindScratch.self).first?._binding?.info)

        #expect(!object.moveBinding(to: row5.key, core: otherRealm.core, info: bound.info, table: bound.table))
        #expect(!object.moveBinding(to: row5.key, core: bound.core, info: scratchInfo, table: bound.table))
        #expect(!object.moveBinding(to: row5.key, core: bound.core, info: bound.info, table: bound.table + 1))
        #expect(object.n == 0, "a refused move leaves the object on its row")

        #expect(object.moveBinding(to: row5.key, core: bound.core, info: bound.info, table: bound.table))
        #expect(object.n == 5)
        #expect(object.label == "row 5")

        // A move makes the binding current, as a new one would be: an accessor the realm
        // invalidated reads its new row.
        realm.invalidate()
        #expect(object.isInvalidated)
        #expect(object.moveBinding(to: bound.key, core: bound.core, info: bound.info, table: bound.table))
        #expect(!object.isInvalidated)
        #expect(object.n == 0)
        withExtendedLifetime(otherRealm) {}
    }

    func filledOwner() throws -> (Realm, RebindOwner) {
        let realm = try filled()
        let owner = RebindOwner()
        try realm.write {
            realm.add(owner)
            let all = realm.objects(RebindCounted.self).sorted(byKeyPath: "n", ascending: false)
            for object in all { owner.items.append(object) }
            owner.items.append(all[0])
        }
        return (realm, owner)
    }

    static var listOrder: [Int] { Array((0..<rows).reversed()) + [rows - 1] }

    @Test func aListMovesAnAccessorLetGoOfToTheNextLink() throws {
        let (_, owner) = try filledOwner()
        _ = RebindCounted.takeMade()
        var seen: [Int] = []
        for object in owner.items { seen.append(object.n) }
        #expect(seen == Self.listOrder)
        #expect(RebindCounted.takeMade() == 1, "one accessor served the whole loop")
    }

    @Test func aListKeepsTheAccessorsALoopHolds() throws {
        let (realm, owner) = try filledOwner()
        var kept: [RebindCounted] = []
        var holders: [WeakHolder] = []
        for object in owner.items {
            if let previous = holders.last?.object { #expect(previous !== object) }
            holders.append(WeakHolder(object))
            if object.n % 3 == 0 { kept.append(object) }
        }
        #expect(kept.map(\.n) == Self.listOrder.filter { $0 % 3 == 0 })
        for (position, holder) in holders.enumerated() {
            if let object = holder.object { #expect(object.n == Self.listOrder[position]) }
        }
        // Appending inside the loop neither extends nor disturbs it.
        var visited = 0
        try realm.write {
            for object in owner.items {
                #expect(object.n == Self.listOrder[visited])
                visited += 1
                if visited <= 2 { owner.items.append(object) }
            }
        }
        #expect(visited == Self.listOrder.count)
        #expect(owner.items.count == Self.listOrder.count + 2)
    }
}
