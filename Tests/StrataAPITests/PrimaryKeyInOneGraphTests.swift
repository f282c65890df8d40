// Two unmanaged objects with one primary key, reached by one `add` (one links to the other): with
// the `.error` policy the write fails with `.duplicatePrimaryKey`; with an update policy they are
// one object. Before, the linked one was stored first and the outer one stored a second row with
// the same key, overwriting the key's index entry: two objects, one key, and a file that failed
// verification.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class KeyedNode: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var label = ""
    @Persisted var next: KeyedNode?
}

@Suite("One primary key twice in one add")
struct PrimaryKeyInOneGraphTests {
    private static func realm(_ name: String) throws -> (Realm, String) {
        var configuration = tempConfig(name)
        configuration.objectTypes = [KeyedNode.self]
        return (try Realm(configuration: configuration), try #require(configuration.fileURL).path)
    }

    private static func pair(linkedBack: Bool) -> KeyedNode {
        let outer = KeyedNode(value: ["id": "a", "label": "outer"])
        let inner = KeyedNode(value: ["id": "a", "label": "inner"])
        outer.next = inner
        if linkedBack { inner.next = outer }
        return outer
    }

    @Test(arguments: [false, true])
    func withTheErrorPolicyTheWriteFails(linkedBack: Bool) throws {
        let (realm, path) = try Self.realm("error-\(linkedBack)")
        #expect {
            try realm.write { realm.add(Self.pair(linkedBack: linkedBack)) }
        } throws: { error in
            (error as? Realm.Error)?.code == .duplicatePrimaryKey
        }
        #expect(realm.objects(KeyedNode.self).isEmpty)
        let file = try StrataFile(path: path)
        defer { file.close() }
        #expect(file.verify().isEmpty)
    }

    @Test(arguments: [false, true])
    func withAnUpdatePolicyTheyAreOneObject(linkedBack: Bool) throws {
        let (realm, path) = try Self.realm("update-\(linkedBack)")
        try realm.write { realm.add(Self.pair(linkedBack: linkedBack), update: .modified) }
        #expect(realm.objects(KeyedNode.self).count == 1)
        let node = try #require(realm.object(ofType: KeyedNode.self, forPrimaryKey: "a"))
        #expect(node.next?.isSameObject(as: node) == true)
        let file = try StrataFile(path: path)
        defer { file.close() }
        #expect(file.verify().isEmpty)
    }
}
