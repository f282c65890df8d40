// An object of a class declared in RealmSwift's older style (`let books = List<Book>()`) read
// through another class, a `DynamicObject` view frozen or not, reads the stored object and
// nothing of the declared class's memory. Freezing such a view crashed the process: the frozen
// copy was bound as if it were an instance of the declared class.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class LegacyShelf: Object {
    @Persisted var name = ""
    let books = List<LegacyShelfBook>()
    let tags = MutableSet<String>()
    let rating = RealmProperty<Int?>()
}

final class LegacyShelfBook: Object {
    @Persisted var title = ""
}

@Suite("dynamic views of legacy declarations")
struct LegacyDynamicViewTests {
    @Test func aFrozenDynamicViewOfALegacyModelReadsTheStoredObject() async {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: memoryConfig())
            try realm.write {
                realm.create(LegacyShelf.self, value: ["name": "hall", "books": [["title": "Dune"]], "tags": ["old"], "rating": 4])
            }
            guard let view = realm.dynamicObjects("LegacyShelf").first else { exit(2) }
            let frozen = view.freeze()
            guard frozen.isFrozen, frozen["name"] as? String == "hall",
                  frozen.dynamicList("books").count == 1, frozen.dynamicList("books").first?.isFrozen == true,
                  frozen.dynamicMutableSet("tags").count == 1 else { exit(3) }
            guard let live = realm.objects(LegacyShelf.self).first,
                  live.books.first?.title == "Dune", live.rating.value == 4 else { exit(4) }
        }
    }
}
