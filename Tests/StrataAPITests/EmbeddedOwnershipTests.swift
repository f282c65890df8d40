// An embedded object has exactly one owner. A managed embedded object given as a value to
// `create` or `init(value:)` is copied, so the new parent owns its own; linking one that already
// has its owner anywhere else (a to-one property, a list, a map) stops with a `Strata:` message,
// as RealmSwift raises; setting it again on the property that owns it changes nothing. Before,
// such a link was stored: two parents shared one object, deleting either deleted it under the
// other, and the file failed verification.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class OwnershipParent: Object {
    @Persisted var name = ""
    @Persisted var address: OwnershipAddress?
    @Persisted var history: List<OwnershipAddress>
    @Persisted var byLabel: Map<String, OwnershipAddress?>
}

final class OwnershipAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var detail: OwnershipNote?
    @Persisted var notes: List<OwnershipNote>
}

final class OwnershipNote: EmbeddedObject {
    @Persisted var text = ""
}

@Suite("Embedded objects have one owner")
struct EmbeddedOwnershipTests {
    /// A new file for this suite's classes (exit tests call it too: they capture nothing).
    static func configuration(_ name: String) -> Realm.Configuration {
        var configuration = tempConfig(name)
        configuration.objectTypes = [OwnershipParent.self, OwnershipAddress.self, OwnershipNote.self]
        return configuration
    }

    private static var sample: [String: Any] { [
        "name": "first",
        "address": ["street": "Main", "detail": ["text": "door 2"], "notes": [["blue"], ["red"]]] as [String: Any],
        "history": [["street": "Old"], ["street": "Older"]],
        "byLabel": ["work": ["street": "Dock"]],
    ] }

    private static func problems(_ configuration: Realm.Configuration) throws -> [FileProblem] {
        let file = try StrataFile(path: try #require(configuration.fileURL).path)
        defer { file.close() }
        return file.verify()
    }

    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func creatingFromAManagedParentCopiesEveryEmbeddedObject() throws {
        let configuration = Self.configuration("copy")
        let realm = try Realm(configuration: configuration)
        let (original, copy) = try realm.write {
            let original = realm.create(OwnershipParent.self, value: Self.sample)
            return (original, realm.create(OwnershipParent.self, value: original))
        }
        let address = try #require(original.address), copied = try #require(copy.address)
        #expect(!copied.isSameObject(as: address))
        #expect(copied.street == "Main" && copied.detail?.text == "door 2" && copied.notes.map(\.text) == ["blue", "red"])
        let addressDetail: OwnershipNote = try #require(address.detail)
        #expect(!(try #require(copied.detail)).isSameObject(as: addressDetail))
        #expect(copy.history.map(\.street) == ["Old", "Older"])
        #expect(!copy.history[0].isSameObject(as: original.history[0]))
        #expect(copy.byLabel["work"]??.street == "Dock")
        #expect(realm.objects(OwnershipAddress.self).count == 8)  // 4 addresses per parent
        #expect(try Self.problems(configuration).isEmpty)

        // Each parent owns its own: changing or deleting the copy leaves the original as it was.
        try realm.write { copied.street = "Copy Lane" }
        #expect(address.street == "Main")
        try realm.write { realm.delete(copy) }
        #expect(!address.isInvalidated && address.street == "Main" && address.notes.count == 2)
        #expect(original.history.map(\.street) == ["Old", "Older"] && original.byLabel["work"]??.street == "Dock")
        #expect(try Self.problems(configuration).isEmpty)
    }

    @Test func aManagedEmbeddedObjectInAValueIsCopied() throws {
        let configuration = Self.configuration("value")
        let realm = try Realm(configuration: configuration)
        let first = try realm.write { realm.create(OwnershipParent.self, value: Self.sample) }
        let address = try #require(first.address)
        let second = try realm.write {
            realm.create(OwnershipParent.self, value: ["name": "second", "address": address, "history": [address, first.history[1]]] as [String: Any])
        }
        #expect(second.address?.street == "Main" && second.address?.notes.count == 2)
        #expect(!(try #require(second.address)).isSameObject(as: address))
        #expect(second.history.map(\.street) == ["Main", "Older"])
        // init(value:) copies as well: the unmanaged parent holds an unmanaged copy.
        let unmanaged = OwnershipParent(value: ["address": address])
        #expect(unmanaged.address?.realm == nil && unmanaged.address?.street == "Main")
        try realm.write { realm.add(unmanaged) }
        try realm.write { realm.delete(second) }
        #expect(!address.isInvalidated && first.history.count == 2)
        #expect(try Self.problems(configuration).isEmpty)
    }

    @Test func aManagedEmbeddedObjectIsCopiedIntoAnotherRealm() throws {
        let source = try Realm(configuration: Self.configuration("source"))
        let original = try source.write { source.create(OwnershipParent.self, value: Self.sample) }
        let targetConfiguration = Self.configuration("target")
        let target = try Realm(configuration: targetConfiguration)
        let copy = try target.write { target.create(OwnershipParent.self, value: original) }
        #expect(copy.realm == target && copy.address?.realm == target)
        #expect(copy.address?.detail?.text == "door 2" && copy.history.count == 2 && copy.byLabel["work"]??.street == "Dock")
        #expect(try Self.problems(targetConfiguration).isEmpty)
    }

    @Test func settingTheOwnersOwnEmbeddedObjectAgainChangesNothing() throws {
        let configuration = Self.configuration("same")
        let realm = try Realm(configuration: configuration)
        let parent = try realm.write { realm.create(OwnershipParent.self, value: Self.sample) }
        let address = try #require(parent.address)
        try realm.write { parent.address = address }
        #expect(!address.isInvalidated && parent.address?.isSameObject(as: address) == true)
        #expect(realm.objects(OwnershipAddress.self).count == 4)
        #expect(try Self.problems(configuration).isEmpty)
    }

    @Test func linkingAnOwnedEmbeddedObjectFromAnotherParentStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: EmbeddedOwnershipTests.configuration("other-parent"))
            try realm.write {
                let first = realm.create(OwnershipParent.self, value: ["address": ["street": "Main"]])
                let second = realm.create(OwnershipParent.self)
                second.address = first.address
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: this embedded 'OwnershipAddress' object is already managed and has its owner"))
    }

    @Test func appendingAnOwnedEmbeddedObjectToAListStops() async throws {
        let appended = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: EmbeddedOwnershipTests.configuration("append"))
            try realm.write {
                let parent = realm.create(OwnershipParent.self, value: ["history": [["street": "Old"]]])
                parent.history.append(parent.history[0])
            }
        }
        #expect(Self.stopMessage(appended).contains("Strata: invalidArgument: this embedded 'OwnershipAddress' object is already managed"))
        let replaced = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: EmbeddedOwnershipTests.configuration("replace"))
            try realm.write {
                let parent = realm.create(OwnershipParent.self, value: ["address": ["street": "Main"], "history": [["street": "Old"]]])
                parent.history[0] = parent.address!
            }
        }
        #expect(Self.stopMessage(replaced).contains("Strata: invalidArgument: this embedded 'OwnershipAddress' object is already managed"))
    }

    @Test func storingAnOwnedEmbeddedObjectInAMapStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: EmbeddedOwnershipTests.configuration("map"))
            try realm.write {
                let parent = realm.create(OwnershipParent.self, value: ["address": ["street": "Main"]])
                parent.byLabel["home"] = parent.address
            }
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: this embedded 'OwnershipAddress' object is already managed"))
    }
}
