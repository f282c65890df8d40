// `create(_:value:)` takes an object of another realm instance as a value, as RealmSwift does: it
// copies the object and every object of that realm it links to (to-one links, lists, sets, maps),
// each once, cycles included; with an update policy, a copy whose primary key exists updates that
// object. `add` still refuses an object that links into another realm.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class CrossRealmDog: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var age = 0
    @Persisted var friend: CrossRealmDog?
    @Persisted var pack: List<CrossRealmDog>
    @Persisted var circle: MutableSet<CrossRealmDog>
    @Persisted var byName: Map<String, CrossRealmDog?>
}

@Suite("create copies objects of another realm")
struct CreateFromAnotherRealmTests {
    private static func realm(_ name: String) throws -> (Realm, Realm.Configuration) {
        var configuration = tempConfig(name)
        configuration.objectTypes = [CrossRealmDog.self]
        return (try Realm(configuration: configuration), configuration)
    }

    /// In `source`: rex, whose friend is fido, whose friend is rex (a cycle); rex's pack, circle
    /// and map hold fido and bo.
    private static func pack(in source: Realm) throws -> CrossRealmDog {
        try source.write {
            let rex = source.create(CrossRealmDog.self, value: ["id": "rex", "age": 3])
            let fido = source.create(CrossRealmDog.self, value: ["id": "fido", "age": 5])
            let bo = source.create(CrossRealmDog.self, value: ["id": "bo", "age": 1])
            rex.friend = fido
            fido.friend = rex
            rex.pack.append(objectsIn: [fido, bo])
            rex.circle.insert(objectsIn: [fido, bo])
            rex.byName["fido"] = fido
            rex.byName["bo"] = bo
            return rex
        }
    }

    @Test func anObjectAndEverythingItLinksAreCopied() throws {
        let (source, _) = try Self.realm("source")
        let rex = try Self.pack(in: source)
        let (target, configuration) = try Self.realm("target")
        let copy = try target.write { target.create(CrossRealmDog.self, value: rex) }
        #expect(copy.realm == target && copy.id == "rex" && copy.age == 3)
        #expect(target.objects(CrossRealmDog.self).map(\.id).sorted() == ["bo", "fido", "rex"])
        let fido = try #require(copy.friend)
        #expect(fido.realm == target && fido.age == 5)
        // The cycle closes on the copy, and every link reaches one copy per object.
        #expect(fido.friend?.isSameObject(as: copy) == true)
        #expect(copy.pack.map(\.id) == ["fido", "bo"] && copy.pack[0].isSameObject(as: fido))
        #expect(Set(copy.circle.map(\.id)) == ["fido", "bo"] && copy.byName["bo"]??.isSameObject(as: copy.pack[1]) == true)
        // The source is untouched.
        #expect(source.objects(CrossRealmDog.self).count == 3 && rex.friend?.friend?.isSameObject(as: rex) == true)
        let file = try StrataFile(path: try #require(configuration.fileURL).path)
        defer { file.close() }
        #expect(file.verify().isEmpty)
    }

    @Test func withAnUpdatePolicyExistingObjectsAreUpdated() throws {
        let (source, _) = try Self.realm("update-source")
        let rex = try Self.pack(in: source)
        let (target, _) = try Self.realm("update-target")
        try target.write { target.create(CrossRealmDog.self, value: ["id": "fido", "age": 40]) }
        try target.write { target.create(CrossRealmDog.self, value: rex, update: .modified) }
        #expect(target.objects(CrossRealmDog.self).count == 3)
        #expect(target.object(ofType: CrossRealmDog.self, forPrimaryKey: "fido")?.age == 5)
        #expect(target.object(ofType: CrossRealmDog.self, forPrimaryKey: "rex")?.friend?.id == "fido")
    }

    @Test func addingAnObjectThatLinksIntoAnotherRealmIsRefused() throws {
        let (source, _) = try Self.realm("add-source")
        let rex = try Self.pack(in: source)
        let (target, _) = try Self.realm("add-target")
        let stray = CrossRealmDog()
        stray.id = "stray"
        stray.friend = rex
        #expect {
            try target.write { target.add(stray) }
        } throws: { error in
            (error as? Realm.Error)?.code == .wrongRealm
        }
        #expect(target.objects(CrossRealmDog.self).isEmpty)
    }
}
