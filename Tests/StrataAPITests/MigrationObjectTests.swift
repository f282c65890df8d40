// A migration's objects are DynamicObjects, as RealmSwift's MigrationObject is: dynamic-member
// access, links read as new views, views comparing equal to the stored object they stand for,
// `create` always handing back an object, and the misuse each of these allows failing the
// migration with a typed error and leaving the file as it was.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct MigrationObjectTests {
    /// Code written for a DynamicObject takes a migration's objects.
    private func title(of exam: DynamicObject?) -> String? { exam?.title as? String }

    @Test func migrationObjectsAreDynamicObjectsReadAndWrittenByMember() throws {
        let base = tempConfig()
        try examsV1(base)
        let seen = FailureBox()
        let block: Realm.Configuration.MigrationBlock = { m, _ in
            var log: [String] = []
            let music: DynamicObject = m.create("Exam", value: ["id": 9, "title": "Music"])
            log.append(title(of: music) ?? "?")
            m.enumerateObjects(ofType: "Mark") { old, new in
                guard let old, let new else { return }
                // The old link reads as the linked exam's new view; its old name is on the old view.
                let before = old.exam as? DynamicObject
                log.append("\(old.mark as? Int ?? -1):\(title(of: before) ?? "-")")
                new.exam = music
                log.append((new.exam as? DynamicObject) == music ? "same" : "different")
            }
            seen.set(log.joined(separator: ","))
        }
        let realm = try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block))
        // The v1 titles are empty until renamed; what matters is that each mark saw a DynamicObject.
        let log = try #require(seen.value)
        #expect(log.hasPrefix("Music,"))
        #expect(log.components(separatedBy: ",").filter { $0 == "same" }.count == 3)
        #expect(realm.objects(MarkV2.self).map { $0.exam?.id } == [9, 9, 9])
        #expect(realm.object(ofType: ExamV2.self, forPrimaryKey: 9)?.title == "Music")
    }

    @Test func aLinkSetToAnOldObjectFailsTheMigrationAndChangesNothing() throws {
        let base = tempConfig()
        try examsV1(base)
        let oldExams = KeptViews()
        let block: Realm.Configuration.MigrationBlock = { m, _ in
            m.enumerateObjects(ofType: "Exam") { old, _ in if let old { oldExams.views.append(old) } }
            m.enumerateObjects(ofType: "Mark") { _, new in new?.exam = oldExams.views.first }
        }
        #expect { try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block)) } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        // Still version 1: the v1 models open it without a migration, links intact.
        let v1 = try Realm(configuration: config(base, version: 1, types: [ExamV1.self, MarkV1.self], block: nil))
        #expect(v1.objects(MarkV1.self).map { $0.exam?.name ?? "-" }.sorted() == ["Art", "Math", "Math"])
        // Once the migration is over, an old view kept by the block reads nothing.
        #expect(oldExams.views.count == 2)
        #expect(oldExams.views.first?["name"] == nil)
    }

    @Test func createOfAnUnknownClassHandsBackAnInertObjectAndFailsTheMigration() throws {
        let base = tempConfig()
        try examsV1(base)
        let seen = FailureBox()
        let block: Realm.Configuration.MigrationBlock = { m, _ in
            let ghost = m.create("NoSuchClass", value: ["id": 1])
            ghost.title = "ignored"
            seen.set("\(ghost.title == nil) \(ghost["id"] == nil)")
        }
        #expect { try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block)) } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        #expect(seen.value == "true true")
    }

    @Test func deletingAnOldObjectFailsTheMigration() throws {
        let base = tempConfig()
        try examsV1(base)
        let block: Realm.Configuration.MigrationBlock = { m, _ in
            m.enumerateObjects(ofType: "Exam") { old, _ in if let old { m.delete(old) } }
        }
        #expect { try Realm(configuration: config(base, version: 2, types: [ExamV2.self, MarkV2.self], block: block)) } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument
        }
        let v1 = try Realm(configuration: config(base, version: 1, types: [ExamV1.self, MarkV1.self], block: nil))
        #expect(v1.objects(ExamV1.self).count == 2)
    }

    @Test func objectsOfTheSameStoredRowShareTheirHash() throws {
        var configuration = tempConfig()
        configuration.objectTypes = [ExamV1.self, MarkV1.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(ExamV1.self, value: ["id": 1, "name": "Math"]) }
        let first = try #require(realm.object(ofType: ExamV1.self, forPrimaryKey: 1))
        let again = try #require(realm.objects(ExamV1.self).first)
        #expect(first !== again)
        #expect(first.hash == again.hash)
        #expect(first.hash == first.hashValue)
        let unmanaged = ExamV1()
        #expect(unmanaged.hash == unmanaged.hashValue)
    }
}

/// The views a migration block keeps past its end (the block runs on the opening thread only).
private final class KeptViews: @unchecked Sendable {
    var views: [DynamicObject] = []
}
