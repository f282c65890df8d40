// Properties of Foundation's `NSString`, `NSDate` and `NSData`, as models written for RealmSwift's
// `@objc dynamic` declare them: stored as `String`, `Date` and `Data`, read back as new instances
// of the declared class, set through key-value coding and `create`, and queried.
import Foundation
import Strata
import Testing

final class LegacyNote: Object {
    @Persisted var title: NSString = "untitled"
    @Persisted var subtitle: NSString?
    @Persisted var written: NSDate?
    @Persisted var attachment: NSData?
    @Persisted var scratch: NSMutableData?
}

/// `LegacyNote` declared with the value types, to read a file written with the Foundation classes.
final class LegacyNoteAsValues: Object {
    override class func _realmObjectName() -> String? { "LegacyNote" }
    @Persisted var title = ""
    @Persisted var subtitle: String?
    @Persisted var written: Date?
    @Persisted var attachment: Data?
    @Persisted var scratch: Data?
}

@Suite("NSString, NSDate and NSData properties")
struct FoundationReferenceTypeTests {
    private func memoryRealm(_ types: [Object.Type] = [LegacyNote.self]) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = types
        return try Realm(configuration: configuration)
    }

    @Test func theyAreStoredAsTheValueTypes() throws {
        let realm = try memoryRealm()
        let schema = try #require(realm.schema["LegacyNote"])
        #expect(schema["title"]?.type == .string && schema["title"]?.isOptional == false)
        #expect(schema["subtitle"]?.type == .string && schema["subtitle"]?.isOptional == true)
        #expect(schema["written"]?.type == .date && schema["attachment"]?.type == .data)
        #expect(schema["scratch"]?.type == .data)
    }

    @Test func valuesReadBackAsNewInstancesOfTheDeclaredClass() throws {
        let realm = try memoryRealm()
        let note = LegacyNote()
        #expect(note.title == "untitled" && note.subtitle == nil)
        note.subtitle = "draft"
        note.written = NSDate(timeIntervalSinceReferenceDate: 86_400)
        note.attachment = NSData(data: Data([1, 2, 3]))
        note.scratch = NSMutableData(data: Data([9]))
        try realm.write { realm.add(note) }

        let read = try #require(realm.objects(LegacyNote.self).first)
        #expect(read.title == "untitled" && read.subtitle == "draft")
        #expect(read.written?.timeIntervalSinceReferenceDate == 86_400)
        #expect(read.attachment.map { $0 as Data } == Data([1, 2, 3]))
        let scratch = try #require(read.scratch)
        scratch.append(Data([10]))  // a mutable instance of its own: the stored value is unchanged
        #expect(read.scratch.map { $0 as Data } == Data([9]))

        try realm.write { read.subtitle = nil; read.attachment = nil }
        #expect(read.subtitle == nil && read.attachment == nil)
    }

    @Test func keyValueCodingAndCreateTakeTheValueTypes() throws {
        let realm = try memoryRealm()
        try realm.write {
            let note = realm.create(LegacyNote.self, value: ["title": "from a String", "written": Date(timeIntervalSinceReferenceDate: 5)])
            note.setValue("set by key", forKey: "subtitle")
            note.setValue(Data([7]), forKey: "attachment")
        }
        let read = try #require(realm.objects(LegacyNote.self).first)
        #expect(read.title == "from a String" && read.subtitle == "set by key")
        #expect(read.written == NSDate(timeIntervalSinceReferenceDate: 5))
        #expect(read.value(forKey: "title") as? String == "from a String")  // the stored form
        #expect(read.attachment.map { $0 as Data } == Data([7]))
    }

    @Test func queriesCompareTheStoredValues() throws {
        let realm = try memoryRealm()
        try realm.write {
            for (title, day) in [("alpha", 1.0), ("beta", 2.0), ("gamma", 3.0)] {
                let note = LegacyNote()
                note.title = title as NSString
                note.written = NSDate(timeIntervalSinceReferenceDate: day * 86_400)
                realm.add(note)
            }
        }
        let notes = realm.objects(LegacyNote.self)
        #expect(notes.filter("title BEGINSWITH %@", "be").count == 1)
        #expect(notes.filter("title == %@", NSString(string: "gamma")).count == 1)
        #expect(notes.filter("written > %@", NSDate(timeIntervalSinceReferenceDate: 86_400)).count == 2)
        #expect(notes.sorted(byKeyPath: "title", ascending: false).map { $0.title as String } == ["gamma", "beta", "alpha"])
    }

    @Test func aFileWrittenWithFoundationClassesReadsWithValueTypes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString).realm")
        defer { try? FileManager.default.removeItem(at: url) }
        var written = Realm.Configuration(fileURL: url)
        written.objectTypes = [LegacyNote.self]
        do {
            let realm = try Realm(configuration: written)
            let note = LegacyNote()
            note.subtitle = "kept"
            note.attachment = NSData(data: Data([4, 2]))
            try realm.write { realm.add(note) }
        }
        var read = Realm.Configuration(fileURL: url)
        read.objectTypes = [LegacyNoteAsValues.self]
        let realm = try Realm(configuration: read)
        let values = try #require(realm.objects(LegacyNoteAsValues.self).first)
        #expect(values.subtitle == "kept" && values.title == "untitled")
        #expect(values.attachment == Data([4, 2]) && values.written == nil)
    }
}
