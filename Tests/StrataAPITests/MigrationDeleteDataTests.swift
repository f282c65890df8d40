// `migration.deleteData(forType:)` of a class the code no longer has removes the class from the
// file, as RealmSwift removes its table: afterwards no view of the file lists it (`realm.schema`,
// the stored schema `StrataFile` and `strata` read), also after reopening and read-only. A class
// still in the code keeps its (now empty) table. The classes removed here exist only in the file:
// they are stored by schema (`StrataFileWriter`), so no model class of this process has their name.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class DeleteDataExam: Object {
    @Persisted var title = ""
    @Persisted(originProperty: "exam") var marks: LinkingObjects<DeleteDataMark>
}

final class DeleteDataMark: Object {
    @Persisted var score = 0
    @Persisted var exam: DeleteDataExam?
}

/// Stored at first with a link to a RetiredByDeleteData; the code has dropped that property.
final class DeleteDataOwner: Object {
    @Persisted var name = ""
}

@Suite("deleteData of a class removed from the code")
struct MigrationDeleteDataTests {
    /// A file at schema version 0 whose tables are, in order: RetiredByDeleteData (links to an
    /// exam and to another of its class), KeeperOfRetired (links to a RetiredByDeleteData),
    /// DeleteDataMark (links to an exam), DeleteDataExam: the classes after the removed ones are
    /// renumbered. Three retired objects, one keeper, three marks, two exams.
    static func storedFile(_ name: String) throws -> Realm.Configuration {
        var configuration = tempConfig(name)
        let path = try #require(configuration.fileURL?.path)
        var writer = try StrataFileWriter(path: path)
        try writer.beginWrite()
        try writer.addClasses([
            ObjectSchema(className: "RetiredByDeleteData", properties: [
                Property(name: "label", type: .string),
                Property(name: "exam", type: .object, isOptional: true, objectClassName: "DeleteDataExam"),
                Property(name: "next", type: .object, isOptional: true, objectClassName: "RetiredByDeleteData"),
            ]),
            ObjectSchema(className: "KeeperOfRetired", properties: [
                Property(name: "retired", type: .object, isOptional: true, objectClassName: "RetiredByDeleteData"),
            ]),
        ])
        var retired: [UInt64] = []
        for label in ["a", "b", "c"] {
            retired.append(try writer.create("RetiredByDeleteData", values: [.string(label), .null, .null]))
        }
        try writer.set("RetiredByDeleteData", key: retired[0], [2: .link(className: "RetiredByDeleteData", key: retired[1])])
        try writer.set("RetiredByDeleteData", key: retired[1], [2: .link(className: "RetiredByDeleteData", key: retired[0])])
        let keeper = try writer.create("KeeperOfRetired", values: [.null])
        try writer.set("KeeperOfRetired", key: keeper, [0: .link(className: "RetiredByDeleteData", key: retired[2])])
        try writer.commitWrite()
        writer.close()
        configuration.objectTypes = [DeleteDataExam.self, DeleteDataMark.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let math = realm.create(DeleteDataExam.self, value: ["title": "Math"])
                let art = realm.create(DeleteDataExam.self, value: ["title": "Art"])
                realm.create(DeleteDataMark.self, value: ["score": 90, "exam": math])
                realm.create(DeleteDataMark.self, value: ["score": 40, "exam": math])
                realm.create(DeleteDataMark.self, value: ["score": 75, "exam": art])
            }
        }
        let examKeys = try storedKeys(of: "DeleteDataExam", at: configuration)
        writer = try StrataFileWriter(path: path)
        try writer.beginWrite()
        try writer.set("RetiredByDeleteData", key: retired[0], [1: .link(className: "DeleteDataExam", key: examKeys[0])])
        try writer.commitWrite()
        writer.close()
        return configuration
    }

    static func storedKeys(of className: String, at configuration: Realm.Configuration) throws -> [UInt64] {
        let file = try StrataFile(path: try #require(configuration.fileURL?.path))
        defer { file.close() }
        return try file.objects(of: className).map(\.key)
    }

    static func storedClassNames(_ configuration: Realm.Configuration) throws -> [String] {
        let file = try StrataFile(path: try #require(configuration.fileURL?.path))
        defer { file.close() }
        #expect(file.verify().isEmpty, "the file verifies: \(file.verify())")
        return file.schema.map(\.className)
    }

    static func migrated(_ base: Realm.Configuration, block: @escaping MigrationBlock) -> Realm.Configuration {
        var configuration = base
        configuration.schemaVersion = 1
        configuration.migrationBlock = block
        return configuration
    }

    @Test func theClassLeavesEveryViewOfTheFile() throws {
        let base = try Self.storedFile("delete-data-removes")
        let answers = FailureBox()
        let configuration = Self.migrated(base) { migration, _ in
            var log: [String] = []
            log.append("keeper \(migration.deleteData(forType: "KeeperOfRetired"))")
            log.append("retired \(migration.deleteData(forType: "RetiredByDeleteData"))")
            log.append("again \(migration.deleteData(forType: "RetiredByDeleteData"))")
            log.append("unknown \(migration.deleteData(forType: "NoSuchClass"))")
            migration.enumerateObjects(ofType: "RetiredByDeleteData") { _, _ in log.append("enumerated") }
            answers.set(log.joined(separator: ", "))
        }
        do {
            let realm = try Realm(configuration: configuration)
            #expect(answers.value == "keeper true, retired true, again false, unknown false")
            #expect(realm.schema["RetiredByDeleteData"] == nil)
            #expect(realm.schema.objectSchema.map(\.className).sorted() == ["DeleteDataExam", "DeleteDataMark"])
        }
        #expect(try Self.storedClassNames(base) == ["DeleteDataMark", "DeleteDataExam"])

        // Reopened without objectTypes (the default schema lists the file's classes too).
        do {
            var reopened = base
            reopened.schemaVersion = 1
            reopened.objectTypes = nil
            let realm = try Realm(configuration: reopened)
            #expect(realm.schema["RetiredByDeleteData"] == nil)
            #expect(realm.schema["KeeperOfRetired"] == nil)
            // The classes after the removed ones kept their objects and links (renumbered tables).
            let math = try #require(realm.objects(DeleteDataExam.self).filter("title == 'Math'").first)
            #expect(math.marks.map(\.score).sorted() == [40, 90])
            try realm.write { realm.delete(math) }
            #expect(realm.objects(DeleteDataMark.self).filter("exam == nil").map(\.score).sorted() == [40, 90])
        }
        #expect(try Self.storedClassNames(base) == ["DeleteDataMark", "DeleteDataExam"])

        var readOnly = base
        readOnly.schemaVersion = 1
        readOnly.readOnly = true
        let reader = try Realm(configuration: readOnly)
        #expect(reader.schema["RetiredByDeleteData"] == nil)
        #expect(reader.objects(DeleteDataMark.self).count == 3)
    }

    @Test func aClassStillInTheCodeKeepsItsEmptyTable() throws {
        let base = try Self.storedFile("delete-data-keeps-code-class")
        let answer = FailureBox()
        let realm = try Realm(configuration: Self.migrated(base) { migration, _ in
            answer.set("\(migration.deleteData(forType: "DeleteDataMark")) \(migration.deleteData(forType: "DeleteDataMark"))")
        })
        #expect(answer.value == "true true")
        #expect(realm.objects(DeleteDataMark.self).isEmpty)
        #expect(realm.schema["DeleteDataMark"] != nil)
        let names = try Self.storedClassNames(base)
        #expect(names == ["RetiredByDeleteData", "KeeperOfRetired", "DeleteDataMark", "DeleteDataExam"])
    }

    @Test func aClassTheFileKeepsLinkingToTheDeletedOneFailsTheMigration() throws {
        let base = try Self.storedFile("delete-data-linked")
        #expect {
            _ = try Realm(configuration: Self.migrated(base) { migration, _ in
                migration.deleteData(forType: "RetiredByDeleteData")
            })
        } throws: { error in
            guard let error = error as? Realm.Error else { return false }
            return error.code == .invalidSchema && error.message.contains("KeeperOfRetired.retired")
        }
        // Rolled back: the file is as it was.
        let names = try Self.storedClassNames(base)
        #expect(names == ["RetiredByDeleteData", "KeeperOfRetired", "DeleteDataMark", "DeleteDataExam"])
        #expect(try Self.storedKeys(of: "RetiredByDeleteData", at: base).count == 3)
    }

    @Test func aPropertyTheCodeDroppedDoesNotKeepTheClass() throws {
        var configuration = tempConfig("delete-data-dropped-link")
        let path = try #require(configuration.fileURL?.path)
        let writer = try StrataFileWriter(path: path)
        try writer.beginWrite()
        try writer.addClasses([
            ObjectSchema(className: "RetiredByDeleteData", properties: [Property(name: "label", type: .string)]),
            ObjectSchema(className: "DeleteDataOwner", properties: [
                Property(name: "name", type: .string),
                Property(name: "retired", type: .object, isOptional: true, objectClassName: "RetiredByDeleteData"),
            ]),
        ])
        let retired = try writer.create("RetiredByDeleteData", values: [.string("old")])
        let owner = try writer.create("DeleteDataOwner", values: [.string("kept"), .null])
        try writer.set("DeleteDataOwner", key: owner, [1: .link(className: "RetiredByDeleteData", key: retired)])
        try writer.commitWrite()
        writer.close()
        configuration.objectTypes = [DeleteDataOwner.self]
        let realm = try Realm(configuration: Self.migrated(configuration) { migration, _ in
            migration.deleteData(forType: "RetiredByDeleteData")
        })
        #expect(realm.objects(DeleteDataOwner.self).map(\.name) == ["kept"])
        #expect(try Self.storedClassNames(configuration) == ["DeleteDataOwner"])
    }
}
