// Autorefresh on the main run loop, as in RealmSwift: a realm of the main thread is advanced to
// other threads' commits when the main run loop turns, and its observers are told, without a
// `refresh()` call (seen in a child `strata-probe main-runloop`, whose main thread is its own). A
// realm of another thread advances only at `refresh()`.
import Foundation
import Testing
import Strata
import StrataTestSupport
import StrataCorpus

@Suite("Autorefresh on the main run loop")
struct MainRunLoopAutorefreshTests {
    private func probe(autorefresh: Bool) throws -> [String] {
        let path = CorpusFile.directory("main-runloop") + "/main.realm"
        let run = try ProbeRun.run(["main-runloop", path, "plain", autorefresh ? "on" : "off"], timeout: 60)
        #expect(run.exitStatus == 0, "\(run)")
        return run.lines
    }

    @Test func theMainThreadsRealmAndObserversSeeAnotherThreadsCommitWithoutRefresh() throws {
        #expect(try probe(autorefresh: true) == ["updates 1 didChange 1 refreshRequired 0 count 1"])
    }

    @Test func withAutorefreshOffTheMainThreadsRealmIsToldToRefresh() throws {
        #expect(try probe(autorefresh: false) == ["updates 0 didChange 0 refreshRequired 1 count 0", "after-refresh 1"])
    }

    @Test func aRealmOfAnotherThreadAdvancesOnlyAtRefresh() throws {
        let configuration = memoryConfig()
        try runOnNewThread {
            guard let realm = try? Realm(configuration: configuration) else { Issue.record("no realm"); return }
            var updates = 0
            let token = realm.objects(Dog.self).observe { change in
                if case .update = change { updates += 1 }
            }
            try? runOnNewThread {
                let other = try? Realm(configuration: configuration)
                _ = try? other?.write { other?.create(Dog.self, value: ["id": "cy", "name": "Cy"]) }
            }
            // This thread's run loop turns, and nothing arrives: only refresh() advances the realm.
            RunLoop.current.run(until: Date().addingTimeInterval(0.2))
            #expect(updates == 0)
            #expect(realm.objects(Dog.self).isEmpty)
            realm.refresh()
            #expect(updates == 1)
            #expect(realm.objects(Dog.self).count == 1)
            token.invalidate()
        }
    }
}
