// Properties declared without an initial value start as RealmSwift's do (a new ObjectId, a random
// UUID and the current date for each object), and `init(value:)` never drops a value that does
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
        let before = Date()
        let a = Stamped(), b = Stamped()
        let after = Date()
        #expect(a.id != b.id && a.id != ObjectId())
        #expect(a.token != b.token)
        // The time the object was made, as in RealmSwift (it was the reference date, 2001-01-01),
        // read from the coarse clock: within its tick of the precise one.
        #expect(a.created >= before.addingTimeInterval(-0.05) && a.created <= after.addingTimeInterval(0.05))
        #expect(b.created >= a.created)
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
