// `ObjectId` made from source text and from its parts, as RealmSwift's shared test models and
// apps declare fixed ids (`ObjectId("6058f12b957ba06156586a7c")`).
import Foundation
import Strata
import Testing

@Suite("ObjectId initializers")
struct ObjectIdInitializerTests {
    @Test func aLiteralIsTheIdItSpells() throws {
        let id = ObjectId("6058f12b957ba06156586a7c")
        #expect(id.stringValue == "6058f12b957ba06156586a7c")
        #expect(id == (try ObjectId(string: "6058F12B957BA06156586A7C")))
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x6058_f12b))
        #expect(ObjectId("000000000000000000000000") == ObjectId())
    }

    @Test func textFromOutsideTheProgramIsParsedWithATypedError() {
        for bad in ["", "6058f12b957ba06156586a7", "6058f12b957ba06156586a7c0", "6058f12b957ba06156586a7g"] {
            #expect(throws: Realm.Error.self, "'\(bad)'") { try ObjectId(string: bad) }
        }
    }

    @Test func partsLandInTheirBytesAndTheCounterKeepsIdsApart() {
        let when = Date(timeIntervalSince1970: 1_700_000_000.75)
        let a = ObjectId(timestamp: when, machineId: 0x0A_0B0C, processId: 0x0D0E)
        let b = ObjectId(timestamp: when, machineId: 0x0A_0B0C, processId: 0x0D0E)
        #expect(a.timestamp == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(a != b)
        let hex = a.stringValue
        #expect(hex.prefix(8) == String(1_700_000_000, radix: 16))
        #expect(hex.dropFirst(8).prefix(10) == "0a0b0c0d0e")
        #expect(hex.prefix(18) == b.stringValue.prefix(18))
    }

    @Test func partsWiderThanTheirBytesKeepTheirLowBits() {
        let id = ObjectId(timestamp: Date(timeIntervalSince1970: 0), machineId: 0x7F_0102_03, processId: 0x7_0405)
        #expect(id.stringValue.dropFirst(8).prefix(10) == "0102030405")
    }

    @Test func aLiteralIdWorksAsAPrimaryKey() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "objectid-literal-\(UUID())", objectTypes: [FixedIdItem.self]))
        try realm.write { realm.add(FixedIdItem(id: ObjectId("6058f12b957ba06156586a7c"), title: "first")) }
        let found = realm.object(ofType: FixedIdItem.self, forPrimaryKey: ObjectId("6058f12b957ba06156586a7c"))
        #expect(found?.title == "first")
    }
}

final class FixedIdItem: Object {
    @Persisted(primaryKey: true) var id = ObjectId("6058f12b957ba06156586a7c")
    @Persisted var title = ""

    convenience init(id: ObjectId, title: String) {
        self.init()
        self.id = id
        self.title = title
    }
}
