// `isPerformingAsynchronousWriteOperations` is true while an asynchronous write's block runs, as
// in RealmSwift, and false once the write is over. Before, it was false inside the block.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("isPerformingAsynchronousWriteOperations during the block")
struct AsyncWriteInProgressTests {
    @Test func trueInsideBeginAsyncWriteAndFalseAfter() throws {
        let realm = try Realm(configuration: memoryConfig())
        var inside = false
        realm.beginAsyncWrite {
            inside = realm.isPerformingAsynchronousWriteOperations
            realm.add(ToDoItem())
            realm.commitAsyncWrite()
        }
        #expect(inside)
        #expect(!realm.isPerformingAsynchronousWriteOperations)
    }

    @MainActor @Test func trueInsideAsyncWriteAndFalseAfter() async throws {
        let realm = try await Realm(configuration: tempConfig("in-progress", durability: .full), actor: MainActor.shared)
        let inside = try await realm.asyncWrite {
            realm.add(ToDoItem())
            return realm.isPerformingAsynchronousWriteOperations
        }
        #expect(inside)
        #expect(!realm.isPerformingAsynchronousWriteOperations)
        #expect(realm.objects(ToDoItem.self).count == 1)
    }

    @Test func falseForAPlainWrite() throws {
        let realm = try Realm(configuration: memoryConfig())
        var inside = true
        try realm.write { inside = realm.isPerformingAsynchronousWriteOperations }
        #expect(!inside)
    }
}
