// `Map.merge` and `Map.asKeyValueSequence()`, on unmanaged and managed maps.
import Foundation
import Strata
import Testing

final class Scoreboard: Object {
    @Persisted var scores: Map<String, Int>
}

@Suite("Map merge and key-value sequence")
struct MapMergeTests {
    @Test func mergingASequenceKeepsWhatCombineChooses() {
        let scores = Map<String, Int>()
        scores["ann"] = 3
        scores.merge([(key: "ann", value: 5), (key: "bob", value: 1), (key: "bob", value: 4)]) { max($0, $1) }
        #expect(scores["ann"] == 5)
        #expect(scores["bob"] == 4)
        #expect(scores.count == 2)
    }

    @Test func anErrorFromCombineStopsTheMergeAndReachesTheCaller() {
        struct Conflict: Error {}
        let scores = Map<String, Int>()
        scores["ann"] = 3
        #expect(throws: Conflict.self) {
            try scores.merge([(key: "cid", value: 2), (key: "ann", value: 9)]) { _, _ in throw Conflict() }
        }
        #expect(scores["ann"] == 3)
        #expect(scores["cid"] == 2)
    }

    @Test func mergingAManagedMapWritesTheRealm() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Scoreboard.self]
        let realm = try Realm(configuration: configuration)
        let board = Scoreboard()
        board.scores["ann"] = 10
        try realm.write { realm.add(board) }

        let incoming = Map<String, Int>()
        incoming["ann"] = 5
        incoming["dee"] = 7
        try realm.write { board.scores.merge(incoming) { $0 + $1 } }

        let stored = try onAnotherThread { [configuration] () -> [String] in
            let other = try Realm(configuration: configuration)
            let scores = try #require(other.objects(Scoreboard.self).first).scores
            return scores.asKeyValueSequence().map { "\($0.key)=\($0.value)" }
        }
        #expect(stored == ["ann=15", "dee=7"])
        let pairs = Dictionary(uniqueKeysWithValues: board.scores.asKeyValueSequence().map { ($0.key, $0.value) })
        #expect(pairs == ["ann": 15, "dee": 7])
    }
}

final class KennelBoard: Object {
    @Persisted var rivals: Map<String, SortedCollar?>
    @Persisted var ages: Map<String, Int?>
}

@Suite("A map given for a map of another value type")
struct MapConversionTests {
    @Test func aMapOfObjectsFillsAMapOfOptionalObjects() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [KennelBoard.self, SortedCollar.self, SortedHound.self]
        let realm = try Realm(configuration: configuration)
        let collars = Map<String, SortedCollar>()
        collars["red"] = SortedCollar(value: ["tag": "r"])
        let ages = Map<String, Int>()
        ages["rex"] = 4
        let board = try realm.write { realm.create(KennelBoard.self, value: ["rivals": collars, "ages": ages]) }
        #expect(board.rivals.count == 1)
        #expect(board.rivals["red"]??.tag == "r")
        #expect(board.ages["rex"] == .some(4))
    }

    @Test func aMapWhoseValuesDoNotFitIsATypedErrorAndNothingIsWritten() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [KennelBoard.self, SortedCollar.self, SortedHound.self]
        let realm = try Realm(configuration: configuration)
        let words = Map<String, String>()
        words["rex"] = "four"
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(KennelBoard.self, value: ["ages": words]) }
        }
        #expect(realm.objects(KennelBoard.self).isEmpty)
    }
}
