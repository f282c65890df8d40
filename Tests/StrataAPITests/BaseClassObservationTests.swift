// An object observed through a base class (`ObjectChange<Object>`, as generic code observes)
// reports its changes as when observed as its own class: the delivered object is of its own
// class, and each changed property carries its new value and, for another thread's commit, its
// old value. Before, the values were read from an instance of the base class, which has no
// properties, and came back nil.
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
        let configuration = {
            var configuration = tempConfig("observe-base-class")
            configuration.objectTypes = [ObservedThermostat.self]
            return configuration
        }()
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
        // A commit of another thread: the change carries the old value, as in Realm.
        try onAnotherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.objects(ObservedThermostat.self).first?.setting = 21 }
        }
        realm.refresh()
        #expect(seen.count == 1)
        #expect(seen.first?.name == "setting")
        #expect(seen.first?.old == 18)
        #expect(seen.first?.new == 21)
        #expect(seen.first?.object is ObservedThermostat)
        #expect((seen.first?.object as? ObservedThermostat)?.room == "hall")
        // A commit through the observing realm itself: no old value, as in Realm.
        try realm.write { thermostat.setting = 22 }
        #expect(seen.count == 2)
        #expect(seen.last?.old == nil && seen.last?.new == 22)
    }
}
