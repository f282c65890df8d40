// `strata-probe main-async-write <path> <plain|encrypted>`: asynchronous writes of a realm of the
// main thread, as RealmSwift runs them, from the main run loop. Begins one async write and
// cancels it before the run loop turns, begins a second, then turns the main run loop (up to
// 10 s) until the second one's commit is reported. Prints
// "in-write-after-begin <bool> cancelled-ran <bool> committed <n> completed <bool>".
import Foundation
import Strata
import StrataCorpus

enum MainThreadAsyncWrite {
    static func run(_ configuration: Realm.Configuration) throws -> [String] {
        guard Thread.isMainThread else { return ["error not on the main thread"] }
        let realm = try Realm(configuration: configuration)
        let before = realm.objects(CorpusMarker.self).count
        var cancelledRan = false
        let cancelled = realm.beginAsyncWrite { cancelledRan = true }
        try realm.cancelAsyncWrite(cancelled)
        var completed = false
        realm.beginAsyncWrite {
            realm.create(CorpusMarker.self, value: ["id": 1_000_000 + before])
            realm.commitAsyncWrite { error in completed = error == nil }
        }
        let inWriteAfterBegin = realm.isInWriteTransaction
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !completed {
            RunLoop.main.run(until: Date().addingTimeInterval(0.01))
        }
        return ["in-write-after-begin \(inWriteAfterBegin) cancelled-ran \(cancelledRan) committed \(realm.objects(CorpusMarker.self).count - before) completed \(completed)"]
    }
}
