// The Exams models of Realm's migration examples at schema versions 1, 2 and 3. Each version
// is its own Swift class with the same Realm class name, as an app's code would be across releases.
//
// v1: Exam { id: Int (pk); name; date: Date? }          Mark { mark: Int; exam: Exam? }
// v2: Exam { id: Int (pk); title (renamed from name); date: Date?; passingScore = 50 (new) }
//     Mark { mark: Int; exam: Exam?; grade = "?" (new, computed by the block) }
// v3: Exam { id: String (pk, "E<id>"); title; passingScore }   (date removed)
//     Mark { score: Double (from mark); exam: Exam?; grade }
import Foundation
import Strata

public final class ExamV1: Object {
    override public class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var name = ""
    @Persisted public var date: Date?
}

public final class MarkV1: Object {
    override public class func className() -> String { "Mark" }
    @Persisted public var mark = 0
    @Persisted public var exam: ExamV1?
}

public final class ExamV2: Object {
    override public class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var title = ""
    @Persisted public var date: Date?
    @Persisted public var passingScore = 50
}

public final class MarkV2: Object {
    override public class func className() -> String { "Mark" }
    @Persisted public var mark = 0
    @Persisted public var exam: ExamV2?
    @Persisted public var grade = "?"
}

public final class ExamV3: Object {
    override public class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) public var id = ""
    @Persisted public var title = ""
    @Persisted public var passingScore = 50
}

public final class MarkV3: Object {
    override public class func className() -> String { "Mark" }
    @Persisted public var score = 0.0
    @Persisted public var exam: ExamV3?
    @Persisted public var grade = "?"
}

/// A class added in v2 of some tests (old is nil when enumerating it).
public final class Room: Object {
    @Persisted public var label = "unnamed"
}

/// Optionality and index changes (handled without a block).
public final class NoteV1: Object {
    override public class func className() -> String { "Note" }
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var text: String?
    @Persisted public var rank = 0
}

public final class NoteV2: Object {
    override public class func className() -> String { "Note" }
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var text = "none"
    @Persisted(indexed: true) public var rank = 0
}

/// The Exams realm at version 1 with two exams and three marks.
public func examsV1(_ config: Realm.Configuration) throws {
    var c = config
    c.schemaVersion = 1
    c.objectTypes = [ExamV1.self, MarkV1.self]
    let realm = try Realm(configuration: c)
    try realm.write {
        let math = realm.create(ExamV1.self, value: ["id": 1, "name": "Math", "date": Date(timeIntervalSince1970: 1000)])
        let art = realm.create(ExamV1.self, value: ["id": 2, "name": "Art"])
        realm.create(MarkV1.self, value: ["mark": 90, "exam": math])
        realm.create(MarkV1.self, value: ["mark": 40, "exam": math])
        realm.create(MarkV1.self, value: ["mark": 75, "exam": art])
    }
}

/// The block of the app at version 3: steps for each older version (Realm's idiom).
public let examsMigration: Realm.Configuration.MigrationBlock = { migration, oldVersion in
    if oldVersion < 2 {
        migration.renameProperty(onType: "Exam", from: "name", to: "title")
        migration.enumerateObjects(ofType: "Mark") { old, new in
            let mark = old?["mark"] as? Int ?? 0
            new?["grade"] = mark >= 50 ? "pass" : "fail"
        }
    }
    if oldVersion < 3 {
        migration.enumerateObjects(ofType: "Exam") { old, new in
            new?["id"] = "E\(old?["id"] as? Int ?? -1)"
        }
        migration.enumerateObjects(ofType: "Mark") { old, new in
            new?["score"] = Double(old?["mark"] as? Int ?? 0)
        }
    }
}

/// The block of the app at version 2.
public let examsMigrationV2: Realm.Configuration.MigrationBlock = { migration, oldVersion in
    if oldVersion < 2 {
        migration.renameProperty(onType: "Exam", from: "name", to: "title")
        migration.enumerateObjects(ofType: "Mark") { old, new in
            let mark = old?["mark"] as? Int ?? 0
            new?["grade"] = mark >= 50 ? "pass" : "fail"
        }
    }
}

/// `base` at schema `version` with `types` and the migration `block`.
public func config(_ base: Realm.Configuration, version: UInt64, types: [Object.Type],
                   block: Realm.Configuration.MigrationBlock? = examsMigration) -> Realm.Configuration {
    var c = base
    c.schemaVersion = version
    c.objectTypes = types
    c.migrationBlock = block
    return c
}
