// `add(_:update: .modified)` of an object that exists updates its embedded objects in place, as
// RealmSwift does: instances read before the update read the new values, and the unmanaged
// objects given become those objects. `.all` replaces them (the old ones are deleted).
import Foundation
import Strata
import StrataTestSupport
import Testing

final class InPlaceNode: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var child: InPlaceNode?
    @Persisted var children: List<InPlaceNode>
}

final class InPlaceOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var node: InPlaceNode?
    @Persisted var nodes: List<InPlaceNode>
    @Persisted var note = ""
}

@Suite("add(update: .modified) updates embedded objects in place")
struct EmbeddedInPlaceUpdateTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [InPlaceNode.self, InPlaceOwner.self]
        return try Realm(configuration: configuration)
    }

    /// An owner with id 1 whose node, node's child, node's children and nodes hold values from `first` on:
    /// node first, child first+1, children first+2…, nodes …; `count` elements in each list.
    static func owner(from first: Int, count: Int = 2) -> (owner: InPlaceOwner, made: [InPlaceNode]) {
        var next = first
        var made: [InPlaceNode] = []
        func node() -> InPlaceNode {
            let n = InPlaceNode()
            n.value = next
            next += 1
            made.append(n)
            return n
        }
        let owner = InPlaceOwner()
        owner.id = 1
        owner.node = node()
        owner.node?.child = node()
        for _ in 0..<count { owner.node?.children.append(node()) }
        for _ in 0..<count { owner.nodes.append(node()) }
        return (owner, made)
    }

    static func values(_ owner: InPlaceOwner) -> [Int] {
        guard let node = owner.node else { return [] }
        return [node.value, node.child?.value ?? -1] + node.children.map(\.value) + owner.nodes.map(\.value)
    }

    @Test func modifiedKeepsTheEmbeddedObjectsAndWritesTheNewValues() throws {
        let realm = try Self.realm("in-place-modified")
        let (first, firstNodes) = Self.owner(from: 0)
        let (second, secondNodes) = Self.owner(from: 6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .modified)
        }
        #expect(Self.values(first) == [6, 7, 8, 9, 10, 11])
        #expect(realm.objects(InPlaceNode.self).count == 6, "no embedded object is left behind or added")
        for (old, new) in zip(firstNodes, secondNodes) {
            #expect(!old.isInvalidated, "an instance read before the update still reads its object")
            #expect(old.value == new.value)
            #expect(new.realm != nil, "the object given becomes the existing one")
            #expect(old.isSameObject(as: new))
        }
        #expect(first.isSameObject(as: second))
    }

    @Test func allReplacesTheEmbeddedObjects() throws {
        let realm = try Self.realm("in-place-all")
        let (first, firstNodes) = Self.owner(from: 0)
        let (second, secondNodes) = Self.owner(from: 6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .all)
        }
        #expect(Self.values(first) == [6, 7, 8, 9, 10, 11])
        #expect(realm.objects(InPlaceNode.self).count == 6)
        #expect(firstNodes.allSatisfy { $0.isInvalidated }, "the old embedded objects are deleted")
        #expect(secondNodes.map(\.value) == [6, 7, 8, 9, 10, 11])
    }

    @Test func aLongerListAddsAndAShorterListDeletes() throws {
        let realm = try Self.realm("in-place-counts")
        let (first, firstNodes) = Self.owner(from: 0, count: 2)
        try realm.write { realm.add(first) }
        let (longer, _) = Self.owner(from: 10, count: 3)
        try realm.write { realm.add(longer, update: .modified) }
        #expect(Self.values(first) == [10, 11, 12, 13, 14, 15, 16, 17])
        #expect(realm.objects(InPlaceNode.self).count == 8)
        #expect(firstNodes.allSatisfy { !$0.isInvalidated })

        let (shorter, _) = Self.owner(from: 20, count: 1)
        try realm.write { realm.add(shorter, update: .modified) }
        #expect(Self.values(first) == [20, 21, 22, 23])
        #expect(realm.objects(InPlaceNode.self).count == 4, "the elements past the new count are deleted")
        #expect(firstNodes[2].value == 22 && firstNodes[4].value == 23, "the first elements are kept")
        #expect(firstNodes[3].isInvalidated && firstNodes[5].isInvalidated)
    }

    @Test func aNilLinkDeletesAndANewLinkAdds() throws {
        let realm = try Self.realm("in-place-nil")
        let (first, firstNodes) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        let cleared = InPlaceOwner()
        cleared.id = 1
        try realm.write { realm.add(cleared, update: .modified) }
        #expect(first.node == nil && first.nodes.isEmpty)
        #expect(realm.objects(InPlaceNode.self).isEmpty)
        #expect(firstNodes.allSatisfy { $0.isInvalidated })

        let (again, _) = Self.owner(from: 30)
        try realm.write { realm.add(again, update: .modified) }
        #expect(Self.values(first) == [30, 31, 32, 33, 34, 35])
    }

    @Test func createWithADictionaryUpdatesInPlaceToo() throws {
        let realm = try Self.realm("in-place-create")
        let (first, firstNodes) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        try realm.write {
            realm.create(InPlaceOwner.self, value: ["id": 1, "node": ["value": 40, "child": ["value": 41]],
                                                    "nodes": [["value": 44], ["value": 45]]], update: .modified)
        }
        #expect(Self.values(first) == [40, 41, 2, 3, 44, 45], "what the node's dictionary does not name keeps its value")
        #expect(!firstNodes[0].isInvalidated && firstNodes[0].value == 40)
        #expect(!firstNodes[1].isInvalidated && firstNodes[1].value == 41)

        try realm.write {
            realm.create(InPlaceOwner.self, value: ["id": 1, "node": ["value": 50]], update: .all)
        }
        #expect(firstNodes[0].isInvalidated, "`.all` replaces the embedded object")
        #expect(first.node?.value == 50)
    }

    @Test func createWithADictionaryUpdatesAListsElementsInPlace() throws {
        let realm = try Self.realm("in-place-create-list")
        let (first, firstNodes) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        let (kept, dropped) = (firstNodes[4], firstNodes[5])
        try realm.write {
            kept.child = InPlaceNode(value: ["value": 9])
            realm.create(InPlaceOwner.self, value: ["id": 1, "nodes": [["value": 44], ["value": 45], ["value": 46]]],
                         update: .modified)
        }
        #expect(first.nodes.map(\.value) == [44, 45, 46])
        #expect(!kept.isInvalidated && kept.value == 44 && !dropped.isInvalidated && dropped.value == 45)
        #expect(kept.child?.value == 9, "what an element's dictionary does not name keeps its value")

        try realm.write {
            realm.create(InPlaceOwner.self, value: ["id": 1, "nodes": [["child": ["value": 60]]]], update: .modified)
        }
        #expect(first.nodes.count == 1 && dropped.isInvalidated, "elements past the new count are deleted")
        #expect(!kept.isInvalidated && kept.value == 44 && kept.child?.value == 60)
    }

    @Test func theUpdateRollsBackWithItsWrite() throws {
        let realm = try Self.realm("in-place-rollback")
        let (first, firstNodes) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        let (second, _) = Self.owner(from: 6)
        realm.beginWrite()
        realm.add(second, update: .modified)
        realm.cancelWrite()
        #expect(Self.values(first) == [0, 1, 2, 3, 4, 5])
        #expect(firstNodes.map(\.value) == [0, 1, 2, 3, 4, 5])
    }

    @Test func anotherThreadReadsTheCommittedUpdate() throws {
        let realm = try Self.realm("in-place-thread")
        let (first, _) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        let (second, _) = Self.owner(from: 6)
        try realm.write { realm.add(second, update: .modified) }
        let configuration = realm.configuration
        let read = try onAnotherThread { () -> ([Int], Int) in
            let other = try Realm(configuration: configuration)
            let stored = other.object(ofType: InPlaceOwner.self, forPrimaryKey: 1)
            return (stored.map(EmbeddedInPlaceUpdateTests.values) ?? [], other.objects(InPlaceNode.self).count)
        }
        #expect(read.0 == [6, 7, 8, 9, 10, 11])
        #expect(read.1 == 6)
    }

    @Test func aChangedValueNotifiesTheEmbeddedObjectsObserver() throws {
        let realm = try Self.realm("in-place-observe")
        let (first, firstNodes) = Self.owner(from: 0)
        try realm.write { realm.add(first) }
        let changes = LockedBox<[String]>([])
        let token = firstNodes[0].observe { change in
            if case .change(_, let properties) = change { changes.set(changes.get() + properties.map(\.name)) }
        }
        defer { token.invalidate() }
        let (second, _) = Self.owner(from: 0)
        second.node?.value = 100
        try realm.write { realm.add(second, update: .modified) }
        #expect(changes.get() == ["value"], "only the value that changed is reported")
        #expect(!firstNodes[0].isInvalidated)
    }
}
