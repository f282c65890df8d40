// Resolving a ThreadSafeReference moves the target realm only when it reads an older version than
// the reference's, as in Realm: a realm already at that version or past it stays where it is.
import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

final class VersionedLamp: Object {
    @Persisted var name: String
}

@Suite("ThreadSafeReference versions")
struct ThreadSafeReferenceVersionTests {
    @Test func aRealmAtOrPastTheReferencesVersionStaysWhereItIs() throws {
        let config = tempConfig("tsr-stays")
        let realm = try Realm(configuration: config)
        let lamp = try realm.write { realm.create(VersionedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        let worker = RunLoopThread()
        defer { worker.stop() }
        final class Held: @unchecked Sendable { var realm: Realm? }
        let held = Held()
        worker.sync { held.realm = try? Realm(configuration: config) }  // reads the reference's version
        try realm.write { lamp.name = "copper" }
        let names = Mutex<[String]>([])
        worker.sync {
            guard let other = held.realm else { return }
            names.withLock { $0.append(other.resolve(reference)?.name ?? "nil") }
            other.refresh()
            names.withLock { $0.append(other.objects(VersionedLamp.self).first?.name ?? "nil") }
            held.realm = nil
        }
        #expect(names.withLock { $0 } == ["brass", "copper"], "resolved where the realm was, then refreshed")
    }

    @Test func aRealmOlderThanTheReferenceMovesOn() throws {
        let config = tempConfig("tsr-moves")
        let realm = try Realm(configuration: config)
        let worker = RunLoopThread()
        defer { worker.stop() }
        final class Held: @unchecked Sendable { var realm: Realm? }
        let held = Held()
        worker.sync {
            held.realm = try? Realm(configuration: config)
            _ = held.realm?.objects(VersionedLamp.self).count  // reads the version before the lamp
        }
        let lamp = try realm.write { realm.create(VersionedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        let name = Mutex<String?>(nil)
        worker.sync {
            name.withLock { $0 = held.realm?.resolve(reference)?.name }
            held.realm = nil
        }
        #expect(name.withLock { $0 } == "brass")
    }

    @Test func aReferenceMadeInAWriteResolvesOnceTheWriteCommitted() throws {
        let config = tempConfig("tsr-in-write")
        let realm = try Realm(configuration: config)
        let worker = RunLoopThread()
        defer { worker.stop() }
        final class Held: @unchecked Sendable { var realm: Realm? }
        let held = Held()
        worker.sync {
            held.realm = try? Realm(configuration: config)
            _ = held.realm?.objects(VersionedLamp.self).count  // reads the version the write begins at
        }
        let reference = try realm.write {
            ThreadSafeReference(to: realm.create(VersionedLamp.self, value: ["name": "new"]))
        }
        let name = Mutex<String?>(nil)
        worker.sync {
            name.withLock { $0 = held.realm?.resolve(reference)?.name }
            held.realm = nil
        }
        #expect(name.withLock { $0 } == "new")
    }
}
