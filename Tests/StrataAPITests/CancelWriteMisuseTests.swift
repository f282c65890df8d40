// `cancelWrite()` with no write transaction open, or from a thread the realm is not confined to,
// stops with a `Strata:` message, as RealmSwift raises. Before, it did nothing, so a caller who
// believed a write was open went on as if its changes were discarded.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("cancelWrite misuse")
struct CancelWriteMisuseTests {
    @Test func cancellingWithoutAWriteStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: memoryConfig())
            try realm.write { realm.add(ToDoItem()) }
            realm.cancelWrite()
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Strata: notInWriteTransaction: cancelWrite() needs an open write transaction"))
    }

    @Test func cancellingFromAnotherThreadStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: memoryConfig())
            realm.beginWrite()
            let box = LockedBox<Realm?>(realm)
            try runOnNewThread { box.get()?.cancelWrite() }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Strata: wrongThread:"))
    }

    @Test func cancellingAnOpenWriteDiscardsIt() throws {
        let realm = try Realm(configuration: memoryConfig())
        realm.beginWrite()
        realm.add(ToDoItem())
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(ToDoItem.self).isEmpty)
    }
}
