// A `beginAsyncWrite` block that returns without committing or cancelling has its write cancelled,
// as RealmSwift does. Before, the write stayed open: its changes joined the next write that
// committed, and the next asynchronous write could not begin.
import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("an async write block that does not commit")
struct AsyncWriteWithoutCommitTests {
    @Test func itsChangesAreDiscarded() throws {
        let realm = try Realm(configuration: memoryConfig())
        realm.beginAsyncWrite {
            realm.add(ToDoItem())
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(ToDoItem.self).isEmpty)
    }

    @Test func theNextWritesCommitOnlyTheirOwnChanges() throws {
        let realm = try Realm(configuration: memoryConfig())
        realm.beginAsyncWrite {
            realm.add(ToDoItem(value: ["text": "dropped"]))
        }
        realm.beginAsyncWrite {
            realm.add(ToDoItem(value: ["text": "async"]))
            realm.commitAsyncWrite()
        }
        try realm.write { realm.add(ToDoItem(value: ["text": "sync"])) }
        #expect(Set(realm.objects(ToDoItem.self).map(\.text)) == ["async", "sync"])
    }

    @Test func onAQueueTheWriteIsCancelledToo() throws {
        let queue = DispatchQueue(label: "async-without-commit")
        let texts = LockedBox<[String]>([])
        let inWrite = LockedBox(true)
        // A file, not an in-memory realm: the second block opens the realm again, and an
        // in-memory realm is gone once the first instance is.
        let configuration = tempConfig("async-without-commit")
        let failure = FailureBox()
        queue.sync {
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                realm.beginAsyncWrite { realm.add(ToDoItem(value: ["text": "dropped"])) }
                realm.writeAsync({ realm.add(ToDoItem(value: ["text": "kept"])) })
            } catch {
                failure.set("\(error)")
            }
        }
        queue.sync {
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                inWrite.set(realm.isInWriteTransaction)
                texts.set(realm.objects(ToDoItem.self).map(\.text))
            } catch {
                failure.set("\(error)")
            }
        }
        #expect(failure.value == nil)
        #expect(!inWrite.get())
        #expect(texts.get() == ["kept"])
    }
}
