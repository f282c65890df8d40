// RealmSwift's other names for what Strata has (error codes, block types, realm-level freeze and
// thaw) and the configuration's equality and description: Realm code naming them compiles and
// means the same.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class NamedLantern: Object {
    @Persisted var label: String
    @Persisted var lit: Bool
    @Persisted var hours: Map<String, Int>
}

@Suite("RealmSwift's names")
struct RealmSwiftNamesTests {
    @Test func errorCodesUnderRealmSwiftsNames() throws {
        #expect(Realm.Error.Code.outOfDiskSpace == .diskFull)
        #expect(Realm.Error.Code.unsupportedFileFormatVersion == .unsupportedFileFormat)
        #expect(Realm.Error.Code.invalidInput == .invalidArgument)
        let lantern = NamedLantern()
        var caught = false
        do { try lantern.setValueThrowing(1, forKey: "brightness") } catch Realm.Error.invalidInput { caught = true }
        #expect(caught, "an unknown key is invalid input")
        caught = false
        do { throw Realm.Error(.unsupportedFileFormat, "a later format") } catch Realm.Error.unsupportedFileFormatVersion { caught = true }
        #expect(caught)
        caught = false
        do { throw Realm.Error(.diskFull, "no space") } catch Realm.Error.outOfDiskSpace { caught = true }
        #expect(caught)
        // Codes Strata never reports still exist, so that code handling them compiles.
        let never: [Realm.Error.Code] = [Realm.Error.fileFormatUpgradeRequired, Realm.Error.addressSpaceExhausted,
                                         Realm.Error.incompatibleHistories, Realm.Error.incompatibleSession]
        #expect(Set(never).count == 4 && never.allSatisfy { Realm.Error.Code.allCases.contains($0) })
    }

    @Test func blockTypesUnderRealmSwiftsNames() throws {
        var configuration = tempConfig("named-blocks")
        configuration.objectTypes = [NamedLantern.self]
        do {
            let realm = try Realm(configuration: configuration)
            var notifications = 0
            let block: NotificationBlock = { notification, _ in if notification == .didChange { notifications += 1 } }
            let token = realm.observe(block)
            try realm.write { realm.create(NamedLantern.self, value: ["label": "porch"]) }
            token.invalidate()
            #expect(notifications == 1)
        }
        final class Labels: @unchecked Sendable { var seen: [String] = [] }
        let labels = Labels()
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            let each: MigrationObjectEnumerateBlock = { old, new in
                labels.seen.append(old?["label"] as? String ?? "?")
                new?["lit"] = true
            }
            migration.enumerateObjects(ofType: "NamedLantern", each)
        }
        let realm = try Realm(configuration: configuration)
        #expect(labels.seen == ["porch"])
        #expect(realm.objects(NamedLantern.self).first?.lit == true)
    }

    @Test func realmLevelFreezeAndThaw() throws {
        let realm = try Realm(configuration: memoryConfig())
        let lantern = try realm.write { realm.create(NamedLantern.self, value: ["label": "gate"]) }
        let frozen = realm.freeze(lantern)
        #expect(frozen.isFrozen && frozen.label == "gate")
        let frozenAll = realm.freeze(realm.objects(NamedLantern.self))
        #expect(frozenAll.isFrozen && frozenAll.count == 1)
        try realm.write { lantern.label = "garden gate" }
        #expect(frozen.label == "gate" && frozenAll.first?.label == "gate")
        let thawed = try #require(realm.thaw(frozen))
        #expect(!thawed.isFrozen && thawed.label == "garden gate")
        #expect(realm.thaw(lantern) === lantern, "a live object thaws to itself")
    }

    /// Generic code over any keyed collection, as RealmSwift's protocol allows.
    static func move<M: RealmKeyedCollection>(_ map: M, from old: M.Key, to new: M.Key) {
        guard let value = map[old] else { return }
        map.removeObject(for: old)
        map.updateValue(value, forKey: new)
    }
    static func summary<M: RealmKeyedCollection>(_ map: M) -> String {
        "\(map.count) \(map.keys) \(map.values) managed \(map.realm != nil) frozen \(map.isFrozen)"
    }

    @Test func genericCodeOverKeyedCollections() throws {
        let realm = try Realm(configuration: memoryConfig())
        let lantern = try realm.write { realm.create(NamedLantern.self, value: ["label": "hall", "hours": ["mon": 3, "tue": 5]]) }
        try realm.write { Self.move(lantern.hours, from: "mon", to: "wed") }
        #expect(Self.summary(lantern.hours) == "2 [\"tue\", \"wed\"] [5, 3] managed true frozen false")
        let frozen = lantern.hours.freeze()
        #expect(Self.summary(frozen) == "2 [\"tue\", \"wed\"] [5, 3] managed true frozen true")
        #expect(frozen.thaw()?.contains { $0 == "wed" && $1 == 3 } == true)
        try realm.write { lantern.hours.removeAll() }
        #expect(!lantern.hours.isInvalidated && Self.summary(lantern.hours) == "0 [] [] managed true frozen false")
        let unmanaged = Map<String, Int>()
        unmanaged.updateValue(1, forKey: "a")
        Self.move(unmanaged, from: "a", to: "b")
        #expect(Self.summary(unmanaged) == "1 [\"b\"] [1] managed false frozen false")
    }

    @Test func configurationsCompareByWhatTheyOpen() {
        let url = URL(fileURLWithPath: "/tmp/lanterns.realm")
        var a = Realm.Configuration(fileURL: url)
        var b = Realm.Configuration(fileURL: url)
        b.migrationBlock = { _, _ in }  // blocks are not compared
        #expect(a == b)
        b.schemaVersion = 3
        #expect(a != b)
        b.schemaVersion = 0
        b.readOnly = true
        #expect(a != b)
        b.readOnly = false
        a.encryptionKey = Data(repeating: 7, count: 64)
        #expect(a != b)
        #expect(Realm.Configuration(inMemoryIdentifier: "x") == Realm.Configuration(inMemoryIdentifier: "x"))
        #expect(Realm.Configuration(inMemoryIdentifier: "x") != Realm.Configuration(inMemoryIdentifier: "y"))
        let text = a.description
        #expect(text.hasPrefix("Realm.Configuration {") && text.contains("fileURL = /tmp/lanterns.realm;"))
        #expect(text.contains("encryptionKey = (set);") && !text.contains("7, 7"), "the key itself is never shown")
    }
}
