// A list or dictionary nested in an AnyRealmValue can be observed, as in RealmSwift: each write
// that changes it reports the positions or keys removed, added and modified; writes that leave it
// as it was report nothing; a value replaced under it reports every element gone.
import Foundation
import Synchronization
import Testing
import Strata
import StrataTestSupport

final class NestedWatchBox: Object {
    @Persisted var value: AnyRealmValue
    @Persisted var entries: List<AnyRealmValue>
    @Persisted var note = ""
}

@Suite struct NestedCollectionObservationTests {
    typealias ListChange = (deletions: [Int], insertions: [Int], modifications: [Int])
    typealias MapChange = (deletions: [String], insertions: [String], modifications: [String])

    private func boxed(_ value: AnyRealmValue) throws -> (Realm, NestedWatchBox) {
        var configuration = tempConfig("nested-observation")
        configuration.objectTypes = [NestedWatchBox.self]
        let realm = try Realm(configuration: configuration)
        let box = NestedWatchBox()
        box.value = value
        try realm.write { realm.add(box) }
        return (realm, box)
    }

    /// Observes `list`, returning the token and what it saw (`nil` for the initial delivery).
    private func watch(_ list: List<AnyRealmValue>?) throws -> (NotificationToken, () -> [ListChange?]) {
        let seen = Mutex<[ListChange?]>([])
        let token = try #require(list).observe { change in
            switch change {
            case .initial: seen.withLock { $0.append(nil) }
            case .update(_, let d, let i, let m): seen.withLock { $0.append((d, i, m)) }
            case .error(let error): Issue.record("\(error)")
            }
        }
        return (token, { seen.withLock { $0 } })
    }

    @Test func aNestedListReportsPositions() throws {
        let inner = AnyRealmValue.fromArray([.int(1), .string("a"), .double(2)])
        let (realm, box) = try boxed(.fromArray([inner, .bool(false)]))
        let (outerToken, outer) = try watch(box.value.listValue)
        let (innerToken, innerSeen) = try watch(box.value.listValue?[0].listValue)
        defer { outerToken.invalidate(); innerToken.invalidate() }
        #expect(outer().count == 1 && outer()[0] == nil, "the initial delivery")

        try realm.write { box.value.listValue?.append(.int(9)) }
        try realm.write { box.value.listValue?[0].listValue?[1] = .string("b") }
        try realm.write { box.value.listValue?[0].listValue?.removeLast() }
        try realm.write { box.note = "unrelated" }
        try realm.write { box.value.listValue?[0].listValue?.removeAll() }

        let outerUpdates = outer().dropFirst().map { $0! }
        #expect(outerUpdates.map(\.insertions) == [[2], [], [], []])
        #expect(outerUpdates.dropFirst().map(\.modifications) == [[0], [0], [0]],
                "the element holding the changed list is modified")
        let innerUpdates = innerSeen().dropFirst().map { $0! }
        try #require(innerUpdates.count == 3, "no delivery for writes that leave the inner list as it was")
        #expect(innerUpdates[0].modifications == [1] && innerUpdates[0].deletions.isEmpty && innerUpdates[0].insertions.isEmpty)
        #expect(innerUpdates[1].deletions == [2])
        #expect(innerUpdates[2].deletions == [0, 1])
    }

    @Test func aNestedDictionaryReportsKeys() throws {
        let (realm, box) = try boxed(.fromDictionary(["a": .int(1), "b": .fromDictionary(["x": .int(5)]), "c": .string("s")]))
        let seen = Mutex<[MapChange]>([])
        let token = try #require(box.value.dictionaryValue).observe { change in
            if case .update(_, let d, let i, let m) = change { seen.withLock { $0.append((d, i, m)) } }
        }
        defer { token.invalidate() }
        try realm.write { box.value.dictionaryValue?["d"] = .bool(true) }
        try realm.write { box.value.dictionaryValue?["b"]?.dictionaryValue?["y"] = .int(6) }
        try realm.write {
            box.value.dictionaryValue?["a"] = nil
            box.value.dictionaryValue?["c"] = nil
        }
        let updates = seen.withLock { $0 }
        try #require(updates.count == 3)
        #expect(updates[0].insertions == ["d"] && updates[0].deletions.isEmpty && updates[0].modifications.isEmpty)
        #expect(updates[1].modifications == ["b"], "a change inside a nested value modifies its key")
        #expect(updates[2].deletions == ["a", "c"])
    }

    @Test func aListInAListElementIsObservedThroughTheList() throws {
        let (realm, box) = try boxed(.none)
        try realm.write { box.entries.append(.fromArray([.int(1)])) }
        let (token, seen) = try watch(box.entries[0].listValue)
        defer { token.invalidate() }
        try realm.write { box.entries[0].listValue?.append(.int(2)) }
        #expect(seen().dropFirst().map { $0!.insertions } == [[1]])
    }

    @Test func aReplacedValueReportsEveryElementGone() throws {
        let (realm, box) = try boxed(.fromArray([.int(1), .int(2)]))
        let (token, seen) = try watch(box.value.listValue)
        defer { token.invalidate() }
        try realm.write { box.value = .string("no longer a list") }
        try realm.write { box.value = .int(3) }
        let updates = seen().dropFirst().map { $0! }
        #expect(updates.count == 1 && updates.first?.deletions == [0, 1])
    }

    @Test func anObserverOnAQueueGetsTheListOfItsQueue() throws {
        let (realm, box) = try boxed(.fromArray([.int(1)]))
        let delivered = DispatchSemaphore(value: 0)
        let counts = Mutex<[Int]>([])
        let token = try #require(box.value.listValue).observe(on: DispatchQueue(label: "nested-observer")) { change in
            switch change {
            case .initial(let list), .update(let list, _, _, _): counts.withLock { $0.append(list.count) }
            case .error(let error): Issue.record("\(error)")
            }
            delivered.signal()
        }
        defer { token.invalidate() }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        try realm.write { box.value.listValue?.append(.int(2)) }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        #expect(counts.withLock { $0 } == [1, 2])
    }

    @Test func aFrozenNestedListCannotBeObserved() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "nested-observation-frozen")
            configuration.objectTypes = [NestedWatchBox.self]
            let realm = try Realm(configuration: configuration)
            let box = NestedWatchBox()
            box.value = .fromArray([.int(1)])
            try realm.write { realm.add(box) }
            _ = box.freeze().value.listValue?.observe { _ in }
        }
    }
}
