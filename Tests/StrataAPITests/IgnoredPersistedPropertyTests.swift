// A model ported from RealmSwift's `@objc dynamic` style marks every property `@Persisted`,
// those its `ignoredProperties()` names included: they must stay what Realm makes them, plain
// stored properties of the instance that the realm never stores, lists or reports.
import Foundation
import Strata
import StrataTestSupport
import Testing

/// A model ported mechanically: `tmpID` and `draft` were `@objc dynamic`, and ignored.
final class PortedVisitor: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var tmpID = 0
    @Persisted var draft: List<String>
    override class func ignoredProperties() -> [String] { ["tmpID", "draft"] }
}

@Suite("Ignored @Persisted properties")
struct IgnoredPersistedPropertyTests {
    private func configuration(_ name: String) -> Realm.Configuration {
        var configuration = tempConfig(name)
        configuration.objectTypes = [PortedVisitor.self]
        return configuration
    }

    @Test func theSchemaAndDescriptionLeaveThemOut() throws {
        let realm = try Realm(configuration: configuration("schema"))
        let schema = try #require(realm.schema["PortedVisitor"])
        #expect(schema.properties.map(\.name) == ["id", "name"])
        #expect(PortedVisitor().objectSchema.properties.map(\.name) == ["id", "name"])
        let visitor = PortedVisitor(value: ["id": 1, "name": "Ann"])
        visitor.tmpID = 42
        #expect(!visitor.description.contains("tmpID"))
        #expect(!visitor.description.contains("draft"))
        try realm.write { realm.add(visitor) }
        #expect(!visitor.description.contains("tmpID"))
    }

    @Test func aManagedObjectKeepsTheValueOnItsInstanceOnly() throws {
        let configuration = configuration("instance")
        let realm = try Realm(configuration: configuration)
        let visitor = PortedVisitor(value: ["id": 1, "name": "Ann"])
        visitor.tmpID = 7
        visitor.draft.append("note")
        try realm.write { realm.add(visitor) }
        #expect(visitor.tmpID == 7)
        #expect(Array(visitor.draft) == ["note"])
        // Written outside a write, as any plain property can be.
        visitor.tmpID = 8
        #expect(visitor.tmpID == 8)
        try realm.write { visitor.tmpID = 9; visitor.name = "Bea" }
        #expect(visitor.tmpID == 9)
        let stored = try onAnotherThread { () -> [String] in
            let other = try Realm(configuration: configuration)
            let read = try #require(other.object(ofType: PortedVisitor.self, forPrimaryKey: 1))
            return [read.name, String(read.tmpID), String(read.draft.count)]
        }
        #expect(stored == ["Bea", "0", "0"])
    }

    @Test func initWithValueDoesNotStoreThem() throws {
        let configuration = configuration("value")
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.create(PortedVisitor.self, value: ["id": 2, "name": "Cy", "tmpID": 5])
            realm.add(PortedVisitor(value: ["id": 3, "name": "Di", "tmpID": 6]))
        }
        let stored = try onAnotherThread { () -> [Int] in
            let other = try Realm(configuration: configuration)
            return other.objects(PortedVisitor.self).sorted(byKeyPath: "id").map(\.tmpID)
        }
        #expect(stored == [0, 0])
    }

    @Test func settingOneIsNoChange() throws {
        let realm = try Realm(configuration: configuration("notify"))
        let visitor = PortedVisitor(value: ["id": 1, "name": "Ann"])
        try realm.write { realm.add(visitor) }
        var updates: [[Int]] = []
        let token = realm.objects(PortedVisitor.self).observe { change in
            if case .update(_, _, _, let modifications) = change { updates.append(modifications) }
        }
        defer { token.invalidate() }
        try realm.write { visitor.tmpID = 3 }
        #expect(updates.isEmpty)
    }
}
