// Freezing or thawing what no realm manages, or an object that was deleted or invalidated, is
// refused as RealmSwift refuses it: the throwing forms throw, the others stop with a `Strata:`
// message. Before, an unmanaged object or collection came back unchanged, not frozen, and a
// deleted object froze into an object that did not exist.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class FrozenLamp: Object {
    @Persisted var watts = 0
    @Persisted var bulbs: List<Int>
    @Persisted var colours: MutableSet<String>
    @Persisted var notes: Map<String, String>
}

@Suite("Freezing what cannot be frozen")
struct FreezeMisuseTests {
    static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [FrozenLamp.self]
        return try Realm(configuration: configuration)
    }

    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func theThrowingFormsThrow() throws {
        let lamp = FrozenLamp()
        #expect { try lamp.freezeThrowing() } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument && "\($0)".contains("Unmanaged objects cannot be frozen. Add this 'FrozenLamp' to a realm first")
        }
        #expect { try lamp.thawThrowing() } throws: {
            ($0 as? Realm.Error)?.code == .invalidArgument && "\($0)".contains("Unmanaged objects cannot be thawed. Add this 'FrozenLamp' to a realm first")
        }
        let realm = try Self.realm("freeze-deleted-throws")
        let stored = try realm.write { realm.create(FrozenLamp.self, value: ["watts": 40]) }
        try realm.write { realm.delete(stored) }
        #expect { try stored.freezeThrowing() } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
        let other = try realm.write { realm.create(FrozenLamp.self, value: ["watts": 60]) }
        realm.invalidate()
        #expect { try other.freezeThrowing() } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
    }

    @Test func aManagedObjectStillFreezesAndThaws() throws {
        let realm = try Self.realm("freeze-managed")
        let stored = try realm.write { realm.create(FrozenLamp.self, value: ["watts": 40, "bulbs": [1, 2]]) }
        let frozen = stored.freeze()
        #expect(frozen.isFrozen && frozen.watts == 40)
        #expect(frozen.bulbs.freeze().isFrozen)
        #expect(frozen.thaw()?.isFrozen == false)
        #expect(stored.thaw() === stored, "a live object thaws to itself")
    }

    @Test func freezingAnUnmanagedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FrozenLamp().freeze()
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: Unmanaged objects cannot be frozen. Add this 'FrozenLamp' to a realm first"))
    }

    @Test func thawingAnUnmanagedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FrozenLamp().thaw()
        }
        #expect(Self.stopMessage(result).contains("Strata: invalidArgument: Unmanaged objects cannot be thawed. Add this 'FrozenLamp' to a realm first"))
    }

    @Test func freezingOrThawingAnUnmanagedCollectionStops() async throws {
        let list = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Int>().freeze()
        }
        #expect(Self.stopMessage(list).contains("Strata: invalidArgument: Unmanaged collections cannot be frozen. This List<Int> is unmanaged"))
        let set = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MutableSet<String>().thaw()
        }
        #expect(Self.stopMessage(set).contains("Strata: invalidArgument: Unmanaged collections cannot be thawed. This MutableSet<String> is unmanaged"))
        let map = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Map<String, String>().freeze()
        }
        #expect(Self.stopMessage(map).contains("Strata: invalidArgument: Unmanaged collections cannot be frozen. This Map<String, String> is unmanaged"))
    }

    @Test func freezingADeletedObjectStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try FreezeMisuseTests.realm("freeze-deleted")
            let stored = try realm.write { realm.create(FrozenLamp.self) }
            try realm.write { realm.delete(stored) }
            _ = stored.freeze()
        }
        #expect(Self.stopMessage(result).contains("Strata: objectInvalidated: this 'FrozenLamp' object was deleted and cannot be frozen"))
    }
}
