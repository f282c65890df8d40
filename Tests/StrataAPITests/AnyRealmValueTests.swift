// `AnyRealmValue` (Realm's mixed type) as a property and as the element of List, MutableSet and
// Map: every case is stored with its type and read back as that case, by another instance of the
// file, and queries compare it with `==` / `!=`.
import Foundation
import Strata
import Testing

final class Box: Object {
    @Persisted var label = ""
    @Persisted var content: AnyRealmValue
    @Persisted var history: List<AnyRealmValue>
    @Persisted var distinctValues: MutableSet<AnyRealmValue>
    @Persisted var byName: Map<String, AnyRealmValue>
}

final class Marble: Object {
    @Persisted var colour = ""
}

@Suite("AnyRealmValue: a property of any type")
struct AnyRealmValueTests {
    /// A file realm in a fresh folder (removed when the fixture goes).
    private final class Fixture {
        let folder: URL
        let configuration: Realm.Configuration

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = Realm.Configuration(fileURL: folder.appendingPathComponent("boxes.realm"))
            configuration.objectTypes = [Box.self, Marble.self]
            self.configuration = configuration
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func realm() throws -> Realm { try Realm(configuration: configuration) }
    }

    /// One value of every case, the link excepted (it needs a realm).
    static var everyScalarCase: [AnyRealmValue] { [
        .none,
        .int(-42),
        .bool(true),
        .float(2.5),
        .double(-0.125),
        .string("héllo"),
        .data(Data([0, 1, 2, 255])),
        .date(Date(timeIntervalSince1970: 1_700_000_000.5)),
        .objectId(ObjectId(bytes: (0x64, 0xb7, 0xf1, 0xa2, 0xc3, 0xd4, 0xe5, 0xf6, 0x01, 0x23, 0x45, 0x67))),
        .decimal128(Decimal128(Decimal(sign: .minus, exponent: -3, significand: 1_234_567))),
        .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!),
    ] }

    @Test func aNewPropertyIsNoneManagedOrNot() throws {
        let fixture = try Fixture()
        let box = Box()
        #expect(box.content == .none)
        let realm = try fixture.realm()
        try realm.write { realm.add(box) }
        #expect(box.content == .none)
        #expect(box.history.isEmpty)
    }

    @Test(arguments: 0..<11)
    func everyCaseIsReadBackAsTheSameCaseByAnotherInstance(_ index: Int) throws {
        let value = Self.everyScalarCase[index]
        let fixture = try Fixture()
        let realm = try fixture.realm()
        try realm.write { realm.add(Box(value: ["label": "one", "content": value])) }
        let configuration = fixture.configuration
        let stored = try onAnotherThread { () -> String in
            let other = try Realm(configuration: configuration)
            return "\(other.objects(Box.self).first!.content)"
        }
        #expect(stored == "\(value)")
        #expect(realm.objects(Box.self).first?.content == value)
    }

    @Test func aManagedPropertyChangesCaseAndBackToNone() throws {
        let fixture = try Fixture()
        let realm = try fixture.realm()
        let box = Box()
        try realm.write { realm.add(box) }
        for value in Self.everyScalarCase.reversed() {
            try realm.write { box.content = value }
            #expect(box.content == value)
        }
        try realm.write { box.content = .string("long enough to need the row's tail rebuilt") }
        try realm.write { box.label = "relabelled" }
        #expect(box.content.stringValue == "long enough to need the row's tail rebuilt")
        #expect(box.label == "relabelled")
    }

    @Test func theAccessorsAnswerOnlyForTheirOwnCase() {
        let value = AnyRealmValue.int(1)
        #expect(value.intValue == 1)
        #expect(value.doubleValue == nil)
        #expect(value.stringValue == nil)
        #expect(AnyRealmValue.double(1).intValue == nil)
        #expect(AnyRealmValue.double(1) != AnyRealmValue.int(1))
        #expect(AnyRealmValue().intValue == nil)
        #expect(AnyRealmValue.string("a").stringValue == "a")
        #expect(AnyRealmValue.bool(false).boolValue == false)
    }

    @Test func aLinkReadsBackAsItsObjectAndAsNoneOnceItIsDeleted() throws {
        let fixture = try Fixture()
        let realm = try fixture.realm()
        let marble = Marble(value: ["colour": "blue"])
        let box = Box()
        box.content = .object(marble)
        try realm.write { realm.add(box) }
        #expect(realm.objects(Marble.self).count == 1, "adding the box adds the unmanaged object it holds")
        let configuration = fixture.configuration
        let colour = try onAnotherThread { () -> String? in
            let other = try Realm(configuration: configuration)
            return other.objects(Box.self).first?.content.object(Marble.self)?.colour
        }
        #expect(colour == "blue")
        #expect(box.content.object(Box.self) == nil, "a link of another class is not a Box")
        try realm.write { realm.delete(realm.objects(Marble.self)) }
        #expect(box.content == .none)
    }

    @Test func collectionsKeepEachElementsCase() throws {
        let fixture = try Fixture()
        let realm = try fixture.realm()
        let values = Self.everyScalarCase
        let box = Box()
        box.history.append(objectsIn: values)
        for v in values { box.distinctValues.insert(v) }
        box.distinctValues.insert(.int(-42))
        for (i, v) in values.enumerated() { box.byName["k\(i)"] = v }
        try realm.write { realm.add(box) }
        let configuration = fixture.configuration
        let (history, setCount, map) = try onAnotherThread { () -> ([String], Int, [String: String]) in
            let other = try Realm(configuration: configuration)
            let stored = other.objects(Box.self).first!
            var map: [String: String] = [:]
            for key in stored.byName.keys { map[key] = stored.byName[key].map { "\($0)" } }
            return (stored.history.map { "\($0)" }, stored.distinctValues.count, map)
        }
        #expect(history == values.map { "\($0)" })
        #expect(setCount == values.count)
        #expect(map["k1"] == "\(AnyRealmValue.int(-42))")
        #expect(map["k5"] == "\(AnyRealmValue.string("héllo"))")
        #expect(map.count == values.count)

        try realm.write { box.history.append(.object(Marble(value: ["colour": "green"]))) }
        #expect(box.history.last?.object(Marble.self)?.colour == "green")
        #expect(Array(box.history.prefix(values.count)) == values)
    }

    @Test func equalityQueriesMatchTheStoredCase() throws {
        let fixture = try Fixture()
        let realm = try fixture.realm()
        try realm.write {
            realm.add(Box(value: ["label": "int", "content": AnyRealmValue.int(3)]))
            realm.add(Box(value: ["label": "string", "content": AnyRealmValue.string("3")]))
            realm.add(Box(value: ["label": "bool", "content": AnyRealmValue.bool(true)]))
            realm.add(Box(value: ["label": "none"]))
        }
        func labels(_ results: Results<Box>) -> [String] { results.map(\.label).sorted() }
        let boxes = realm.objects(Box.self)
        #expect(labels(boxes.filter("content == %@", 3)) == ["int"])
        #expect(labels(boxes.filter("content == %@", AnyRealmValue.string("3"))) == ["string"])
        #expect(labels(boxes.filter("content == 'x' OR content == TRUE")) == ["bool"])
        #expect(labels(boxes.filter("content == nil")) == ["none"])
        #expect(labels(boxes.filter("content != %@", 3)) == ["bool", "none", "string"])
        #expect(labels(boxes.where { $0.content == .int(3) }) == ["int"])
        #expect(labels(boxes.where { $0.content != .string("3") }) == ["bool", "int", "none"])
    }

    @Test func aValueOfNoCaseIsRejectedByTheWrite() throws {
        let fixture = try Fixture()
        let realm = try fixture.realm()
        struct NotStorable {}
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(Box.self, value: ["content": NotStorable()]) }
        }
        #expect(realm.objects(Box.self).isEmpty)
    }
}
