// List, MutableSet and Map notifications (thread-confined delivery at commit/refresh, `on:`
// queues), the sequence diff they use, and the owner-deleted rule.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

/// Applies a change set to `old` the way a UI would (deletions, then insertions taken from
/// `new`, then modifications re-read from `new`).
func applyChange<T>(_ old: [T], _ new: [T], deletions: [Int], insertions: [Int], modifications: [Int]) -> [T] {
    // Modifications are indices in `old`: each modified element is carried through the deletions
    // and insertions, then takes the value at the place it reached.
    let modified = Set(modifications)
    var out = old.enumerated().map { (value: $0.element, modified: modified.contains($0.offset)) }
    for d in deletions.sorted(by: >) { out.remove(at: d) }
    for i in insertions.sorted() { out.insert((new[i], false), at: i) }
    return out.indices.map { out[$0].modified && $0 < new.count ? new[$0] : out[$0].value }
}

func makePerson(_ realm: Realm, _ name: String, dogs: [Dog] = []) throws -> Person {
    try realm.write {
        let p = realm.create(Person.self, value: ["name": name])
        p.dogs.append(objectsIn: dogs)
        return p
    }
}

@Suite struct NotificationOwnedCollectionTests {
    // MARK: - The sequence diff

    @Test func sequenceDiffHandlesDuplicatesAndIsMinimal() {
        // Deterministic pseudo-random sequences over a small alphabet (many duplicates).
        var seed: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<300 {
            let a = (0..<next(12)).map { _ in next(4) }
            let b = (0..<next(12)).map { _ in next(4) }
            let m = SequenceDiff.matches(a, b)
            // A common subsequence, strictly increasing in both.
            for (x, y) in zip(m, m.dropFirst()) { #expect(x.old < y.old && x.new < y.new) }
            for p in m { #expect(a[p.old] == b[p.new]) }
            // As long as a longest one (dynamic programming).
            var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in stride(from: a.count - 1, through: 0, by: -1) {
                for j in stride(from: b.count - 1, through: 0, by: -1) {
                    lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
                }
            }
            #expect(m.count == lcs[0][0])
            let c = SequenceDiff.changeSet(oldCount: a.count, newCount: b.count, matches: m)
            #expect(applyChange(a, b, deletions: c.deletions, insertions: c.insertions, modifications: []) == b)
        }
        // Past the edit budget the middle is replaced wholesale, still a correct change set.
        let a = Array(0..<50), b = Array(100..<150)
        let m = SequenceDiff.matches([1] + a + [2], [1] + b + [2], maxEdits: 10)
        #expect(m.map(\.old) == [0, 51] && m.map(\.new) == [0, 51])
    }

    @Test func replacementsFoldIntoModifications() {
        // [a b c] → [a x c]: the b→x replacement is a modification of 1.
        let m = SequenceDiff.matches([1, 2, 3], [1, 9, 3])
        let f = SequenceDiff.foldReplacements(oldCount: 3, newCount: 3, matches: m)
        #expect(f.replaced == [1])
        let c = SequenceDiff.changeSet(oldCount: 3, newCount: 3, matches: f.matches)
        #expect(c.deletions.isEmpty && c.insertions.isEmpty)
        // [a b] → [x y z]: two replaced, one inserted at the end.
        let g = SequenceDiff.foldReplacements(oldCount: 2, newCount: 3, matches: SequenceDiff.matches([1, 2], [7, 8, 9]))
        #expect(g.replaced == [0, 1])
        #expect(SequenceDiff.changeSet(oldCount: 2, newCount: 3, matches: g.matches).insertions == [2])
    }

    // MARK: - List

    @Test func listOfObjectsReportsIndicesAcrossAMultiStepTransaction() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b", "c", "d"])
        let person = try makePerson(realm, "ann", dogs: Array(dogs.prefix(3)))
        let log = ChangeLog<List<Dog>>()
        let token = person.dogs.observe { log.record($0) }
        #expect(log.initials == 1 && log.updates.isEmpty)
        // remove at 0, then modify what is now index 1 ("c"): deletion 0, modification 2, where
        // "c" was before the write
        try realm.write {
            person.dogs.remove(at: 0)
            person.dogs[1].age = 30
        }
        #expect(log.updates.count == 1)
        #expect(log.updates.last?.deletions == [0])
        #expect(log.updates.last?.insertions == [])
        #expect(log.updates.last?.modifications == [2])
        // append a dog already in the list (duplicates are allowed) and insert at 0
        let before = person.dogs.map(\.id)
        try realm.write {
            person.dogs.append(dogs[1])
            person.dogs.insert(dogs[3], at: 0)
        }
        let after = person.dogs.map(\.id)
        #expect(after == ["d", "b", "c", "b"])
        let u = try #require(log.updates.last)
        #expect(u.deletions.isEmpty && u.insertions == [0, 3] && u.modifications.isEmpty)
        #expect(applyChange(before, after, deletions: u.deletions, insertions: u.insertions, modifications: u.modifications) == after)
        // a move is a deletion plus an insertion
        try realm.write { person.dogs.move(from: 0, to: 3) }
        #expect(person.dogs.map(\.id) == ["b", "c", "b", "d"])
        #expect(log.updates.count == 3)
        let mv = try #require(log.updates.last)
        #expect(applyChange(after, person.dogs.map(\.id), deletions: mv.deletions, insertions: mv.insertions,
                            modifications: mv.modifications) == ["b", "c", "b", "d"])
        #expect(mv.deletions.count == 1 && mv.insertions.count == 1 && mv.modifications.isEmpty)
        // a commit that does not touch the list or its dogs reports nothing
        try realm.write { person.name = "Ann" }
        #expect(log.updates.count == 3)
        token.invalidate()
        try realm.write { person.dogs.removeAll() }
        #expect(log.updates.count == 3)
        #expect(log.errors.isEmpty)
    }

    @Test func randomMultiStepTransactionsGiveChangeSetsThatRebuildTheList() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b", "c", "d"])
        let person = try makePerson(realm, "ann", dogs: dogs)
        try realm.write { person.tags.append(objectsIn: ["x", "y", "x"]) }
        var seed: UInt64 = 42
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let tags = ChangeLog<List<String>>(), pets = ChangeLog<List<Dog>>()
        let t1 = person.tags.observe { tags.record($0) }
        let t2 = person.dogs.observe { pets.record($0) }
        for round in 0..<40 {
            let oldTags = Array(person.tags), oldDogs = person.dogs.map(\.id)
            let tagUpdates = tags.updates.count, dogUpdates = pets.updates.count
            try realm.write {
                for _ in 0..<(1 + next(4)) {
                    let n = person.tags.count, m = person.dogs.count
                    switch next(5) {
                    case 0: person.tags.insert(["x", "y", "z"][next(3)], at: next(n + 1))
                    case 1 where n > 0: person.tags.remove(at: next(n))
                    case 2 where n > 1: person.tags.move(from: next(n), to: next(n))
                    case 3 where n > 0: person.tags[next(n)] = ["x", "y", "z"][next(3)]
                    case 4: person.dogs.insert(dogs[next(4)], at: next(m + 1))
                    default: if m > 0 { person.dogs.remove(at: next(m)) }
                    }
                }
            }
            let newTags = Array(person.tags), newDogs = person.dogs.map(\.id)
            // exactly one update per commit that changed the list, none otherwise
            #expect(tags.updates.count == tagUpdates + (newTags != oldTags ? 1 : 0), "round \(round)")
            #expect(pets.updates.count == dogUpdates + (newDogs != oldDogs ? 1 : 0), "round \(round)")
            if newTags != oldTags, let u = tags.updates.last {
                #expect(applyChange(oldTags, newTags, deletions: u.deletions, insertions: u.insertions,
                                    modifications: u.modifications) == newTags, "round \(round)")
            }
            if newDogs != oldDogs, let u = pets.updates.last {
                #expect(applyChange(oldDogs, newDogs, deletions: u.deletions, insertions: u.insertions,
                                    modifications: u.modifications) == newDogs, "round \(round)")
            }
        }
        #expect(tags.updates.count > 10 && pets.updates.count > 10)
        #expect(tags.errors.isEmpty && pets.errors.isEmpty)
        t1.invalidate()
        t2.invalidate()
    }

    @Test func listOfValuesReportsReplacementsAsModifications() throws {
        let realm = try Realm(configuration: tempConfig())
        let person = try makePerson(realm, "ann")
        try realm.write { person.tags.append(objectsIn: ["x", "y", "z"]) }
        let log = ChangeLog<List<String>>()
        let token = person.tags.observe { log.record($0) }
        try realm.write { person.tags[1] = "Y" }
        #expect(log.updates.last?.modifications == [1])
        #expect(log.updates.last?.deletions == [] && log.updates.last?.insertions == [])
        try realm.write {
            person.tags.insert("w", at: 0)
            person.tags.remove(at: 3)      // "z"
        }
        #expect(person.tags.elements == ["w", "x", "Y"])
        #expect(log.updates.last?.insertions == [0])
        #expect(log.updates.last?.deletions == [2])
        // the same value written again is no change
        try realm.write { person.tags[0] = "w" }
        #expect(log.updates.count == 2)
        token.invalidate()
    }

    @Test func listKeyPathsFilterElementChanges() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b"])
        let person = try makePerson(realm, "ann", dogs: dogs)
        let byName = ChangeLog<List<Dog>>(), all = ChangeLog<List<Dog>>()
        let t1 = person.dogs.observe(keyPaths: ["name"]) { byName.record($0) }
        let t2 = person.dogs.observe { all.record($0) }
        try realm.write { dogs[1].age = 5 }
        #expect(byName.updates.isEmpty)
        #expect(all.updates.last?.modifications == [1])
        try realm.write { dogs[1].name = "B" }
        #expect(byName.updates.last?.modifications == [1])
        // membership changes are reported whatever the key paths
        try realm.write { person.dogs.remove(at: 0) }
        #expect(byName.updates.last?.deletions == [0])
        t1.invalidate()
        t2.invalidate()
    }

    @Test func aListWhoseOwnerIsGoneDeliversATypedError() throws {
        let realm = try Realm(configuration: tempConfig())
        let person = try makePerson(realm, "ann")
        func code<C>(_ log: ChangeLog<C>) -> Realm.Error.Code? { (log.errors.first as? Realm.Error)?.code }
        let orphan = person.dogs
        try realm.write { realm.delete(person) }
        let gone = ChangeLog<List<Dog>>()
        let token = orphan.observe { gone.record($0) }
        #expect(code(gone) == .objectInvalidated && gone.initials == 0)
        token.invalidate()
    }

    /// Realm raises for these, from calls that cannot throw: each stops the process.
    @Test func badObservationsStop() async {
        await #expect(processExitsWith: .failure) {
            _ = List<Dog>().observe { _ in }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "observe-values-key-path"))
            let person = Person()
            try realm.write { realm.add(person) }
            _ = person.tags.observe(keyPaths: ["count"]) { _ in }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "observe-unknown-key-path"))
            let person = Person()
            try realm.write { realm.add(person) }
            _ = person.dogs.observe(keyPaths: ["nope"]) { _ in }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "observe-frozen-list"))
            let person = Person()
            try realm.write { realm.add(person) }
            _ = person.dogs.freeze().observe { _ in }
        }
    }

    @Test func deletingTheOwnerReportsEveryElementDeletedOnceThenStops() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b"])
        let person = try makePerson(realm, "ann", dogs: dogs)
        let profile = try realm.write {
            let p = realm.create(Profile.self, value: ["name": "p"])
            p.scores["x"] = 1
            p.scores["y"] = 2
            return p
        }
        let log = ChangeLog<List<Dog>>()
        let token = person.dogs.observe { log.record($0) }
        var mapDeletions: [[String]] = []
        let mapToken = profile.scores.observe { change in
            if case .update(_, let d, _, _) = change { mapDeletions.append(d) }
        }
        try realm.write {
            realm.delete(person)
            realm.delete(profile)
        }
        #expect(log.updates.count == 1)
        #expect(log.updates.last?.deletions == [0, 1])
        #expect(mapDeletions == [["x", "y"]])
        _ = try addDogs(realm, ["c"])
        #expect(log.updates.count == 1 && log.errors.isEmpty)
        token.invalidate()
        mapToken.invalidate()
    }

    @Test func commitsOfAnotherThreadCoalesceIntoOneListChange() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        let dogs = try addDogs(realm, ["a", "b", "c"])
        let person = try makePerson(realm, "ann", dogs: dogs)
        let before = person.dogs.map(\.id)
        let log = ChangeLog<List<Dog>>()
        let token = person.dogs.observe { log.record($0) }
        let failure = FailureBox()
        try runOnNewThread {
            do {
                let other = try Realm(configuration: config)
                let p = try #require(other.objects(Person.self).first)
                try other.write { p.dogs.remove(at: 0) }                           // b c
                try other.write { p.dogs.append(try #require(other.object(ofType: Dog.self, forPrimaryKey: "a"))) }  // b c a
                try other.write { p.dogs[1].name = "C" }                          // c modified
            } catch { failure.set("\(error)") }
        }
        #expect(failure.value == nil)
        #expect(log.updates.isEmpty)
        realm.refresh()
        #expect(log.updates.count == 1)
        let u = try #require(log.updates.last)
        #expect(u.deletions == [0] && u.insertions == [2] && u.modifications == [2])  // c was at 2
        #expect(applyChange(before, person.dogs.map(\.id), deletions: u.deletions, insertions: u.insertions,
                            modifications: u.modifications) == ["b", "c", "a"])
        token.invalidate()
    }

    @Test func listObservedOnAnotherQueueDeliversThere() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        let dogs = try addDogs(realm, ["a", "b"])
        let person = try makePerson(realm, "ann", dogs: [dogs[0]])
        let queue = DispatchQueue(label: "list-delivery")
        let got = DispatchSemaphore(value: 0)
        let seen = Mutex<[String]>([])
        let token = person.dogs.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let l): seen.withLock { $0.append("initial \(l.count)") }
            case .update(let l, let d, let i, let m): seen.withLock { $0.append("update \(l.map(\.id)) \(d) \(i) \(m)") }
            case .error(let e): seen.withLock { $0.append("error \(e)") }
            }
            got.signal()
        }
        #expect(got.wait(timeout: .now() + 30) == .success)
        try realm.write { person.dogs.append(dogs[1]) }
        #expect(got.wait(timeout: .now() + 30) == .success)
        #expect(seen.withLock { $0 } == ["initial 1", "update [\"a\", \"b\"] [] [1] []"])
        token.invalidate()
    }

    // MARK: - MutableSet and Map

    @Test func setReportsPositionsInItsOrder() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b"])
        let profile = try realm.write {
            let p = realm.create(Profile.self, value: ["name": "p"])
            p.tags.insert(objectsIn: ["b", "d"])
            p.friends.insert(dogs[0])
            return p
        }
        let tags = ChangeLog<MutableSet<String>>(), friends = ChangeLog<MutableSet<Dog>>()
        let t1 = profile.tags.observe { tags.record($0) }
        let t2 = profile.friends.observe(keyPaths: ["name"]) { friends.record($0) }
        try realm.write {
            profile.tags.insert("c")       // b c d
            profile.tags.insert("a")       // a b c d
            profile.tags.remove("d")       // a b c
        }
        #expect(Array(profile.tags) == ["a", "b", "c"])
        #expect(tags.updates.last?.deletions == [1])
        #expect(tags.updates.last?.insertions == [0, 2])
        try realm.write { profile.tags.insert("a") }      // already there: no change
        #expect(tags.updates.count == 1)
        try realm.write { dogs[0].name = "A" }
        #expect(friends.updates.last?.modifications == [0])
        try realm.write { dogs[0].age = 9 }               // not a watched key path
        #expect(friends.updates.count == 1)
        t1.invalidate()
        t2.invalidate()
    }

    @Test func mapReportsChangedKeys() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b"])
        let profile = try realm.write {
            let p = realm.create(Profile.self, value: ["name": "p"])
            p.scores["x"] = 1
            p.scores["y"] = 2
            p.best["first"] = dogs[0]
            return p
        }
        var initial = 0
        var changes: [(d: [String], i: [String], m: [String])] = []
        let t1 = profile.scores.observe { change in
            switch change {
            case .initial(let m): initial = m.count
            case .update(let m, let d, let i, let mod):
                #expect(m.count == profile.scores.count)
                changes.append((d, i, mod))
            case .error(let e): Issue.record("unexpected \(e)")
            }
        }
        #expect(initial == 2)
        try realm.write {
            profile.scores["x"] = 10        // modified
            profile.scores["y"] = nil       // deleted
            profile.scores["z"] = 3         // inserted
        }
        #expect(changes.count == 1)
        #expect(changes.last?.d == ["y"] && changes.last?.i == ["z"] && changes.last?.m == ["x"])
        try realm.write { profile.scores["x"] = 10 }   // same value: nothing
        #expect(changes.count == 1)
        var best: [[String]] = []
        let t2 = profile.best.observe(keyPaths: ["name"]) { change in
            if case .update(_, _, _, let m) = change { best.append(m) }
        }
        try realm.write { dogs[0].name = "A" }
        #expect(best == [["first"]])
        try realm.write { dogs[1].name = "B" }         // not in the map
        #expect(best == [["first"]])
        t1.invalidate()
        t2.invalidate()
    }

    @Test func setAndMapObservedOnAnotherQueueDeliverThere() throws {
        let realm = try Realm(configuration: tempConfig())
        let profile = try realm.write { realm.create(Profile.self, value: ["name": "p"]) }
        let queue = DispatchQueue(label: "set-map-delivery")
        let got = DispatchSemaphore(value: 0)
        let seen = Mutex<[String]>([])
        let t1 = profile.tags.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .update(let s, _, let i, _) = change { seen.withLock { $0.append("set \(Array(s)) +\(i)") } }
            got.signal()
        }
        let t2 = profile.scores.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .update(let m, _, let i, _) = change { seen.withLock { $0.append("map \(m.count) +\(i)") } }
            got.signal()
        }
        for _ in 0..<2 { #expect(got.wait(timeout: .now() + 30) == .success) }   // the two .initial
        try realm.write {
            profile.tags.insert("t")
            profile.scores["k"] = 1
        }
        for _ in 0..<2 { #expect(got.wait(timeout: .now() + 30) == .success) }
        #expect(seen.withLock { $0.sorted() } == ["map 1 +[\"k\"]", "set [\"t\"] +[0]"])
        t1.invalidate()
        t2.invalidate()
    }

    // MARK: - Key paths through to-many links

    @Test func resultsAndObjectKeyPathsGoThroughToManyLinks() throws {
        let realm = try Realm(configuration: tempConfig())
        let dogs = try addDogs(realm, ["a", "b", "c"])
        let ann = try makePerson(realm, "ann", dogs: [dogs[0], dogs[1]])
        _ = try makePerson(realm, "bob", dogs: [dogs[2]])
        let log = ChangeLog<Results<Person>>()
        let t1 = realm.objects(Person.self).observe(keyPaths: ["dogs.name"]) { log.record($0) }
        var props: [[String]] = []
        let t2 = ann.observe(keyPaths: ["dogs.name"]) { (change: ObjectChange<Person>) in
            if case .change(_, let p) = change { props.append(p.map(\.name)) }
        }
        try realm.write { dogs[1].name = "B" }         // a dog of ann renamed
        #expect(log.updates.last?.modifications == [0])
        #expect(props == [["dogs"]])
        try realm.write { dogs[1].age = 4 }            // not watched
        #expect(log.updates.count == 1 && props.count == 1)
        try realm.write { dogs[2].name = "C" }         // bob's dog: results index 1, not ann
        #expect(log.updates.last?.modifications == [1])
        #expect(props.count == 1)
        try realm.write { ann.dogs.remove(at: 0) }     // membership of the list changed
        #expect(log.updates.last?.modifications == [0])
        #expect(props == [["dogs"], ["dogs"]])
        t1.invalidate()
        t2.invalidate()
    }

    @Test func objectKeyPathsGoThroughToOneLinks() throws {
        let realm = try Realm(configuration: tempConfig())
        let dog = try addDogs(realm, ["rex"])[0]
        let owner = try makePerson(realm, "ann")
        try realm.write { dog.owner = owner }
        var props: [[String]] = []
        let token = dog.observe(keyPaths: ["owner.name"]) { (change: ObjectChange<Dog>) in
            if case .change(_, let p) = change { props.append(p.map(\.name)) }
        }
        try realm.write { owner.name = "Ann" }
        #expect(props == [["owner"]])
        try realm.write { owner.picture = Data([1]) }
        #expect(props.count == 1)
        token.invalidate()
    }
}
