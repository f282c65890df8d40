// A ThreadSafeReference resolved in a realm that reads nothing yet (just opened, or invalidated)
// shows the version the reference was made at, as in Realm: the resolved value and everything
// else read from that realm stay at that version until it refreshes.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class PinnedLamp: Object {
    @Persisted var name: String
}

final class PinnedShade: Object {
    @Persisted var colour: String
}

@Suite("ThreadSafeReference resolved at its own version")
struct ThreadSafeReferencePinnedVersionTests {
    private func config(_ name: String, _ types: [ObjectBase.Type] = [PinnedLamp.self]) -> Realm.Configuration {
        var config = tempConfig(name)
        config.objectTypes = types
        return config
    }

    @Test func resultsShowTheReferencesVersionUntilRefresh() throws {
        let config = config("tsr-pinned-results")
        let realm = try Realm(configuration: config)
        let results = realm.objects(PinnedLamp.self).filter("name != 'C'").sorted(byKeyPath: "name", ascending: false)
        let reference = ThreadSafeReference(to: results)
        try realm.write {
            for name in ["A", "B", "C", "D"] { realm.create(PinnedLamp.self, value: ["name": name]) }
        }
        #expect(Array(results.map(\.name)) == ["D", "B", "A"])
        let seen = LockedBox<[[String]]>([])
        try runOnNewThread {
            guard let other = try? Realm(configuration: config), let resolved = other.resolve(reference) else { return }
            let all = other.objects(PinnedLamp.self)
            var views = [Array(resolved.map(\.name)), Array(all.map(\.name))]
            other.refresh()
            views += [Array(resolved.map(\.name)), ["\(all.count)"]]
            seen.set(views)
        }
        #expect(seen.get() == [[], [], ["D", "B", "A"], ["4"]], "the reference's version, then the newest after refresh()")
    }

    @Test func anObjectDeletedAfterTheReferenceResolvesUntilRefresh() throws {
        let config = config("tsr-pinned-deleted")
        let realm = try Realm(configuration: config)
        let lamp = try realm.write { realm.create(PinnedLamp.self, value: ["name": "brass"]) }
        let before = ThreadSafeReference(to: lamp)
        let after = ThreadSafeReference(to: lamp)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config) else { return }
            try? other.write { other.deleteAll() }
        }
        let seen = LockedBox<[String]>([])
        try runOnNewThread {
            guard let other = try? Realm(configuration: config) else { return }
            let first = other.resolve(before)?.name ?? "nil"
            other.refresh()
            seen.set([first, other.resolve(after)?.name ?? "nil"])
        }
        #expect(seen.get() == ["brass", "nil"], "there at the reference's version, gone after refresh()")
    }

    @Test func anInvalidatedRealmReadsTheReferencesVersion() throws {
        let config = config("tsr-pinned-invalidated")
        let realm = try Realm(configuration: config)
        let lamp = try realm.write { realm.create(PinnedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        try runOnNewThread {
            guard let other = try? Realm(configuration: config) else { return }
            try? other.write { other.objects(PinnedLamp.self).first?.name = "copper" }
        }
        realm.invalidate()
        let resolved = realm.resolve(reference)
        #expect(resolved?.name == "brass")
        realm.refresh()
        #expect(resolved?.name == "copper")
    }

    @Test func aClassAddedAfterTheReferenceIsAbsentUntilRefresh() throws {
        let lampsOnly = config("tsr-pinned-tables")
        let withShades = { var c = lampsOnly; c.objectTypes = [PinnedLamp.self, PinnedShade.self]; return c }()
        let realm = try Realm(configuration: lampsOnly)
        let lamp = try realm.write { realm.create(PinnedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        let failure = FailureBox()
        try runOnNewThread {  // adds PinnedShade's table
            do {
                let other = try Realm(configuration: withShades)
                try other.write { other.create(PinnedShade.self, value: ["colour": "green"]) }
            } catch { failure.set("adding the table: \(error)") }
        }
        let seen = LockedBox<[String]>([])
        try runOnNewThread {
            // Opened knowing both classes at the newest version, then moved back by the reference.
            do {
                let other = try Realm(configuration: withShades)
                let name = other.resolve(reference)?.name ?? "nil"
                let shadesBefore = other.objects(PinnedShade.self).count
                other.refresh()
                try other.write { other.create(PinnedShade.self, value: ["colour": "red"]) }
                seen.set([name, "\(shadesBefore)", "\(other.objects(PinnedShade.self).count)"])
            } catch { failure.set("resolving: \(error)") }
        }
        #expect(failure.value == nil)
        #expect(seen.get() == ["brass", "0", "2"])
    }
}
