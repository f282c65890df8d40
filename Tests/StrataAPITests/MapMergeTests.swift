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
