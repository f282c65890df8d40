// A primary-key lookup of an Int key first tries the object key that a confirmed offset names
// (Core/PrimaryKeyGuesses.swift). These tests hold every lookup to one rule: it returns the object
// whose primary key is the one asked for, or nil when there is none, whatever the offsets of the
// objects around it. Each scenario sets up a confirmed offset and then moves objects off it.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

// The models are PrimaryKeyOrderTests' (an Int and an optional Int primary key, and a label).
@Suite struct PrimaryKeyGuessTests {
    static func configuration(_ name: String) -> Realm.Configuration {
        var config = tempConfig(name)
        config.objectTypes = [KeyOrderItem.self, OptionalKeyOrderItem.self, Dog.self]
        return config
    }

    /// What a store holds: id → label, kept beside the realm by every change the tests make.
    struct Expected {
        var labels: [Int: String] = [:]

        mutating func add(_ ids: some Sequence<Int>, to realm: Realm, tag: String = "") {
            for id in ids {
                realm.add(KeyOrderItem(value: ["id": id, "label": "\(tag)\(id)"]))
                labels[id] = "\(tag)\(id)"
            }
        }

        mutating func delete(_ ids: some Sequence<Int>, from realm: Realm) {
            for id in ids {
                if let object = realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id) { realm.delete(object) }
                labels[id] = nil
            }
        }

