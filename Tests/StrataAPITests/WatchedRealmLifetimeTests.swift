// A realm whose observers hear other threads' commits without `refresh()` (one confined to a
// queue, an actor or the main thread) is watched for new versions. The watch must not keep the
// file open once the last instance is gone: an in-memory realm would keep its objects for the next
// open (RealmSwift's is empty again), and `deleteFiles` would find the file in use.
import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

final class WatchedNote: Object {
    @Persisted var text = ""
}

@Suite("a watched realm closes with its last instance")
struct WatchedRealmLifetimeTests {
    /// Opens `configuration` on a queue, adds a note, observes the notes (which starts the watch)
    /// until the first notification, and lets every instance go.
    static func observeOnAQueue(_ configuration: Realm.Configuration) throws {
        let queue = DispatchQueue(label: "watched-lifetime")
        let delivered = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let token = LockedBox<NotificationToken?>(nil)
        queue.sync {
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                try realm.write { realm.add(WatchedNote(value: ["text": "kept?"])) }
                token.set(realm.objects(WatchedNote.self).observe { _ in delivered.signal() })
            } catch {
                failure.set("\(error)")
            }
        }
        #expect(delivered.wait(timeout: .now() + 10) == .success, "the initial notification arrived")
        queue.sync { token.get()?.invalidate(); token.set(nil) }
        // The token's hold on the realm is let go on the realm's queue: wait for that too.
        queue.sync {}
        #expect(failure.value == nil)
    }

    @Test func anInMemoryRealmIsEmptyAgainOnceItsInstancesAreGone() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: "watched-lifetime-\(UUID())")
        configuration.objectTypes = [WatchedNote.self]
        try Self.observeOnAQueue(configuration)
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(WatchedNote.self).isEmpty)
    }

    @Test func theFilesCanBeDeletedOnceItsInstancesAreGone() throws {
        var configuration = tempConfig("watched-lifetime-file")
        configuration.objectTypes = [WatchedNote.self]
        try Self.observeOnAQueue(configuration)
        #expect(try Realm.deleteFiles(for: configuration))
    }
}
