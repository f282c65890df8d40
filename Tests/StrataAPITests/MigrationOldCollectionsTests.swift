// A migration's old objects give their collections as they were before the migration, in the forms
// RealmSwift's dynamic API has (`List<MigrationObject>` for links, `List<Int>` for integers of
// any width), even after the block changed the new objects' collections.
import Foundation
import Strata
import StrataTestSupport
import Testing

public final class OldCollectionTagV1: Object {
    override public class func className() -> String { "OldCollectionTag" }
    @Persisted public var label = ""
}

public final class OldCollectionNoteV1: Object {
    override public class func className() -> String { "OldCollectionNote" }
    @Persisted public var words: List<String>
    @Persisted public var levels: List<Int8>
    @Persisted public var scores: MutableSet<Int>
    @Persisted public var weights: Map<String, Double?>
    @Persisted public var tags: List<OldCollectionTagV1>
    @Persisted public var named: Map<String, OldCollectionTagV1?>
    @Persisted public var tagSet: MutableSet<OldCollectionTagV1>
}

public final class OldCollectionTagV2: Object {
    override public class func className() -> String { "OldCollectionTag" }
    @Persisted public var label = ""
}

/// Version 2 keeps every collection and adds a count.
public final class OldCollectionNoteV2: Object {
    override public class func className() -> String { "OldCollectionNote" }
    @Persisted public var words: List<String>
    @Persisted public var levels: List<Int8>
    @Persisted public var scores: MutableSet<Int>
    @Persisted public var weights: Map<String, Double?>
    @Persisted public var tags: List<OldCollectionTagV2>
    @Persisted public var named: Map<String, OldCollectionTagV2?>
    @Persisted public var tagSet: MutableSet<OldCollectionTagV2>
    @Persisted public var wordCount = 0
}

@Suite struct MigrationOldCollectionsTests {
    private final class Seen: @unchecked Sendable { var values: [String] = [] }

    private func writeVersion1(_ base: Realm.Configuration) throws {
        var configuration = base
        configuration.objectTypes = [OldCollectionNoteV1.self, OldCollectionTagV1.self]
        configuration.schemaVersion = 1
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let red = realm.create(OldCollectionTagV1.self, value: ["label": "red"])
            let blue = realm.create(OldCollectionTagV1.self, value: ["label": "blue"])
            realm.create(OldCollectionNoteV1.self, value: [
                "words": ["to", "be"], "levels": [Int8(3), Int8(-4)], "scores": [7],
                "weights": ["a": 1.5, "b": nil] as [String: Double?], "tags": [red, blue],
                "named": ["first": red, "none": nil] as [String: OldCollectionTagV1?], "tagSet": [blue],
            ])
        }
    }

    @Test func oldObjectsGiveTheirCollectionsAsTheyWere() throws {
        let base = tempConfig("old-collections")
        try writeVersion1(base)
        let seen = Seen()
        var configuration = base
        configuration.objectTypes = [OldCollectionNoteV2.self, OldCollectionTagV2.self]
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "OldCollectionNote") { old, new in
                guard let old, let new else { return }
                // Change the new side first: the old side keeps what was stored.
                (new["words"] as? List<String>)?.append("free")
                (new["tags"] as? List<DynamicObject>)?.removeAll()
                let words = old["words"] as? List<String>
                seen.values.append("words \(words.map { Array($0) } ?? [])")
                seen.values.append("levels \((old["levels"] as? List<Int>).map { Array($0) } ?? [])")
                seen.values.append("scores \((old["scores"] as? MutableSet<Int>).map { Array($0) } ?? [])")
                let weights = old["weights"] as? Map<String, Double?>
                let entry: Double?? = weights?["a"]
                let weight: Double? = entry.flatMap { $0 }
                seen.values.append("weights \(weight.map { String($0) } ?? "nil") \(weights?.count ?? -1)")
                let tags = old["tags"] as? List<MigrationObject>
                seen.values.append("tags \(tags?.map { $0["label"] as? String ?? "?" } ?? [])")
                let named = old["named"] as? Map<String, MigrationObject?>
                seen.values.append("named \(named?["first"]??["label"] as? String ?? "?") \(named?.count ?? -1)")
                let tagSet = old["tagSet"] as? MutableSet<MigrationObject>
                seen.values.append("tagSet \(tagSet?.map { $0["label"] as? String ?? "?" } ?? [])")
                new["wordCount"] = words?.count ?? -1
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(seen.values == [
            "words [\"to\", \"be\"]", "levels [3, -4]", "scores [7]", "weights 1.5 2",
            "tags [\"red\", \"blue\"]", "named red 2", "tagSet [\"blue\"]",
        ])
        let note = try #require(realm.objects(OldCollectionNoteV2.self).first)
        #expect(note.wordCount == 2)
        #expect(Array(note.words) == ["to", "be", "free"])
        #expect(note.tags.isEmpty)
    }

    @Test func oldCollectionsAreCopiesThatDoNotWriteBack() throws {
        let base = tempConfig("old-collections-copy")
        try writeVersion1(base)
        var configuration = base
        configuration.objectTypes = [OldCollectionNoteV2.self, OldCollectionTagV2.self]
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "OldCollectionNote") { old, _ in
                (old?["words"] as? List<String>)?.append("lost")
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(Array(try #require(realm.objects(OldCollectionNoteV2.self).first).words) == ["to", "be"])
    }
}
