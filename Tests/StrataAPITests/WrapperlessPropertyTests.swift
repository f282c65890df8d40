// A collection or boxed value declared without `@Persisted`, as RealmSwift's older models declared
// them, would look stored and lose what is written to it: the class is refused with a typed error
// before anything is written, unless it names the property in `ignoredProperties()`.
import Foundation
import Strata
import Testing

final class WrapperlessPup: Object {
    @Persisted var name = ""
}

final class WrapperlessKennel: Object {
    @Persisted var name = ""
    let pups = List<WrapperlessPup>()
}

final class WrapperlessScale: Object {
    @Persisted var label = ""
    let weight = RealmOptional<Int>()
}

final class WrapperlessTags: Object {
    let tags = MutableSet<String>()
}

class WrapperlessBase: Object {
    @Persisted var id = 0
    let notes = Map<String, String>()
}

final class WrapperlessDerived: WrapperlessBase {
    @Persisted var extra = ""
}

final class WrapperlessScratchpad: Object {
    @Persisted var title = ""
    let recent = List<String>()  // in memory only, as the class says below
    var hits = 0  // plain Swift state: never stored, never refused
    override class func ignoredProperties() -> [String] { ["recent"] }
}

@Suite("Properties declared without @Persisted")
struct WrapperlessPropertyTests {
    private func open(_ types: [Object.Type]) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = types
        return try Realm(configuration: configuration)
    }

    private func refusal(_ types: [Object.Type]) -> Realm.Error? {
        do { _ = try open(types); return nil } catch { return error as? Realm.Error }
    }

    @Test func aListBesidePersistedPropertiesIsRefused() throws {
        let error = try #require(refusal([WrapperlessKennel.self, WrapperlessPup.self]))
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("'WrapperlessKennel.pups' is a List<WrapperlessPup> declared without @Persisted"))
        #expect(error.message.contains("'@Persisted var pups: List<WrapperlessPup>'"))
    }

    @Test func everyBoxedKindIsRefused() throws {
        #expect(refusal([WrapperlessScale.self])?.message.contains("'WrapperlessScale.weight' is a RealmOptional<Int>") == true)
        #expect(refusal([WrapperlessTags.self])?.message.contains("'WrapperlessTags.tags' is a MutableSet<String>") == true)
        // A superclass's declaration is found through the subclass.
        #expect(refusal([WrapperlessDerived.self])?.message.contains("'WrapperlessDerived.notes' is a Map<String, String>") == true)
    }

    @Test func theRefusalComesAtOpenAndLeavesTheFileUsable() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wrapperless-\(UUID().uuidString).realm")
        defer { try? FileManager.default.removeItem(at: url) }
        var configuration = Realm.Configuration(fileURL: url)
        configuration.objectTypes = [WrapperlessKennel.self, WrapperlessPup.self]
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
        configuration.objectTypes = [WrapperlessPup.self]
        let realm = try Realm(configuration: configuration)
        #expect(realm.schema["WrapperlessKennel"] == nil && realm.objects(WrapperlessPup.self).isEmpty)
    }

    @Test func anIgnoredListStaysInMemory() throws {
        let realm = try open([WrapperlessScratchpad.self])
        #expect(realm.schema["WrapperlessScratchpad"]?.properties.map(\.name) == ["title"])
        let pad = WrapperlessScratchpad()
        pad.recent.append("kept in memory")
        pad.hits = 3
        try realm.write { realm.add(pad) }
        #expect(pad.recent.count == 1 && pad.hits == 3)
    }
}
