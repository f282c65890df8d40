// Migrations: the Exams models through v1 → v2 → v3 and v1 → v3 directly, the block's API,
// and every error case (typed).
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct MigrationTests {
    @Test func v1ToV2RenamesAddsDefaultsAndTransforms() throws {
        let base = tempConfig()
        try examsV1(base)
        let realm = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: examsMigrationV2))
        #expect(realm.schema["Exam"]?.properties.map(\.name) == ["id", "title", "date", "passingScore"])
        let exams = realm.objects(ExamV2.self).sorted(byKeyPath: "id")
        #expect(exams.map(\.title) == ["Math", "Art"])
        #expect(exams.map(\.passingScore) == [50, 50])
        #expect(exams.first?.date == Date(timeIntervalSince1970: 1000))
        let marks = realm.objects(MarkV2.self).sorted(byKeyPath: "mark")
        #expect(marks.map(\.grade) == ["fail", "pass", "pass"])
        #expect(marks.map { $0.exam?.title ?? "-" } == ["Math", "Art", "Math"])
        #expect(realm.object(ofType: ExamV2.self, forPrimaryKey: 2)?.title == "Art")
        // the migrated realm keeps working: writes, links, primary keys
        try realm.write { realm.create(ExamV2.self, value: ["id": 3, "title": "Bio"]) }
        #expect { try realm.write { realm.create(ExamV2.self, value: ["id": 3]) } } throws: {
            ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
        }
        // deleting a migrated exam nullifies the migrated links to it (backlinks followed the column)
        try realm.write { realm.delete(try #require(realm.object(ofType: ExamV2.self, forPrimaryKey: 2))) }
        #expect(realm.objects(MarkV2.self).filter { $0.exam == nil }.count == 1)
    }

    @Test func performMigrationMigratesWithoutKeepingARealmOpen() throws {
        let base = tempConfig()
        try examsV1(base)
        let block: MigrationBlock = examsMigrationV2
        try Realm.performMigration(for: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block))
        // Migrated: a configuration without a block opens the file at version 2 as it is.
        let realm = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: nil))
        #expect(realm.objects(ExamV2.self).sorted(byKeyPath: "id").map(\.title) == ["Math", "Art"])
        #expect(realm.objects(MarkV2.self).sorted(byKeyPath: "mark").map(\.grade) == ["fail", "pass", "pass"])
        // A configuration older than the file is refused, as opening it is.
        #expect(throws: Realm.Error.self) {
            try Realm.performMigration(for: config(base, version: 1, types: [ExamV1.self, MarkV1.self], block: nil))
        }
    }

    @Test func v1ToV2ToV3() throws {
        let base = tempConfig()
        try examsV1(base)
        do {
            let v2 = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: examsMigrationV2))
            #expect(v2.objects(MarkV2.self).count == 3)
        }
        let realm = try Realm(configuration: config(base, version: 3, types: [ExamV3.self, MarkV3.self]))
        #expect(realm.schema["Exam"]?.properties.map(\.name) == ["id", "title", "passingScore"])
        #expect(realm.objects(ExamV3.self).map(\.id).sorted() == ["E1", "E2"])
        #expect(realm.object(ofType: ExamV3.self, forPrimaryKey: "E1")?.title == "Math")
        let marks = realm.objects(MarkV3.self).sorted(byKeyPath: "score")
        #expect(marks.map(\.score) == [40, 75, 90])
        #expect(marks.map(\.grade) == ["fail", "pass", "pass"])   // kept from v2
        #expect(marks.map { $0.exam?.id ?? "-" } == ["E1", "E2", "E1"])
    }

    @Test func skippedVersionV1ToV3() throws {
        let base = tempConfig()
        try examsV1(base)
        let realm = try Realm(configuration: config(base, version: 3, types: [ExamV3.self, MarkV3.self]))
        let exams = realm.objects(ExamV3.self).sorted(byKeyPath: "id")
        #expect(exams.map(\.id) == ["E1", "E2"])
        #expect(exams.map(\.title) == ["Math", "Art"])   // renamed in the v2 step
        #expect(exams.map(\.passingScore) == [50, 50])
        let marks = realm.objects(MarkV3.self).sorted(byKeyPath: "score")
        #expect(marks.map(\.score) == [40, 75, 90])
        #expect(marks.map(\.grade) == ["fail", "pass", "pass"])
        #expect(marks.map { $0.exam?.title ?? "-" } == ["Math", "Art", "Math"])
    }

    @Test func blockGetsOldVersionAndOldValuesStayOld() throws {
        let base = tempConfig()
        try examsV1(base)
        let seen = FailureBox()
        let block: Realm.Configuration.MigrationBlock = { m, oldVersion in
            var log: [String] = ["v\(oldVersion)", "old:\(m.oldSchema["Exam"]?.properties.count ?? 0)"]
            m.enumerateObjects(ofType: "Exam") { old, new in
                new?["passingScore"] = 60
                new?["title"] = "changed"
                log.append("\(old?["name"] as? String ?? "?")>\(new?["title"] as? String ?? "?"):\(new?["passingScore"] as? Int ?? 0)")
            }
            m.enumerateObjects(ofType: "Room") { old, new in log.append("room \(old == nil) \(new != nil)") }
            m.create("Room", value: ["label": "A"])
            m.enumerateObjects(ofType: "Room") { old, new in log.append("room \(old == nil) \(new?["label"] as? String ?? "?")") }
            seen.set(log.joined(separator: ","))
        }
        let realm = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self, Room.self], block: block))
        #expect(seen.value == "v1,old:3,Math>changed:60,Art>changed:60,room true A")
        #expect(realm.objects(Room.self).count == 1)
    }

    @Test func deleteAndDeleteDataInTheBlock() throws {
        let base = tempConfig()
        try examsV1(base)
        let block: Realm.Configuration.MigrationBlock = { m, _ in
            m.enumerateObjects(ofType: "Exam") { old, new in
                if old?["id"] as? Int == 2, let new { m.delete(new) }
            }
            #expect(m.deleteData(forType: "Mark"))
            #expect(!m.deleteData(forType: "NoSuchClass"))
        }
        let realm = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block))
        #expect(realm.objects(ExamV2.self).map(\.id) == [1])
        #expect(realm.objects(MarkV2.self).isEmpty)
    }

    @Test func noMigrationWhenTheVersionIsTheSame() throws {
        let base = tempConfig()
        try examsV1(base)
        let calls = FailureBox()
        let realm = try Realm(configuration: config(base, version: 1, types: [ExamV1.self, MarkV1.self], block: { _, _ in calls.set("called") }))
        #expect(calls.value == nil)
        #expect(realm.objects(ExamV1.self).count == 2)
    }

    @Test func optionalityAndIndexChangesNeedNoBlock() throws {
        let base = tempConfig()
        do {
            let v1 = try Realm(configuration: config(base, version: 1, types: [NoteV1.self], block: nil))
            try v1.write {
                v1.create(NoteV1.self, value: ["id": 1, "text": "kept", "rank": 3])
                v1.create(NoteV1.self, value: ["id": 2, "rank": 5])   // text nil
            }
        }
        let v2 = try Realm(configuration: config(base, version: 2, types: [NoteV2.self], block: nil))
        #expect(v2.schema["Note"]?["rank"]?.isIndexed == true)
        #expect(v2.schema["Note"]?["text"]?.isOptional == false)
        #expect(v2.object(ofType: NoteV2.self, forPrimaryKey: 1)?.text == "kept")
        #expect(v2.object(ofType: NoteV2.self, forPrimaryKey: 2)?.text == "none")   // nil → declared default
        #expect(v2.objects(NoteV2.self).filter("rank == 5").map(\.id) == [2])
    }

    // MARK: Errors

    @Test func lowerVersionIsInvalidSchemaVersion() throws {
        let base = tempConfig()
        try examsV1(base)
        #expect { _ = try Realm(configuration: config(base, version: 0, types: [ExamV1.self, MarkV1.self])) } throws: {
            ($0 as? Realm.Error)?.code == .invalidSchemaVersion
        }
    }

    @Test func changedSchemaWithoutNewVersionIsSchemaMismatch() throws {
        let base = tempConfig()
        try examsV1(base)
        #expect { _ = try Realm(configuration: config(base, version: 1, types: [ExamV2.self, MarkV2.self])) } throws: {
            ($0 as? Realm.Error)?.code == .schemaMismatch
        }
    }

    @Test func duplicatePrimaryKeysAfterTheBlockRollBackTheMigration() throws {
        let base = tempConfig()
        try examsV1(base)
        let bad: Realm.Configuration.MigrationBlock = { m, _ in
            m.enumerateObjects(ofType: "Exam") { _, new in new?["id"] = "same" }
        }
        #expect { _ = try Realm(configuration: config(base, version: 3, types: [ExamV3.self, MarkV3.self], block: bad)) } throws: {
            ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
        }
        // nothing of the failed migration was committed: v1 opens with its data
        let v1 = try Realm(configuration: config(base, version: 1, types: [ExamV1.self, MarkV1.self]))
        #expect(v1.objects(ExamV1.self).map(\.name).sorted() == ["Art", "Math"])
    }

    @Test func misuseInsideTheBlockIsATypedError() throws {
        let cases: [Realm.Configuration.MigrationBlock] = [
            { m, _ in m.renameProperty(onType: "Exam", from: "nope", to: "title") },
            { m, _ in m.renameProperty(onType: "Exam", from: "name", to: "passingScore") },   // String → Int
            { m, _ in m.enumerateObjects(ofType: "Exam") { old, _ in old?["name"] = "x" } },
            { m, _ in m.enumerateObjects(ofType: "Exam") { _, new in new?["nope"] = 1 } },
            { m, _ in m.enumerateObjects(ofType: "Exam") { _, new in new?["passingScore"] = "not a number" } },
            { m, _ in m.create("NoSuchClass") },
        ]
        for block in cases {
            let base = tempConfig()
            try examsV1(base)
            #expect { _ = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block)) } throws: {
                ($0 as? Realm.Error)?.code == .invalidArgument
            }
        }
    }

    @Test func deleteRealmIfMigrationNeededStartsOver() throws {
        let base = tempConfig()
        try examsV1(base)
        var c = config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: { _, _ in Issue.record("the block must not run") })
        c.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: c)
        #expect(realm.objects(ExamV2.self).isEmpty)
        #expect(realm.objects(MarkV2.self).isEmpty)
        try realm.write { realm.create(ExamV2.self, value: ["id": 1, "title": "fresh"]) }
        #expect(realm.objects(ExamV2.self).first?.passingScore == 50)
    }
}
