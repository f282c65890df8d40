// An object observed through a base class (`ObjectChange<Object>`, as generic code observes)
// reports its changes as when observed as its own class: the delivered object is of its own
// class, and each changed property carries its old and new values. Before, the values were read
// from an instance of the base class, which has no properties, and came back nil.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class ObservedThermostat: Object {
    @Persisted var setting = 18
    @Persisted var room = ""
}

@Suite("Observing through a base class")
struct BaseClassObservationTests {
    @Test func valuesComeThroughABaseClassObserver() throws {
        var configuration = tempConfig("observe-base-class")
        configuration.objectTypes = [ObservedThermostat.self]
        let realm = try Realm(configuration: configuration)
        let thermostat = try realm.write { realm.create(ObservedThermostat.self, value: ["setting": 18, "room": "hall"]) }
        let base: Object = thermostat
        var seen: [(object: Object, name: String, old: Int?, new: Int?)] = []
        let token = base.observe { (change: ObjectChange<Object>) in
            if case .change(let object, let properties) = change {
                for p in properties { seen.append((object, p.name, p.oldValue as? Int, p.newValue as? Int)) }
            }
        }
        defer { token.invalidate() }
        try realm.write { thermostat.setting = 21 }
        #expect(seen.count == 1)
        #expect(seen.first?.name == "setting")
        #expect(seen.first?.old == 18)
        #expect(seen.first?.new == 21)
        #expect(seen.first?.object is ObservedThermostat)
        #expect((seen.first?.object as? ObservedThermostat)?.room == "hall")
    }
}
