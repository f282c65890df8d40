// Secondary indexes: maintained through every mutation path (compared with a scan after seeded
// random rounds), queries through an index return exactly what a scan returns, the index is
// really used (objects examined), and what stays a scan.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct IndexTests {
    /// Queries over IxItem run both ways after each round. `indexed`: the planner must use an index.
    static func itemQueries() -> [(query: String, args: [Any], indexed: Bool)] {
        var q: [(String, [Any], Bool)] = []
        for t in IxPools.tags { q.append(("tag == %@", [t], true)) }
        q += [
            ("tag IN %@", [["a", "é", "\u{212A}", IxPools.long + "2"]], true),
            ("optTag == nil", [], true),
            ("optTag == %@", ["e\u{301}"], true),
            ("optTag IN {nil, 'a'}", [], true),
            ("rank == 3", [], true),
            ("rank == -2", [], true),
            ("rank IN {1, 2, 5, 5}", [], true),
            ("optRank == nil", [], true),
            ("optRank == 1 AND tag != 'a'", [], true),
            ("flag == true AND rank == 2", [], true),
            ("flag == false", [], true),
            ("when == %@", [IxPools.dates[0]], true),
            ("when == %@", [IxPools.dates[2]], true),
            ("oid == %@", [IxPools.oids[1]], true),
            ("uid == %@", [IxPools.uuids[2]], true),
            ("color == 'green'", [], true),
            ("level == 2", [], true),
            ("small == -1", [], true),
            ("rank == 3 AND name BEGINSWITH 'n'", [], true),
            ("child.code == 2 AND rank == 1", [], true),
            // ranges of an indexed integer
            ("rank > 2", [], true),
            ("rank >= -1 AND rank < 3", [], true),
            ("2 < rank", [], true),
            ("rank BETWEEN {0, 2}", [], true),
            ("rank > 5 AND rank < 3", [], true),
            ("rank >= %@", [Int.max], true),
            ("rank <= %@", [Int.min], true),
            ("rank > %@", [Int.max], true),
            ("rank < %@", [Int.min], true),
            ("rank > 2 AND rank <= 2", [], true),
            ("rank > -1 AND 3 >= rank", [], true),
            ("optRank >= 1 AND optRank <= 1", [], true),
            ("rank > 1 AND name BEGINSWITH 'n'", [], true),
            ("optRank > 0", [], true),
            ("optRank <= 1 AND optRank != 0", [], true),
            ("small >= 0 AND small <= 1", [], true),
            ("level >= 2", [], true),
            // scans
            ("rank == 3 OR tag == 'a'", [], false),
            ("rank == 3.0", [], false),
            ("tag ==[c] 'A'", [], false),
            ("NOT (rank == 3)", [], false),
            ("rank > 2.5", [], false),
            ("plain > 1", [], false),
            ("rank > 2 OR rank < 0", [], false),
            ("plain == 1", [], false),
            ("ANY parts.code == 1", [], false),
        ]
        return q
    }

    /// Every query of `itemQueries` gives the same keys both ways; returns the total matched.
    @discardableResult
    static func compareQueries(_ realm: Realm, round: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var matched = 0
        for (query, args, indexed) in itemQueries() {
            let r = realm.keysBothWays { realm.objects(IxItem.self).filter(query, args) }
            #expect(r.index == r.scan, "round \(round): \(query) \(args)", sourceLocation: sourceLocation)
            #expect((r.plan != .scan) == indexed, "round \(round): \(query) planned \(r.plan)", sourceLocation: sourceLocation)
            matched += r.scan.count
        }
        let sorted = realm.keysBothWays { realm.objects(IxItem.self).filter("rank IN {0, 1}").sorted(byKeyPath: "tag", ascending: false) }
        #expect(sorted.index == sorted.scan, "round \(round): sorted", sourceLocation: sourceLocation)
        let typed = realm.keysBothWays { realm.objects(IxItem.self).where { $0.tag == "a" && $0.plain >= 1 } }
        #expect(typed.index == typed.scan && typed.plan != .scan, "round \(round): where {}", sourceLocation: sourceLocation)
        for (query, args) in [("id == 7", [Any]()), ("id IN {1, 3, 40, 3}", []), ("group == 2 AND id > 3", []), ("id == 7 AND group == 1", [])] {
            let r = realm.keysBothWays { realm.objects(IxKeyed.self).filter(query, args) }
            let exists = realm.core.snap.tableByName["IxKeyed"] != nil
            #expect(r.index == r.scan && (r.plan != .scan || !exists), "round \(round): IxKeyed \(query) planned \(r.plan)", sourceLocation: sourceLocation)
            matched += r.scan.count
        }
        for name in IxPools.names {
            let r = realm.keysBothWays { realm.objects(IxNamed.self).filter("id == %@", name) }
            let exists = realm.core.snap.tableByName["IxNamed"] != nil
            #expect(r.index == r.scan && (r.plan != .scan || !exists), "round \(round): IxNamed id == \(name.unicodeScalars.map(\.value))", sourceLocation: sourceLocation)
            matched += r.scan.count
        }
        return matched
    }

    /// One random mutation of the data set, through one of the public paths.
    static func mutate(_ realm: Realm, _ rng: inout SplitMix64) throws {
        let items = realm.objects(IxItem.self)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<25:
            realm.add(IxItem.random(&rng))
        case 25..<50:
            if !items.isEmpty { items[Int.random(in: 0..<items.count, using: &rng)].randomize(&rng) }
        case 50..<60:
            if !items.isEmpty { realm.delete(items[Int.random(in: 0..<items.count, using: &rng)]) }
        case 60..<65:
            // Replacing the embedded child deletes the old one (cascade).
            if !items.isEmpty {
                items[Int.random(in: 0..<items.count, using: &rng)].child = Bool.random(using: &rng) ? nil : IxPart(value: ["code": Int.random(in: 0..<4, using: &rng)])
            }
        case 65..<70:
            if !items.isEmpty {
                let o = items[Int.random(in: 0..<items.count, using: &rng)]
                if o.parts.isEmpty || Bool.random(using: &rng) {
                    o.parts.append(IxPart(value: ["code": Int.random(in: 0..<4, using: &rng)]))
                } else {
                    o.parts.remove(at: 0)
                }
            }
        case 70..<78:
            let o = IxKeyed(value: ["id": Int.random(in: 0..<40, using: &rng), "group": Int.random(in: 0..<4, using: &rng), "note": "v"])
            realm.add(o, update: Bool.random(using: &rng) ? .modified : .all)
        case 78..<84:
            realm.create(IxKeyed.self, value: ["id": Int.random(in: 0..<40, using: &rng), "group": Int.random(in: 0..<4, using: &rng)], update: .modified)
        case 84..<88:
            let keyed = realm.objects(IxKeyed.self)
            if !keyed.isEmpty {
                let o = keyed[Int.random(in: 0..<keyed.count, using: &rng)]
                if Bool.random(using: &rng) { o.group = Int.random(in: 0..<4, using: &rng) } else { realm.delete(o) }
            }
        case 88..<96:
            let id = IxPools.names.randomElement(using: &rng) ?? ""
            if let o = realm.object(ofType: IxNamed.self, forPrimaryKey: id) {
                if Bool.random(using: &rng) { realm.delete(o) } else { o.n += 1 }
            } else {
                realm.add(IxNamed(value: ["id": id, "n": 1]))
            }
        case 96..<98:
            realm.delete(Array(items.filter("rank == %@", Int.random(in: -3..<6, using: &rng))))
        default:
            if Int.random(in: 0..<4, using: &rng) == 0 { realm.deleteAll() }
        }
    }

    @Test func randomMutationsKeepIndexesEqualToTheScan() throws {
        let realm = try Realm(configuration: memoryConfig())
        var rng = SplitMix64(seed: 0x1DE7_5EED)
        var matched = 0
        for round in 0..<40 {
            realm.beginWrite()
            for _ in 0..<Int.random(in: 5..<30, using: &rng) { try Self.mutate(realm, &rng) }
            // Inside the write: indexes already reflect the uncommitted changes.
            #expect(realm.indexProblems() == [], "round \(round), uncommitted")
            if round % 8 == 7 {
                realm.cancelWrite()
            } else {
                try realm.commitWrite()
            }
            #expect(realm.indexProblems() == [], "round \(round)")
            matched += Self.compareQueries(realm, round: round)
        }
        #expect(matched > 500, "the queries matched \(matched) objects in all: the comparison is not vacuous")
        #expect(realm.objects(IxItem.self).count > 10)
    }

    @Test func theIndexIsUsed() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<1_000 {
                realm.add(IxItem(value: ["rank": i % 100, "tag": "t\(i % 50)", "plain": i % 100, "flag": i % 2 == 0]))
            }
            for i in 0..<200 { realm.add(IxKeyed(value: ["id": i, "group": i % 10])) }
            for i in 0..<200 { realm.add(IxNamed(value: ["id": "k\(i)", "n": i])) }
        }
        let items = realm.objects(IxItem.self)
        func examined(_ body: () -> Int) -> (count: Int, examined: Int, plan: QueryPlanKind) {
            let before = realm.core.indexing.rowsExamined
            let n = body()
            return (n, realm.core.indexing.rowsExamined - before, realm.core.indexing.lastPlan)
        }
        // An Int `==` alone is decided by the index: no object is read.
        var r = examined { items.filter("rank == 7").count }
        #expect(r.count == 10 && r.examined == 0 && r.plan == .index(property: "rank", values: 1))
        r = examined { items.filter("rank == 7 AND plain >= 0").count }
        #expect(r.count == 10 && r.examined == 10 && r.plan == .index(property: "rank", values: 1), "the rest is evaluated on the candidates only")
        // A predicate that is nothing but one indexed integer's range is decided by the index.
        r = examined { items.filter("rank >= 98").count }
        #expect(r.count == 20 && r.examined == 0 && r.plan == .indexRange(property: "rank"), "a range alone reads no object")
        r = examined { items.filter("rank > 97 AND rank < 99").count }
        #expect(r.count == 10 && r.examined == 0 && r.plan == .indexRange(property: "rank"), "strict bounds are exact over integers")
        r = examined { items.filter("96 < rank AND rank BETWEEN {0, 97}").count }
        #expect(r.count == 10 && r.examined == 0 && r.plan == .indexRange(property: "rank"))
        r = examined { items.filter("rank > %@", Int.max).count }
        #expect(r.count == 0 && r.examined == 0 && r.plan == .indexRange(property: "rank"))
        r = examined { items.filter("rank >= 98 AND plain >= 0").count }
        #expect(r.count == 20 && r.examined == 20 && r.plan == .indexRange(property: "rank"), "a range with another conjunct reads its candidates only")
        r = examined { items.filter("plain == 7").count }
        #expect(r.count == 10 && r.examined == 1_000 && r.plan == .scan)
        r = examined { items.filter("rank IN {1, 2, 3}").count }
        #expect(r.count == 30 && r.examined == 0 && r.plan == .index(property: "rank", values: 3))
        r = examined { items.filter("tag == 't3' AND rank == 3").count }
        #expect(r.count == 10 && r.examined == 20 && r.plan == .index(property: "tag", values: 1), "equal ranks: the first conjunct")
        r = examined { items.filter("flag == true AND tag == 't4'").count }
        #expect(r.count == 20 && r.examined == 20 && r.plan == .index(property: "tag", values: 1), "a Bool index comes last")
        r = examined { items.filter("tag ==[c] 'T3'").count }
        #expect(r.count == 20 && r.examined == 1_000 && r.plan == .scan, "[c] scans")
        r = examined { realm.objects(IxKeyed.self).filter("id IN {5, 6, 500}").count }
        #expect(r.count == 2 && r.examined == 0 && r.plan == .primaryKey(property: "id", values: 3))
        r = examined { realm.objects(IxKeyed.self).filter("id IN {5, 6, 500} AND group == 5").count }
        #expect(r.count == 1 && r.examined == 2 && r.plan == .primaryKey(property: "id", values: 3))
        r = examined { realm.objects(IxNamed.self).filter("id == 'k42'").count }
        #expect(r.count == 1 && r.examined == 1 && r.plan == .index(property: "id", values: 1), "String equality is re-checked")
        r = examined { items.where { $0.rank == 9 }.count }
        #expect(r.count == 10 && r.examined == 0 && r.plan == .index(property: "rank", values: 1))
        r = examined { items.filter("rank == 9").sorted(byKeyPath: "tag").count }
        #expect(r.count == 10 && r.examined == 0, "sorting reads the candidates, the predicate is not evaluated")
        realm.core.indexing.forceScan = true
        r = examined { items.filter("rank == 7").count }
        #expect(r.count == 10 && r.examined == 1_000 && r.plan == .scan)
        realm.core.indexing.forceScan = false
        // object(ofType:forPrimaryKey:) reads the primary-key tree: no object is examined.
        r = examined { realm.object(ofType: IxKeyed.self, forPrimaryKey: 77)?.group ?? -1 }
        #expect(r.count == 7 && r.examined == 0)
        #expect(realm.object(ofType: IxNamed.self, forPrimaryKey: "k199")?.n == 199)
        #expect(realm.object(ofType: IxNamed.self, forPrimaryKey: "k200") == nil)
    }

    /// An index entry whose object does not exist (damage only wrong maintenance code could
    /// leave: pages are checked before they are read). Neither results nor their count take it,
    /// so the two agree (a count above the objects handed out breaks the collection: `Array`
    /// traps), and the file's verification names it.
    @Test func anEntryWithoutItsObjectIsNeitherCountedNorMaterialised() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<40 { realm.add(IxItem(value: ["rank": i % 4, "name": "o\(i)"])) }
            // The entries of an object that was never added, made from a rank-2 object's row.
            let source = try #require(realm.objects(IxItem.self).filter("rank == 2").first)
            try realm.addIndexEntries(forKey: 1_000_000, copying: try realm.row(of: source))
        }
        let twos = realm.objects(IxItem.self).filter("rank == 2")
        #expect(twos.count == 10, "an exact plan's count")
        #expect(Array(twos).count == 10, "the missing object is not handed out")
        #expect(realm.objects(IxItem.self).filter("rank >= 2 AND rank <= 2").count == 10, "an exact range's count")
        #expect(twos.map(\.name).allSatisfy { $0.hasPrefix("o") })
        #expect(realm.objects(IxItem.self).filter("rank >= 2 AND rank <= 2").map(\.name).count == 10)
        #expect(realm.objects(IxItem.self).filter("rank == 2 AND name != ''").count == 10, "an inexact plan reads its candidates")
        // The row was copied into every index of the class: each now names the missing object.
        #expect(realm.indexProblems().contains { $0.hasPrefix("IxItem.rank:") && $0.contains("0 missing, 1 extra") },
                "verification reports the entry: \(realm.indexProblems())")
    }

    /// The existence check answers from the table's unbroken run of keys when it has one
    /// (Core/ObjectKeySpans.swift). A deletion in the middle breaks the run, and a run read
    /// before a change is never used after it: within a write, after a commit, in a frozen copy.
    @Test func anEntryWithoutItsObjectIsSkippedWhateverTheTableKeys() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<40 { realm.add(IxItem(value: ["rank": i % 4, "name": "o\(i)"])) }
        }
        /// The rank-2 results' count, their keys (no property is read: a phantom would stop the
        /// process), the count of the same range, and the keys a scan finds.
        func twos() -> (count: Int, keys: [UInt64], range: Int, scan: [UInt64]) {
            let both = realm.keysBothWays { realm.objects(IxItem.self).filter("rank == 2") }
            return (realm.objects(IxItem.self).filter("rank == 2").count, both.index,
                    realm.objects(IxItem.self).filter("rank BETWEEN {2, 2}").count, both.scan)
        }
        /// Deletes the object named `name` and leaves its index entries behind.
        func deleteLeavingItsEntry(_ name: String) throws {
            let object = try #require(realm.objects(IxItem.self).filter("name == %@", name).first)
            let key = try #require(object._binding?.key)
            let row = try realm.row(of: object)
            realm.delete(object)
            try realm.addIndexEntries(forKey: key, copying: row)
        }
        func expectScan(_ r: (count: Int, keys: [UInt64], range: Int, scan: [UInt64]), _ n: Int, _ comment: Comment) {
            #expect(r.scan.count == n && r.keys == r.scan && r.count == n && r.range == n, comment)
        }
        expectScan(twos(), 10, "keys 1 to 40: one unbroken run")
        try realm.write {
            expectScan(twos(), 10, "in a write, before the deletion")
            try deleteLeavingItsEntry("o10")
            expectScan(twos(), 9, "in the same write: the run read before the deletion is not used")
        }
        expectScan(twos(), 9, "after the commit: the run has a gap, so each key is looked up")
        try realm.write {
            for i in 0...9 where i != 6 { realm.delete(realm.objects(IxItem.self).filter("name == %@", "o\(i)").first!) }
            try deleteLeavingItsEntry("o6")
        }
        expectScan(twos(), 7, "keys 12 to 40: one run again, and both stale entries lie before it")
        let frozen = realm.freeze()
        #expect(frozen.objects(IxItem.self).filter("rank == 2").count == 7, "a frozen core keeps no run")
        #expect(realm.indexProblems().contains { $0.hasPrefix("IxItem.rank:") && $0.contains("0 missing, 2 extra") },
                "\(realm.indexProblems())")
    }

    @Test func indexedQueriesSeeUncommittedChangesAndKeepKeyOrder() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<30 { realm.add(IxItem(value: ["rank": i % 3, "name": "o\(i)"])) }
        }
        realm.beginWrite()
        let all = realm.objects(IxItem.self)
        all[4].rank = 2
        all[5].rank = 7
        realm.delete(all[6])
        realm.add(IxItem(value: ["rank": 2, "name": "new"]))
        let twos = realm.keysBothWays { realm.objects(IxItem.self).filter("rank == 2") }
        #expect(twos.index == twos.scan && twos.plan == .index(property: "rank", values: 1))
        #expect(twos.index == twos.index.sorted(), "key order, as a scan")
        #expect(realm.objects(IxItem.self).filter("rank == 2").map(\.name).contains("new"))
        #expect(realm.objects(IxItem.self).filter("rank == 7").map(\.name) == ["o5"])
        #expect(realm.indexProblems() == [])
        realm.cancelWrite()
        #expect(realm.objects(IxItem.self).filter("rank == 7").isEmpty)
        #expect(realm.indexProblems() == [])
    }

    @Test func equivalentStringsAndLongStrings() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for t in IxPools.tags { realm.add(IxItem(value: ["tag": t])) }
        }
        #expect(realm.objects(IxItem.self).filter("tag == %@", "é").count == 2, "precomposed and decomposed are equal strings")
        #expect(realm.objects(IxItem.self).filter("tag == 'K'").count == 2, "K and the Kelvin sign are canonically equivalent")
        #expect(realm.objects(IxItem.self).filter("tag == %@", IxPools.long + "1").count == 1, "long strings share a key; the predicate decides")
        #expect(realm.objects(IxItem.self).filter("tag == 'nul'").count == 1)
        #expect(realm.objects(IxItem.self).filter("tag == %@", "nul\u{0}byte").count == 1)
        #expect(realm.indexProblems() == [])
    }

    @Test func reopeningKeepsTheIndexes() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<100 { realm.add(IxItem(value: ["rank": i % 10, "tag": "t\(i % 7)"])) }
                for i in 0..<20 { realm.add(IxKeyed(value: ["id": i, "group": i % 4])) }
            }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.indexProblems() == [])
        #expect(realm.core.snap.metas.allSatisfy { !$0.indexesChecked }, "a fresh open has not written")
        let before = realm.core.indexing.rowsExamined
        #expect(realm.objects(IxItem.self).filter("rank == 4").count == 10)
        #expect(realm.core.indexing.lastPlan == .index(property: "rank", values: 1), "the stored index is used after reopening")
        #expect(realm.objects(IxItem.self).filter("tag == 't3'").count == 14)
        #expect(realm.core.indexing.rowsExamined - before == 14, "only the String index's candidates are read")
        #expect(realm.objects(IxKeyed.self).filter("group == 1").count == 5)
        try realm.write { realm.objects(IxItem.self)[0].rank = 4 }
        #expect(realm.objects(IxItem.self).filter("rank == 4").count == 11)
        #expect(realm.indexProblems() == [])
    }

    @Test func frozenResultsUseTheIndex() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<40 { realm.add(IxItem(value: ["rank": i % 4])) }
        }
        let frozen = realm.objects(IxItem.self).filter("rank == 1").freeze()
        try realm.write { realm.objects(IxItem.self).filter("rank == 1").first?.rank = 9 }
        #expect(frozen.count == 10)
        #expect(realm.objects(IxItem.self).filter("rank == 1").count == 9)
    }
}
