// ObjectKeyIdentifiable gives model classes and projections an `id` that is the same for every
// instance of one stored object, so Realm models adopting it compile and identify as in RealmSwift.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class TodoItem: Object, ObjectKeyIdentifiable {
    @Persisted var title: String
}

final class TodoTitle: Projection<TodoItem>, ObjectKeyIdentifiable {
    @Projected(\TodoItem.title) var title
}

@Suite("ObjectKeyIdentifiable")
struct ObjectKeyIdentifiableTests {
    /// Identifiable's requirement, used generically as SwiftUI's `ForEach` uses it.
    static func ids<T: Identifiable>(_ items: [T]) -> [T.ID] { items.map(\.id) }

    @Test func everyInstanceOfOneStoredObjectHasItsId() throws {
        let realm = try Realm(configuration: memoryConfig())
        let (first, second) = try realm.write {
            (realm.create(TodoItem.self, value: ["title": "milk"]), realm.create(TodoItem.self, value: ["title": "eggs"]))
        }
        let again = try #require(realm.objects(TodoItem.self).first)
        #expect(again !== first && again.id == first.id)
        #expect(first.id != second.id)
        try realm.write { first.title = "oat milk" }
        #expect(first.id == again.id, "a change keeps the identity")
        #expect(Self.ids(Array(realm.objects(TodoItem.self))) == [first.id, second.id])
        let projected = try #require(realm.objects(TodoTitle.self).first)
        #expect(projected.id == first.id)
    }

    @Test func unmanagedInstancesAreDistinct() {
        let a = TodoItem(), b = TodoItem()
        #expect(a.id != b.id && a.id == a.id)
    }
}
