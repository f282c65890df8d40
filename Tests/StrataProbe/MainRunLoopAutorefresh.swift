// `strata-probe main-runloop <path> plain on|off`: Realm's autorefresh on the main run loop, seen
// from the main thread of a process (a test runner's main thread runs no run loop of the test's).
// Opens the realm on the main thread and observes its markers and the realm itself; another
// thread adds one marker; the main thread runs its run loop (up to 10 s) until the observers hear
// of it, without calling refresh(). Prints
// "updates <u> didChange <d> refreshRequired <r> count <n>", n the markers seen before any
// refresh() call, then, with autorefresh off, "after-refresh <n>".
import Foundation
import Strata
import StrataCorpus

enum MainRunLoopAutorefresh {
    static func run(_ configuration: Realm.Configuration, autorefresh: Bool) throws -> [String] {
        guard Thread.isMainThread else { return ["error not on the main thread"] }
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = autorefresh
        let markers = realm.objects(CorpusMarker.self)
        let before = markers.count
        var updates = 0, didChange = 0, refreshRequired = 0
        let token = markers.observe { change in
            if case .update = change { updates += 1 }
        }
        let realmToken = realm.observe { notification, _ in
            switch notification {
            case .didChange: didChange += 1
            case .refreshRequired: refreshRequired += 1
            }
        }
        defer { token.invalidate(); realmToken.invalidate() }
        let writer = Thread {
            guard let other = try? Realm(configuration: configuration) else { return }
            _ = try? other.write { other.create(CorpusMarker.self, value: ["id": before + 1]) }
        }
        writer.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && updates == 0 && didChange == 0 && refreshRequired == 0 {
            RunLoop.main.run(until: Date().addingTimeInterval(0.01))
        }
        var lines = ["updates \(updates) didChange \(didChange) refreshRequired \(refreshRequired) count \(markers.count - before)"]
        if !autorefresh {
            realm.refresh()
            lines.append("after-refresh \(markers.count - before)")
        }
        return lines
    }
}
