// The Exams models (REALM_REFERENCE "Example models") at schema versions 1, 2 and 3. Each version
// is its own Swift class with the same Realm class name, as an app's code would be across releases.
//
// v1: Exam { id: Int (pk); name; date: Date? }          Mark { mark: Int; exam: Exam? }
// v2: Exam { id: Int (pk); title (renamed from name); date: Date?; passingScore = 50 (new) }
//     Mark { mark: Int; exam: Exam?; grade = "?" (new, computed by the block) }
// v3: Exam { id: String (pk, "E<id>"); title; passingScore }   (date removed)
//     Mark { score: Double (from mark); exam: Exam?; grade }
import Foundation
import Strata

final class ExamV1: Object {
    override class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var date: Date?
}

final class MarkV1: Object {
    override class func className() -> String { "Mark" }
    @Persisted var mark = 0
    @Persisted var exam: ExamV1?
}

final class ExamV2: Object {
    override class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var date: Date?
    @Persisted var passingScore = 50
}

final class MarkV2: Object {
    override class func className() -> String { "Mark" }
    @Persisted var mark = 0
    @Persisted var exam: ExamV2?
    @Persisted var grade = "?"
}

final class ExamV3: Object {
    override class func className() -> String { "Exam" }
    @Persisted(primaryKey: true) var id = ""
    @Persisted var title = ""
    @Persisted var passingScore = 50
}

final class MarkV3: Object {
    override class func className() -> String { "Mark" }
    @Persisted var score = 0.0
    @Persisted var exam: ExamV3?
    @Persisted var grade = "?"
}

/// A class added in v2 of some tests (old is nil when enumerating it).
final class Room: Object {
    @Persisted var label = "unnamed"
}

/// Optionality and index changes (handled without a block).
final class NoteV1: Object {
    override class func className() -> String { "Note" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text: String?
    @Persisted var rank = 0
}

final class NoteV2: Object {
    override class func className() -> String { "Note" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = "none"
    @Persisted(indexed: true) var rank = 0
}
