// What `enumerateObjects` visits, as in Realm: nothing for a class without stored objects (or
// unknown), no object the migration deleted, and old objects of a class gone from the code; an old
// object's links lead to old objects.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite struct MigrationEnumerationTests {
    /// What the blocks saw (a migration block runs on the opening thread, before the open returns).
    private final class Visits: @unchecked Sendable {
        var seen: [String] = []
    }

    /// Migrates the Exams v1 file to v2 with `block`, recording what it reports.
    private func migrate(types: [Object.Type] = [ExamV2.self, MarkV2.self],
                         _ block: @escaping @Sendable (Migration, UInt64) -> Void) throws -> Realm {
        let base = tempConfig()
        try examsV1(base)
        return try Realm(configuration: config(base, version: 2, types: types, block: { migration, oldVersion in
            examsMigrationV2(migration, oldVersion)
            block(migration, oldVersion)
        }))
    }

    @Test func aClassWithoutStoredObjectsIsNoErrorAndVisitsNothing() throws {
        let visits = Visits()
        let realm = try migrate { migration, _ in
            migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in visits.seen.append("visited") }
        }
        #expect(visits.seen.isEmpty)
        #expect(realm.objects(ExamV2.self).count == 2)
    }

    @Test func anObjectTheMigrationDeletedIsNotVisitedAgain() throws {
        let visits = Visits()
        let realm = try migrate { migration, _ in
            migration.enumerateObjects(ofType: "Exam") { old, new in
                if old?["name"] as? String == "Art", let new { migration.delete(new) }
            }
            migration.enumerateObjects(ofType: "Exam") { old, new in
                visits.seen.append("\(old?["name"] as? String ?? "nil") -> \(new?["title"] as? String ?? "nil")")
            }
        }
        #expect(visits.seen == ["Math -> Math"])
        #expect(realm.objects(ExamV2.self).map(\.title) == ["Math"])
    }

    @Test func aClassGoneFromTheCodeGivesOldObjectsOnly() throws {
        let visits = Visits()
        _ = try migrate(types: [ExamV2.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Mark") { old, new in
                visits.seen.append("\(old?["mark"] as? Int ?? -1) \(new == nil ? "no new" : "new")")
            }
        }
        #expect(visits.seen.sorted() == ["40 no new", "75 no new", "90 no new"])
    }

    @Test func anOldObjectsLinksReadTheOldLinkedObjects() throws {
        // v2 renames Exam.name to title: an old mark's exam is the old exam, with the old names.
        let visits = Visits()
        _ = try migrate { migration, _ in
            migration.enumerateObjects(ofType: "Mark") { old, new in
                let oldExam = old?["exam"] as? MigrationObject
                let newExam = new?["exam"] as? MigrationObject
                visits.seen.append("\(oldExam?["name"] as? String ?? "-") \(oldExam?["title"] as? String ?? "-") \(newExam?["title"] as? String ?? "-")")
            }
        }
        #expect(visits.seen.sorted() == ["Art - Art", "Math - Math", "Math - Math"])
    }
}
