// `SortDescriptor` as RealmSwift has it: from a key path or a string literal, reversed, described.
import Foundation
import Strata
import Testing

final class Runner: Object {
    @Persisted var name = ""
    @Persisted var time = 0.0
}

@Suite("SortDescriptor")
struct SortDescriptorTests {
    @Test func reversedFlipsOnlyTheDirection() {
        let byTime = SortDescriptor(keyPath: "time")
        #expect(byTime.reversed() == SortDescriptor(keyPath: "time", ascending: false))
        #expect(byTime.reversed().reversed() == byTime)
    }

    @Test func aKeyPathNamesItsProperty() {
        #expect(SortDescriptor(keyPath: \Runner.time, ascending: false) == SortDescriptor(keyPath: "time", ascending: false))
    }

    @Test func theDescriptionNamesKeyAndDirection() {
        #expect("\(SortDescriptor(keyPath: "name"))" == "SortDescriptor(keyPath: name, direction: ascending)")
        #expect("\(SortDescriptor(keyPath: "time", ascending: false))" == "SortDescriptor(keyPath: time, direction: descending)")
    }

    @Test func resultsSortByAKeyPathDescriptor() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Runner.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for (name, time) in [("b", 12.5), ("a", 11.0), ("c", 13.0)] {
                realm.add(Runner(value: ["name": name, "time": time]))
            }
        }
        let fastestLast = realm.objects(Runner.self).sorted(by: [SortDescriptor(keyPath: \Runner.time).reversed()])
        #expect(fastestLast.map(\.name) == ["c", "b", "a"])
        #expect(realm.objects(Runner.self).sorted(by: ["name"]).map(\.name) == ["a", "b", "c"])
    }

    @Test func aStringLiteralIsAnAscendingKey() {
        let byName: Strata.SortDescriptor = "name"
        #expect(byName == SortDescriptor(keyPath: "name", ascending: true))
        let keys: [Strata.SortDescriptor] = ["owner.name", "time"]
        #expect(keys.map(\.keyPath) == ["owner.name", "time"])
        #expect(keys.map(\.ascending) == [true, true])
    }
}
