// `checkedSum`: the sum of integers that throws `.valueTooLarge` when the exact total does not fit
// the type asked for, where `sum` (whose signature is RealmSwift's, and cannot throw) stops.
import Foundation
import Strata
import Testing

@Suite("Sums that throw when they do not fit")
struct CheckedSumTests {
    private func realm(amounts: [Int]) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [ExactTally.self, ExactTallyOwner.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let owner = realm.create(ExactTallyOwner.self, value: ["name": "o"])
            for amount in amounts {
                owner.tallies.append(realm.create(ExactTally.self, value: ["amount": amount, "owner": owner]))
            }
        }
        return realm
    }

    private func expectTooLarge<T>(_ body: () throws(Realm.Error) -> T) {
        do {
            let value = try body()
            Issue.record("a sum that does not fit was given as \(value)")
        } catch {
            #expect(error.code == .valueTooLarge)
            #expect(error.message.contains("18446744073709551614"), "\(error.message)")
        }
    }

    @Test func aPropertySumThatDoesNotFitThrows() throws {
        let store = try realm(amounts: [Int.max, Int.max])
        let tallies = store.objects(ExactTally.self)
        expectTooLarge { () throws(Realm.Error) -> Int in try tallies.checkedSum(ofProperty: "amount") }
        expectTooLarge { () throws(Realm.Error) -> Int in try tallies.checkedSum(of: \.amount) }
        let owner = try #require(store.objects(ExactTallyOwner.self).first)
        expectTooLarge { () throws(Realm.Error) -> Int in try owner.tallies.checkedSum(ofProperty: "amount") }
        expectTooLarge { () throws(Realm.Error) -> Int in try owner.linked.checkedSum(ofProperty: "amount") }
        // The exact sum of other values fits, whatever their order.
        let fitting = try realm(amounts: [Int.max, 1, Int.min]).objects(ExactTally.self)
        #expect(try fitting.checkedSum(ofProperty: "amount") as Int == 0)
    }

    @Test func anUnmanagedSumThatDoesNotFitThrows() {
        let owner = ExactTallyOwner()
        for amount in [Int.max, Int.max] { owner.tallies.append(ExactTally(value: ["amount": amount])) }
        expectTooLarge { () throws(Realm.Error) -> Int in try owner.tallies.checkedSum(ofProperty: "amount") }
    }

    @Test func aValueCollectionSumThatDoesNotFitThrows() throws {
        let realm = try realm(amounts: [])
        let tally = ExactTally(value: ["nums": [Int.max, Int.max], "scores": ["a": Int.max, "b": Int.max]])
        expectTooLarge { () throws(Realm.Error) -> Int in try tally.nums.checkedSum() }
        expectTooLarge { () throws(Realm.Error) -> Int? in try tally.scores.checkedSum() }
        try realm.write { realm.add(tally) }
        expectTooLarge { () throws(Realm.Error) -> Int in try tally.nums.checkedSum() }
        expectTooLarge { () throws(Realm.Error) -> Int? in try tally.scores.checkedSum() }
        try realm.write { tally.nums.append(Int.min) }
        #expect(try tally.nums.checkedSum() == Int.max - 1)
    }
}
