// Properties declared without an initial value start as RealmSwift's do (a new ObjectId and a
// random UUID for each object; a Date at the reference date, where RealmSwift reads the clock), and `init(value:)` never drops a value that does
// not fit: it stops, as RealmSwift raises, and ignores only keys that name no property.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Stamped: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var created: Date
    @Persisted var token: UUID
    @Persisted var maybe: Date?
    @Persisted var count = 0
}

@Suite("Declaration defaults and init(value:)")
struct DeclarationDefaultTests {
    @Test func eachObjectGetsANewIdDateAndUUID() throws {
        let a = Stamped(), b = Stamped()
        #expect(a.id != b.id && a.id != ObjectId())
        #expect(a.token != b.token)
        #expect(a.created == Date(timeIntervalSinceReferenceDate: 0))
        #expect(a.maybe == nil)
        // So objects with an ObjectId primary key declared without a value can be added at once.
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add([a, b]) }
        #expect(realm.objects(Stamped.self).count == 2)
    }

    @Test func keysThatNameNoPropertyAreIgnored() {
        let o = Stamped(value: ["count": 3, "noSuchProperty": "x"])
        #expect(o.count == 3)
    }

    @Test func aValueThatDoesNotFitStops() async {
        await #expect(processExitsWith: .failure) {
            _ = Stamped(value: ["count": "three"])
        }
        await #expect(processExitsWith: .failure) {
            _ = Stamped(value: [ObjectId(), Date(), UUID(), NSNull(), 1, "one too many"])
        }
        #expect(throws: Realm.Error.self) { try Stamped.make(value: ["count": "three"]) }
    }
}
