// Reference leaks of the object layer: objects linked to each other (both ways, to themselves,
// through collections or embedded objects) before `add`, and objects obtained from queries and
// notifications, must not keep the realm core, and so its file, alive once everything that
// uses them is gone. Checked by the file being closed everywhere, `Realm.deleteFiles`
// succeeding, the objects being deallocated and `shouldCompactOnLaunch` being consulted again.
import Foundation
import Testing
@testable import StrataStorage
@testable import Strata
import StrataTestSupport

final class LeakNode: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var label = ""
    @Persisted var next: LeakNode?
    @Persisted var children: List<LeakNode>
    @Persisted var friends: MutableSet<LeakNode>
    @Persisted var named: Map<String, LeakNode?>
    @Persisted var part: LeakPart?
    @Persisted var parts: List<LeakPart>
    @Persisted(originProperty: "next") var pointedAtBy: LinkingObjects<LeakNode>
}

final class LeakPart: EmbeddedObject {
    @Persisted var label = ""
    @Persisted var node: LeakNode?
}

private func node(_ id: String) -> LeakNode {
    let n = LeakNode()
    n.id = id
    return n
}

/// Weak references to objects, to check that they are deallocated.
private struct WeakObjects {
    private var boxes: [() -> Object?] = []
    mutating func watch(_ objects: Object...) {
        for o in objects { boxes.append { [weak o] in o } }
    }
    var alive: Int { boxes.filter { $0() != nil }.count }
}

/// Holds delivered objects outside of observer blocks.
private final class ObjectBag {
    var items: [LeakNode] = []
}

/// Expects the file of `config` closed in this and every other process, and deletable.
private func expectClosedAndDeletable(_ config: Realm.Configuration, sourceLocation: SourceLocation = #_sourceLocation) {
    let path = config.fileURL!.path
    #expect(InstanceCache.shared.liveCores(identity: config.identity).isEmpty, "a realm core is still alive", sourceLocation: sourceLocation)
    #expect(!StorageFile.isOpenAnywhere(path: path), "the file is still open", sourceLocation: sourceLocation)
    do {
        #expect(try Realm.deleteFiles(for: config), "deleteFiles found no file", sourceLocation: sourceLocation)
    } catch {
        Issue.record("deleteFiles failed: \(error)", sourceLocation: sourceLocation)
    }
    #expect(!FileManager.default.fileExists(atPath: path), sourceLocation: sourceLocation)
}

/// Expects the file of `config` open and `deleteFiles` refused with `.alreadyOpen`.
private func expectStillOpen(_ config: Realm.Configuration, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(StorageFile.isOpenAnywhere(path: config.fileURL!.path), "the file was closed", sourceLocation: sourceLocation)
    #expect(sourceLocation: sourceLocation) { try Realm.deleteFiles(for: config) } throws: {
        ($0 as? Realm.Error)?.code == .alreadyOpen
    }
}