        /// Every id it holds, each neighbour of one, and the extremes: found exactly when held.
        func expectLookups(in realm: Realm, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
            var probes = Set(labels.keys)
            for id in labels.keys { probes.insert(id &- 1); probes.insert(id &+ 1) }
            probes.formUnion([0, -1, Int.min, Int.max, Int.min + 1, Int.max - 1])
            // Twice over, in a shuffled order: the first pass confirms offsets, the second uses them.
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<2 {
                for id in probes.shuffled(using: &generator) {
                    let found = realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)
                    #expect(found?.label == labels[id], "\(note): id \(id)", sourceLocation: sourceLocation)
                    if let found { #expect(found.id == id, "\(note): id \(id)", sourceLocation: sourceLocation) }
                }
            }
        }
    }

    /// The offset of ids 1...20 is confirmed; then id 500 takes the object key that id 21 would
    /// have had. Looking up 21 reads that row, which holds 500: the answer must stay nil.
    @Test func aGuessedRowHoldingAnotherKeyIsNotTaken() throws {
        let realm = try Realm(configuration: Self.configuration("pk-guess-other"))
        var expected = Expected()
        try realm.write { expected.add(1...20, to: realm) }
        for id in [3, 9, 14] { #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)?.label == "\(id)") }
        try realm.write { expected.add([500], to: realm) }
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 21) == nil)
        #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 500)?.label == "500")
        // And the same inside a write, over rows it has not committed.
        try realm.write {
            expected.add([501], to: realm)
            #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 22) == nil)
            #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: 501)?.label == "501")
        }
        expected.expectLookups(in: realm, "after 500 and 501")
    }

    /// Deleted ids, ids added again under new object keys, descending and extreme ids.
    @Test func everyLookupFindsTheObjectWithThatKeyOrNothing() throws {
        let realm = try Realm(configuration: Self.configuration("pk-guess-moves"))
        var expected = Expected()
        try realm.write { expected.add(1...300, to: realm) }
        expected.expectLookups(in: realm, "ascending ids")

        try realm.write { expected.delete(100...140, from: realm) }
        expected.expectLookups(in: realm, "a gap")

        try realm.write { expected.add(stride(from: 140, through: 100, by: -1), to: realm, tag: "again") }
        expected.expectLookups(in: realm, "the gap filled again, in descending order")

        try realm.write { expected.add([Int.max, Int.min, -7, 0], to: realm, tag: "edge") }
        expected.expectLookups(in: realm, "extreme ids")

        try realm.write { expected.add((1...200).map { 10_000 - 3 * $0 }, to: realm, tag: "step") }
        expected.expectLookups(in: realm, "ids three apart, descending")

        // Inside a write: uncommitted adds and deletes, then the write cancelled.
        realm.beginWrite()
        var inWrite = expected
        inWrite.delete(1...50, from: realm)
        inWrite.add(301...350, to: realm, tag: "uncommitted")
        inWrite.expectLookups(in: realm, "inside a write")
        realm.cancelWrite()
        expected.expectLookups(in: realm, "after the write was cancelled")

        // A frozen copy answers from its own version while the live realm moves on.
        let frozen = realm.freeze()
        try realm.write { expected.delete(1...300, from: realm) }
        expected.expectLookups(in: realm, "after deleting 1...300")
        for id in [1, 150, 300] { #expect(frozen.object(ofType: KeyOrderItem.self, forPrimaryKey: id) != nil) }
    }

    /// Another realm commits objects that take the keys the first realm's offset names; the first
    /// realm, refreshed, must see them under their own ids only.
    @Test func commitsFromAnotherRealmMoveTheRows() throws {
        let config = Self.configuration("pk-guess-other-realm")
        let reader = try Realm(configuration: config)
        var expected = Expected()
        try reader.write { expected.add(1...50, to: reader) }
        expected.expectLookups(in: reader, "before")
        try DispatchQueue(label: "writer").sync {
            let writer = try Realm(configuration: config)
            try writer.write {
                expected.delete(10...20, from: writer)
                expected.add([9_000, 9_001, 9_002], to: writer)
            }
        }
        reader.refresh()
        expected.expectLookups(in: reader, "after another realm's commit")
    }

    /// An optional Int primary key: nil is looked up through the tree, Ints through a guess. The
    /// nil object comes first, so the offset of 1...30 names it for 0, and its slot reads 0.
    @Test func anOptionalIntKeyIsCheckedForNil() throws {
        let realm = try Realm(configuration: Self.configuration("pk-guess-optional"))
        try realm.write {
            realm.add(OptionalKeyOrderItem(value: ["id": NSNull(), "label": "nil"]))
            for id in 1...30 { realm.add(OptionalKeyOrderItem(value: ["id": id, "label": "o\(id)"])) }
        }
        for _ in 0..<2 {
            for id in 1...30 { #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: id)?.label == "o\(id)") }
            #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: 0) == nil)
            #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: 31) == nil)
            #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: Int?.none)?.label == "nil")
        }
        try realm.write { realm.add(OptionalKeyOrderItem(value: ["id": 0, "label": "zero"])) }
        #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: 0)?.label == "zero")
        #expect(realm.object(ofType: OptionalKeyOrderItem.self, forPrimaryKey: Int?.none)?.label == "nil")
    }

    /// A format-3 file stores Int primary keys little-endian; the guess reads them that way.
    @Test func aThirdFormatFileIsGuessedFromItsOwnEncoding() throws {
        let config = Self.configuration("pk-guess-third")
        let path = try PrimaryKeyOrderTests.makeThirdFormatFile(config)
        let realm = try Realm(configuration: config)
        var expected = Expected()
        try realm.write { expected.add(-40...40, to: realm) }
        try realm.write { expected.delete([-3, 0, 7], from: realm) }
        try realm.write { expected.add([1_000, 1_001], to: realm) }
        expected.expectLookups(in: realm, "format 3")
        #expect(try ObjectFormatTests.marker(path) == ObjectFormatTests.thirdFormatMarker)
    }

    /// Seeded random histories: runs of ascending ids (what confirms an offset), scattered ids,
    /// deletions, ids added again, upserts, writes cancelled, and lookups after every step, hits
    /// and misses, typed and dynamic.
    @Test(arguments: 1...6) func randomHistoriesAnswerLikeTheModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let realm = try Realm(configuration: Self.configuration("pk-guess-random-\(seed)"))
        var expected = Expected()
        var next = Int.random(in: -1_000...1_000, using: &random)
        for step in 0..<40 {
            let held = Array(expected.labels.keys)
            let cancel = Int.random(in: 0..<8, using: &random) == 0
            realm.beginWrite()
            var changed = expected
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let n = Int.random(in: 1...40, using: &random)
                changed.add((next..<(next + n)).filter { changed.labels[$0] == nil }, to: realm, tag: "s\(step)-")
                next += n + (Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 1...50, using: &random) : 0)
            case 2:
                let ids = (0..<Int.random(in: 1...10, using: &random)).map { _ in Int.random(in: -5_000...5_000, using: &random) }
                changed.add(Set(ids).filter { changed.labels[$0] == nil }, to: realm, tag: "r\(step)-")
            case 3:
                changed.delete(held.shuffled(using: &random).prefix(Int.random(in: 1...15, using: &random)), from: realm)
            case 4:
                // Upserts: `create(update:)` finds the existing object by its key.
                var ids = Array(held.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random)))
                ids.append(next + Int.random(in: 0...3, using: &random))
                for id in Set(ids) {
                    realm.create(KeyOrderItem.self, value: ["id": id, "label": "u\(step)-\(id)"], update: .modified)
                    changed.labels[id] = "u\(step)-\(id)"
                }
            default:
                let again = Array(held.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random)))
                changed.delete(again, from: realm)
                changed.add(again, to: realm, tag: "a\(step)-")
            }
            if cancel {
                realm.cancelWrite()
            } else {
                try realm.commitWrite()
                expected = changed
            }
            var probes = Array(expected.labels.keys.shuffled(using: &random).prefix(30))
            probes += (0..<10).map { _ in Int.random(in: (next - 100)...(next + 100), using: &random) }
            for _ in 0..<2 {
                for id in probes {
                    #expect(realm.object(ofType: KeyOrderItem.self, forPrimaryKey: id)?.label == expected.labels[id],
                            "seed \(seed) step \(step): id \(id)")
                    #expect(realm.dynamicObject(ofType: "KeyOrderItem", forPrimaryKey: id)?["label"] as? String == expected.labels[id],
                            "seed \(seed) step \(step): id \(id), dynamic")
                }
            }
        }
        expected.expectLookups(in: realm, "seed \(seed), at the end")
    }

    // MARK: - The offsets themselves

    @Test func anOffsetIsUsedOnlyOnceTwoTreeLookupsAgreeAndUntilAGuessMisses() {
        var guesses = PrimaryKeyGuesses()
        #expect(guesses.guess(table: 0, value: 5) == nil)
        guesses.learn(table: 2, value: 5, key: 105)
        #expect(guesses.guess(table: 2, value: 6) == nil, "one tree lookup does not confirm")
        guesses.learn(table: 2, value: 9, key: 109)
        #expect(guesses.guess(table: 2, value: 6) == 106)
        #expect(guesses.guess(table: 1, value: 6) == nil, "per table")
        #expect(guesses.guess(table: 2, value: -100) == 0)
        #expect(guesses.guess(table: 2, value: Int64.max) == UInt64(bitPattern: Int64.max) &+ 100, "wraps, never traps")
        guesses.missed(table: 2)
        #expect(guesses.guess(table: 2, value: 6) == nil)
        guesses.learn(table: 2, value: 7, key: 300)
        #expect(guesses.guess(table: 2, value: 6) == nil, "a new offset is not confirmed")
        guesses.learn(table: 2, value: 8, key: 301)
        #expect(guesses.guess(table: 2, value: 6) == 299)
        guesses.missed(table: 9)
        guesses.learn(table: -1, value: 1, key: 1)
        #expect(guesses.guess(table: -1, value: 1) == nil)
    }

    @Test func theIntOfATreeKeyIsReadInEitherEncoding() {
        for id: Int64 in [0, 1, -1, 42, -42, 256, .min, .max, Int64(Int32.min)] {
            for encoding in [PrimaryKeyEncoding.ordered, .littleEndian] {
                let key = IndexKeys.primaryKeyTreeKey(.int(id), type: .int, encoding: encoding) ?? []
                #expect(key.withUnsafeBytes { PrimaryKeyGuesses.intValue(ofTreeKey: $0, encoding: encoding) } == id)
            }
        }
        let null: [UInt8] = [0]
        #expect(null.withUnsafeBytes { PrimaryKeyGuesses.intValue(ofTreeKey: $0, encoding: .ordered) } == nil)
        let string: [UInt8] = [1] + Array("abcdefgh".utf8)
        #expect(string.prefix(8).withUnsafeBytes { PrimaryKeyGuesses.intValue(ofTreeKey: $0, encoding: .ordered) } == nil)
    }
}
