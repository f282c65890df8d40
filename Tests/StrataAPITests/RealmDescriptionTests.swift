// `description` of objects and collections in RealmSwift's format: what `print(dog)` shows.
import Foundation
import Strata
import Testing

final class PrintedKennel: Object {
    @Persisted var name = ""
    @Persisted var open = true
    @Persisted var rating = 4.0
    @Persisted var fee: Float = 2.5
    @Persisted var motto: String?
    @Persisted var badge = Data([0x61, 0x62, 0x63, 0x64, 0x65])
    @Persisted var opened = Date(timeIntervalSince1970: 1)
    @Persisted var keeper: PrintedKeeper?
    @Persisted var scores: List<Int?>
    @Persisted var keepers: List<PrintedKeeper>
    @Persisted var byRoom: Map<String, PrintedKeeper?>
    @Persisted var extra: AnyRealmValue
}

final class PrintedKeeper: Object {
    @Persisted var name = ""
    @Persisted var friend: PrintedKeeper?
    @Persisted(originProperty: "keepers") var kennels: LinkingObjects<PrintedKennel>
}

@Suite("description in RealmSwift's format")
struct RealmDescriptionTests {
    private func kennel() -> PrintedKennel {
        let kennel = PrintedKennel()
        kennel.name = "Hill"
        kennel.keeper = PrintedKeeper(value: ["name": "Ann"])
        kennel.scores.append(objectsIn: [3, nil])
        kennel.extra = .int(7)
        return kennel
    }

    @Test func anObjectPrintsItsStoredPropertiesNested() {
        let expected = """
        PrintedKennel {
        \tname = Hill;
        \topen = 1;
        \trating = 4;
        \tfee = 2.5;
        \tmotto = (null);
        \tbadge = <61626364 65 — 5 total bytes>;
        \topened = 1970-01-01 00:00:01 +0000;
        \tkeeper = PrintedKeeper {
        \t\tname = Ann;
        \t\tfriend = (null);
        \t};
        \tscores = List<int> <0x
        """
        let text = kennel().description
        #expect(text.hasPrefix(expected))
        #expect(text.contains("> (\n\t\t[0] 3,\n\t\t[1] (null)\n\t);\n\tkeepers = List<PrintedKeeper> <0x"))
        #expect(text.contains("> (\n\t\n\t);\n\tbyRoom = Map<string, PrintedKeeper> <0x"))
        #expect(text.hasSuffix("> (\n\t\n\t);\n\textra = 7;\n}"))
        #expect(!text.contains("kennels"))
    }

    @Test func aManagedObjectAndItsCollectionsPrintAlike() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let kennel = kennel()
        let unmanagedText = kennel.description.replacing(/<0x[0-9a-f]+>/, with: "<0x>")
        try realm.write { realm.add(kennel) }
        #expect(kennel.description.replacing(/<0x[0-9a-f]+>/, with: "<0x>") == unmanagedText)

        let keepers = realm.objects(PrintedKeeper.self)
        #expect(keepers.description.contains(/^Results<PrintedKeeper> <0x[0-9a-f]+> \(\n\t\[0\] PrintedKeeper \{\n\t\tname = Ann;\n\t\tfriend = \(null\);\n\t\}\n\)$/))
        #expect(AnyRealmCollection(keepers).description.hasPrefix("AnyRealmCollection<PrintedKeeper> <0x"))
        try realm.write { kennel.byRoom["attic"] = keepers.first }
        #expect(kennel.byRoom.description.contains("> (\n[attic]: PrintedKeeper {\n\t\tname = Ann;\n\t\tfriend = (null);\n\t}\n)"))
        try realm.write { kennel.keepers.append(keepers.first!) }
        #expect(keepers.first!.kennels.description.hasPrefix("LinkingObjects<PrintedKennel> <0x"))
        #expect(realm.objects(PrintedKennel.self).where { $0.name == "nobody" }.description.hasSuffix("> (\n\n)"))
    }

    @Test func aCycleOfLinksStopsAtTheMaximumDepth() {
        let a = PrintedKeeper(value: ["name": "a"])
        let b = PrintedKeeper(value: ["name": "b"])
        a.friend = b
        b.friend = a
        let text = a.description
        #expect(text.components(separatedBy: "PrintedKeeper {").count - 1 == 5)
        #expect(text.contains("friend = <Maximum depth exceeded>;"))
    }

    @Test func aLongCollectionSaysHowManyItSkipped() {
        let kennel = PrintedKennel()
        kennel.scores.append(objectsIn: (0..<130).map { $0 })
        let text = kennel.scores.description
        #expect(text.contains("\t[99] 99\n\t... 30 objects skipped.\n)"))
        #expect(!text.contains("[100]"))
    }

    @Test func aDeletedObjectPrintsAsInvalid() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let keeper = PrintedKeeper(value: ["name": "gone"])
        try realm.write { realm.add(keeper) }
        try realm.write { realm.delete(keeper) }
        #expect(keeper.description == "[invalid object]")
    }
}