@Suite struct LeakTests {
    /// The reported bug: a person and a dog linked both ways (list + to-one) before `add`.
    @Test func dogAndPersonLinkedBothWaysBeforeAdd() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let p = Person()
            p.name = "Ann"
            let d = Dog(value: ["id": "rex", "name": "Rex"])
            p.dogs.append(d)
            d.owner = p
            try realm.write { realm.add(p) }
            weak.watch(p, d)
            // Still correct through the realm after the unmanaged values were dropped.
            #expect(p.dogs.count == 1 && p.dogs.first?.id == "rex")
            #expect(d.owner?.name == "Ann")
            #expect(p.pets.count == 1)
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// The symptom: `shouldCompactOnLaunch` is consulted on the next open (it is skipped while
    /// the file is still open).
    @Test func compactOnLaunchRunsAfterACycleWasAdded() throws {
        var config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<20 {
                    let p = Person()
                    p.name = "p\(i)"
                    let d = Dog(value: ["id": "d\(i)", "name": "n\(i)"])
                    p.dogs.append(d)
                    d.owner = p
                    realm.add(p)
                }
            }
            try realm.write { realm.deleteAll() }
        }
        let asked = LockedBox(0)
        config.shouldCompactOnLaunch = { _, _ in asked.set(asked.get() + 1); return true }
        do {
            let realm = try Realm(configuration: config)
            #expect(realm.objects(Person.self).isEmpty)
        }
        #expect(asked.get() == 1, "shouldCompactOnLaunch was skipped")
        expectClosedAndDeletable(config)
    }

    @Test func toOneCycleAndSelfLinks() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let a = node("a"), b = node("b"), s = node("self")
            a.next = b
            b.next = a
            s.next = s
            s.children.append(s)
            s.friends.insert(s)
            s.named["me"] = s
            try realm.write {
                realm.add(a)
                realm.add(s)
            }
            weak.watch(a, b, s)
            #expect(a.next?.next?.id == "a" && b.pointedAtBy.first?.id == "a")
            #expect(s.next?.id == "self" && s.children.first?.id == "self")
            #expect(s.friends.count == 1 && s.named["me"]??.id == "self")
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    @Test func cyclesThroughListsSetsAndMaps() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let a = node("a"), b = node("b"), c = node("c"), d = node("d")
            a.children.append(objectsIn: [b, c])
            b.children.append(a)
            c.next = a
            a.friends.insert(d)
            d.named["back"] = a
            d.friends.insert(b)
            try realm.write { realm.add(a) }
            weak.watch(a, b, c, d)
            #expect(realm.objects(LeakNode.self).count == 4)
            #expect(b.children.first?.id == "a" && d.named["back"]??.id == "a")
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    @Test func cyclesThroughEmbeddedObjects() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let a = node("a"), b = node("b")
            let head = LeakPart()
            head.node = a
            a.part = head
            let item = LeakPart()
            item.node = b
            a.parts.append(item)
            b.next = a
            b.part = LeakPart()
            b.part?.node = b
            try realm.write { realm.add(a) }
            weak.watch(a, b, head, item)
            #expect(a.part?.node?.id == "a" && a.parts.first?.node?.id == "b" && b.part?.node?.id == "b")
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// `add(_:update:)` over an existing primary key, and `create`, drop unmanaged links too.
    @Test func cyclesAddedAsUpdates() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(node("a")) }
            let a = node("a"), b = node("b")
            a.next = b
            b.children.append(a)
            try realm.write { realm.add(a, update: .modified) }
            weak.watch(a, b)
            #expect(realm.objects(LeakNode.self).count == 2)
            #expect(realm.object(ofType: LeakNode.self, forPrimaryKey: "a")?.next?.id == "b")
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// Observes a two-node cycle with a results, an object and a realm observer, commits one
    /// change, and passes everything delivered to `keep`. Returns the three tokens.
    private func observeAndDeliver(_ realm: Realm, _ weak: inout WeakObjects, keep: @escaping (LeakNode) -> Void) throws -> [NotificationToken] {
        let a = node("a"), b = node("b")
        a.next = b
        b.next = a
        try realm.write { realm.add(a) }
        let results = realm.objects(LeakNode.self).filter("next != nil")
        let first = try #require(results.first)
        weak.watch(first)
        var delivered = 0
        let collectionToken = results.observe { change in
            switch change {
            case .initial(let r): r.forEach(keep)
            case .update(let r, _, _, _): r.forEach(keep)
            case .error(let e): Issue.record("unexpected \(e)")
            }
        }
        let objectToken = first.observe { (change: ObjectChange<LeakNode>) in
            if case .change(let o, _) = change { keep(o) }
        }
        let realmToken = realm.observe { _, r in
            delivered += 1
            r.objects(LeakNode.self).forEach(keep)
        }
        try realm.write { first.label = "changed" }
        _ = realm.refresh()
        #expect(delivered == 1)
        return [collectionToken, objectToken, realmToken]
    }

    /// Unmanaged objects linked back to a managed one, added through a managed setter, a
    /// managed list's `append` or `Realm.create`, drop their unmanaged links too.
    @Test func cyclesAddedThroughManagedSettersAndAppends() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let a = node("a")
            try realm.write { realm.add(a) }
            let b = node("b"), c = node("c"), part = LeakPart()
            try realm.write {
                b.next = a
                b.children.append(c)
                c.next = b
                a.next = b                       // adds b (and c) through the setter
                let d = node("d")
                d.friends.insert(a)
                d.named["self"] = d
                a.children.append(d)             // adds d through the managed list
                weak.watch(d)
                part.node = a
                a.part = part                    // adds the embedded part through the setter
                let e = realm.create(LeakNode.self, value: ["id": "e", "next": a])
                weak.watch(e)
            }
            weak.watch(a, b, c, part)
            #expect(realm.objects(LeakNode.self).count == 5)
            #expect(a.next?.children.first?.next?.id == "b" && a.part?.node?.id == "a")
            #expect(a.children.first?.named["self"]??.id == "d")
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// A queue-confined realm whose async write added a cycle closes once its queue is done
    /// with it (the async write's blocks and completion are released after they ran).
    @Test func queueConfinedRealmClosesAfterAnAsyncWriteOfACycle() throws {
        let config = tempConfig("queue", durability: .full)
        let queue = DispatchQueue(label: "strata.leaks")
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedBox<[String]>([])
        queue.async {
            do {
                let realm = try Realm(configuration: config, queue: queue)
                realm.beginAsyncWrite {
                    let p = Person()
                    let d = Dog(value: ["id": "q", "name": "Q"])
                    p.dogs.append(d)
                    d.owner = p
                    realm.add(p)
                    realm.commitAsyncWrite { error in
                        outcome.set(outcome.get() + [error.map { "commit: \($0)" } ?? "committed"])
                        // Signal from a later block: this one still holds the core while it runs.
                        queue.async { done.signal() }
                    }
                }
            } catch {
                outcome.set(["open: \(error)"])
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.get() == ["committed"])
        expectClosedAndDeletable(config)
    }

    /// Objects read back through queries (results, primary key, links, backlinks, frozen copies)
    /// hold the core only while they are alive.
    @Test func objectsFromQueries() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            let a = node("a"), b = node("b")
            a.next = b
            b.next = a
            b.children.append(a)
            try realm.write { realm.add(a) }
            var found: [Object] = Array(realm.objects(LeakNode.self).filter("next != nil").sorted(byKeyPath: "id"))
            let viaKey = try #require(realm.object(ofType: LeakNode.self, forPrimaryKey: "b"))
            found += [viaKey, try #require(viaKey.next), try #require(viaKey.pointedAtBy.first), try #require(viaKey.children.first)]
            found.append(viaKey.freeze())
            #expect(found.count == 7 && found.allSatisfy { !$0.isInvalidated })
            for o in found { weak.watch(o) }
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// Objects delivered to observers: after the tokens are invalidated and a delivery pass ran
    /// (here `refresh()`; without it see the known issue below) the observers, their blocks and
    /// the objects the blocks captured are released and the file closes.
    @Test func objectsFromNotificationsAreReleasedAfterTheNextDeliveryPass() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        do {
            let realm = try Realm(configuration: config)
            var seen: [LeakNode] = []
            let tokens = try observeAndDeliver(realm, &weak) { seen.append($0) }
            #expect(seen.count >= 3)
            for o in seen { weak.watch(o) }
            for t in tokens { t.invalidate() }
            _ = realm.refresh()
        }
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// An observer could keep objects holding the core (old linked values, a block that captured delivered
    /// objects): core → hub → observer → core. Invalidating its token must remove it at once, so
    /// that dropping everything afterwards closes the file.
    @Test func observersAreReleasedOnInvalidate() throws {
        let config = tempConfig()
        var weak = WeakObjects()
        let kept = ObjectBag()
        do {
            let realm = try Realm(configuration: config)
            let tokens = try observeAndDeliver(realm, &weak) { kept.items.append($0) }
            #expect(kept.items.count >= 3, "too few deliveries: \(kept.items.count)")
            #expect(kept.items.allSatisfy { !$0.isInvalidated && $0.next != nil })
            for o in kept.items { weak.watch(o) }
            for t in tokens { t.invalidate() }
            kept.items.removeAll()
        }
        // Invalidating a token removes its observer from the hub at once (ObserverHub.swift).
        #expect(InstanceCache.shared.liveCores(identity: config.identity).isEmpty, "a realm core is still alive")
        #expect(weak.alive == 0, "objects still alive")
        expectClosedAndDeletable(config)
    }

    /// Realm's behaviour: a managed object or a Results kept after the `Realm` value is gone
    /// keeps the realm open and usable; releasing the last of them closes the file.
    @Test func managedObjectsAndResultsKeepTheRealmUntilReleased() throws {
        let config = tempConfig()
        var kept: LeakNode?
        var results: Results<LeakNode>?
        do {
            let realm = try Realm(configuration: config)
            let a = node("a"), b = node("b")
            a.next = b
            b.next = a
            try realm.write { realm.add(a) }
            kept = realm.object(ofType: LeakNode.self, forPrimaryKey: "b")
            results = realm.objects(LeakNode.self)
        }
        do {
            let object = try #require(kept)
            #expect(!object.isInvalidated && object.next?.id == "a")
            let realm = try #require(object.realm)
            try realm.write { object.label = "still usable" }
            #expect(results?.filter("label == 'still usable'").count == 1)
        }
        expectStillOpen(config)
        kept = nil
        expectStillOpen(config)
        #expect(results?.count == 2)
        results = nil
        expectClosedAndDeletable(config)
    }

    /// A token that was not invalidated keeps its realm open (Realm's behaviour) until released.
    @Test func aLiveTokenKeepsTheRealmUntilInvalidated() throws {
        let config = tempConfig()
        var token: NotificationToken?
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(node("a")) }
            token = realm.objects(LeakNode.self).observe { _ in }
        }
        expectStillOpen(config)
        token?.invalidate()
        token = nil
        expectClosedAndDeletable(config)
    }
}
