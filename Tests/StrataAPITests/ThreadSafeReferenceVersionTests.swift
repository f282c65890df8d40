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

/// A realm of a configuration held open on a thread of its own, reading the version that was
/// newest when it was made, until `close()`.
final class RealmOnAnotherThread: @unchecked Sendable {
    // @unchecked: `realm` is only touched on `worker`'s thread.
    private let worker = RunLoopThread()
    private var realm: Realm?

    init(_ configuration: Realm.Configuration) {
        worker.sync { [self] in
            realm = try? Realm(configuration: configuration)
            _ = realm?.objects(VersionedLamp.self).count
        }
    }

    /// What `body` returns, run with the realm on its thread; nil when it could not be opened.
    func read<T: Sendable>(_ body: @escaping @Sendable (Realm) -> T) -> T? {
        let result = Mutex<T?>(nil)
        worker.sync { [self] in
            guard let realm else { return }
            let value = body(realm)
            result.withLock { $0 = value }
        }
        return result.withLock { $0 }
    }

    func close() {
        worker.sync { [self] in realm = nil }
        worker.stop()
    }
}

@Suite("ThreadSafeReference versions")
struct ThreadSafeReferenceVersionTests {
    @Test func aRealmAtOrPastTheReferencesVersionStaysWhereItIs() throws {
        let config = tempConfig("tsr-stays")
        let realm = try Realm(configuration: config)
        let lamp = try realm.write { realm.create(VersionedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        let other = RealmOnAnotherThread(config)  // reads the reference's version
        defer { other.close() }
        try realm.write { lamp.name = "copper" }
        let names = other.read { other in
            let resolved = other.resolve(reference)?.name ?? "nil"
            other.refresh()
            return [resolved, other.objects(VersionedLamp.self).first?.name ?? "nil"]
        }
        #expect(names == ["brass", "copper"], "resolved where the realm was, then refreshed")
    }

    @Test func aRealmOlderThanTheReferenceMovesOn() throws {
        let config = tempConfig("tsr-moves")
        let realm = try Realm(configuration: config)
        let other = RealmOnAnotherThread(config)  // reads the version before the lamp
        defer { other.close() }
        let lamp = try realm.write { realm.create(VersionedLamp.self, value: ["name": "brass"]) }
        let reference = ThreadSafeReference(to: lamp)
        #expect(other.read { $0.resolve(reference)?.name } == "brass")
    }

    @Test func aReferenceMadeInAWriteResolvesOnceTheWriteCommitted() throws {
        let config = tempConfig("tsr-in-write")
        let realm = try Realm(configuration: config)
        let other = RealmOnAnotherThread(config)  // reads the version the write begins at
        defer { other.close() }
        let reference = try realm.write {
            ThreadSafeReference(to: realm.create(VersionedLamp.self, value: ["name": "new"]))
        }
        #expect(other.read { $0.resolve(reference)?.name } == "new")
    }
}
