// Freezing inside a write transaction, as in RealmSwift: the frozen copy holds what the write
// found (the write's own changes are not committed yet); an object the write created has nothing
// to freeze, which is a typed error from the throwing form and a stop from Realm's form.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class FrozenLedger: Object {
    @Persisted var owner = ""
    @Persisted var balance = 0
    @Persisted var entries: List<Int>
}

@Suite("Freezing inside a write")
struct FreezeInsideWriteTests {
    private func ledger() throws -> (Realm, FrozenLedger) {
        let realm = try Realm(configuration: memoryConfig())
        let ledger = try realm.write { realm.create(FrozenLedger.self, value: ["owner": "ann", "balance": 10, "entries": [10]]) }
        return (realm, ledger)
    }

    @Test func anObjectFrozenInAWriteHoldsItsValuesBeforeTheWrite() throws {
        let (realm, ledger) = try ledger()
        var frozen: FrozenLedger?
        var frozenEntries: List<Int>?
        try realm.write {
            ledger.balance = 25
            ledger.entries.append(15)
            frozen = ledger.freeze()
            frozenEntries = ledger.entries.freeze()
        }
        #expect(frozen?.isFrozen == true)
        #expect(frozen?.balance == 10)
        #expect(frozenEntries.map(Array.init) == [10])
        #expect(ledger.balance == 25)
    }

    @Test func aRealmFrozenInAWriteLacksTheWritesObjects() throws {
        let (realm, _) = try ledger()
        var frozenRealm: Realm?
        var frozenResults: Results<FrozenLedger>?
        try realm.write {
            realm.create(FrozenLedger.self, value: ["owner": "bob"])
            frozenRealm = realm.freeze()
            frozenResults = realm.objects(FrozenLedger.self).freeze()
        }
        #expect(frozenRealm?.objects(FrozenLedger.self).map(\.owner) == ["ann"])
        #expect(frozenResults?.map(\.owner) == ["ann"])
        #expect(realm.objects(FrozenLedger.self).count == 2)
    }

    @Test func freezingAnObjectTheWriteCreatedThrowsAndTheWriteGoesOn() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let fresh = realm.create(FrozenLedger.self, value: ["owner": "cy"])
            #expect {
                _ = try fresh.freezeThrowing()
            } throws: { error in
                (error as? Realm.Error)?.code == .invalidState
            }
            fresh.balance = 5
        }
        #expect(realm.objects(FrozenLedger.self).first?.balance == 5)
        let committed = try #require(realm.objects(FrozenLedger.self).first)
        #expect(committed.freeze().balance == 5)
    }

    @Test func freezingAnObjectTheWriteCreatedStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: memoryConfig())
            try realm.write { _ = realm.create(FrozenLedger.self).freeze() }
        }
    }

    @Test func freezingAListOfAnObjectTheWriteCreatedStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: memoryConfig())
            try realm.write { _ = realm.create(FrozenLedger.self).entries.freeze() }
        }
    }
}
