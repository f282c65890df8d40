// Sums and means of integers are exact, whatever the order of the values: a running 64-bit total
// that overflows on the way (Int.max + 90) neither traps, wraps nor turns into a rounded Double
// when the sum itself fits. A sum too large for the type asked for is covered by CheckedSumTests.
import Foundation
import Strata
import Testing

final class ExactTally: Object {
    @Persisted var amount = 0
    @Persisted var nums: List<Int>
    @Persisted var scores: Map<String, Int?>
    @Persisted var owner: ExactTallyOwner?
}

final class ExactTallyOwner: Object {
    @Persisted var name = ""
    @Persisted var tallies: List<ExactTally>
    @Persisted(originProperty: "owner") var linked: LinkingObjects<ExactTally>
}

/// An in-memory realm holding one owner whose list holds one tally per amount (shared with
/// CheckedSumTests).
func exactTallyRealm(amounts: [Int], extraTypes: [Object.Type] = []) throws -> Realm {
    var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
    configuration.objectTypes = [ExactTally.self, ExactTallyOwner.self] + extraTypes
    let realm = try Realm(configuration: configuration)
    try realm.write {
        let owner = realm.create(ExactTallyOwner.self, value: ["name": "o"])
        for amount in amounts {
            let tally = realm.create(ExactTally.self, value: ["amount": amount])
            tally.owner = owner
            owner.tallies.append(tally)
        }
    }
    return realm
}

@Suite("Exact integer sums and means")
struct ExactIntegerSumTests {
    private func realm(amounts: [Int]) throws -> Realm { try exactTallyRealm(amounts: amounts) }

    @Test func queryAtSumOfAListOfIntsIsExact() throws {
        let realm = try realm(amounts: [])
        try realm.write {
            realm.create(ExactTally.self, value: ["nums": [Int.max, 90, Int.min]])
            realm.create(ExactTally.self, value: ["nums": [1, 2]])
        }
        let tallies = realm.objects(ExactTally.self)
        #expect(tallies.filter("nums.@sum == 89").count == 1)
        #expect(tallies.filter("nums.@sum == %@", 89).count == 1)
        #expect(tallies.filter("nums.@sum == 0").count == 0)
        #expect(tallies.where { $0.nums.sum == 89 }.count == 1)
        // The mean is the exact sum over the count: 89 / 3.
        #expect(tallies.filter("nums.@avg > 29.66 AND nums.@avg < 29.67").count == 1)
    }

    @Test func queryAtSumBeyondSixtyFourBitsComparesExactly() throws {
        let realm = try realm(amounts: [])
        try realm.write {
            realm.create(ExactTally.self, value: ["nums": [Int.max, Int.max, -Int.max]])
            realm.create(ExactTally.self, value: ["nums": [Int.max, Int.max]])
        }
        let tallies = realm.objects(ExactTally.self)
        #expect(tallies.filter("nums.@sum == %@", Int.max).count == 1)
        #expect(tallies.filter("nums.@sum > %@", Int.max).count == 1)
    }

    @Test func resultsSumOfAnIntPropertyIsExact() throws {
        let tallies = try realm(amounts: [Int.max, 1, Int.min]).objects(ExactTally.self)
        #expect(tallies.sum(ofProperty: "amount") as Int == 0)
        #expect(tallies.sum(of: \.amount) == 0)
        #expect(tallies.filter("amount != 0").sum(ofProperty: "amount") as Int == 0)
    }

    @Test func listAndLinkingObjectsSumsOfAnIntPropertyAreExact() throws {
        let owner = try #require(try realm(amounts: [Int.max, 1, Int.min, 5]).objects(ExactTallyOwner.self).first)
        #expect(owner.tallies.sum(ofProperty: "amount") as Int == 5)
        #expect(owner.tallies.sum(of: \.amount) == 5)
        #expect(owner.linked.sum(ofProperty: "amount") as Int == 5)
        #expect(AnyRealmCollection(owner.tallies).sum(ofProperty: "amount") as Int == 5)
    }

    @Test func unmanagedListSumOfAnIntPropertyIsExact() {
        let owner = ExactTallyOwner()
        for amount in [Int.max, 1, Int.min, 5] { owner.tallies.append(ExactTally(value: ["amount": amount])) }
        #expect(owner.tallies.sum(ofProperty: "amount") as Int == 5)
        #expect(owner.tallies.sum(of: \.amount) == 5)
    }

    @Test func averageOfIntsDividesTheExactSum() throws {
        let tallies = try realm(amounts: [Int.max, Int.max]).objects(ExactTally.self)
        #expect(tallies.average(ofProperty: "amount") as Double? == Double(Int.max))
        #expect(tallies.average(of: \.amount) == Int.max)
        let owner = try #require(tallies.first?.owner)
        #expect(owner.linked.average(ofProperty: "amount") as Double? == Double(Int.max))
        #expect(owner.tallies.average(ofProperty: "amount") as Double? == Double(Int.max))
    }

    @Test func boxedSumBeyondSixtyFourBitsIsTheExactDecimal() throws {
        let tallies = try realm(amounts: [Int.max, Int.max]).objects(ExactTally.self)
        let total: NSNumber = tallies.sum(ofProperty: "amount")
        #expect(total.decimalValue == Decimal(string: "18446744073709551614"))
        let fitting: NSNumber = try realm(amounts: [Int.max, 1, Int.min]).objects(ExactTally.self).sum(ofProperty: "amount")
        #expect(fitting == NSNumber(value: 0))
        let mean: NSNumber? = tallies.average(ofProperty: "amount")
        #expect(mean?.doubleValue == Double(Int.max))
    }

    @Test func keyValueCodingSumAndAverageAreExact() throws {
        let tallies = try realm(amounts: [Int.max, Int.max]).objects(ExactTally.self)
        let total = tallies.value(forKeyPath: "@sum.amount") as? NSNumber
        #expect(total?.decimalValue == Decimal(string: "18446744073709551614"))
        let mean = tallies.value(forKeyPath: "@avg.amount") as? NSNumber
        #expect(mean?.doubleValue == Double(Int.max))
    }

    @Test func valueCollectionSumsAndMeansAreExact() throws {
        let realm = try realm(amounts: [])
        let tally = ExactTally(value: ["nums": [Int.max, 90, Int.min], "scores": ["a": Int.max, "b": Int.max]])
        #expect(tally.nums.sum() == 89)
        #expect(tally.scores.average() as Double? == Double(Int.max))
        try realm.write { realm.add(tally) }
        #expect(tally.nums.sum() == 89)
        #expect(tally.nums.average() as Double? == 89.0 / 3)
        #expect(tally.scores.average() as Double? == Double(Int.max))
        try realm.write {
            tally.nums.removeAll()
            tally.nums.append(objectsIn: [Int.max, Int.max])
        }
        #expect(tally.nums.average() as Double? == Double(Int.max))
        #expect(AnyRealmCollection(tally.nums).average() as Double? == Double(Int.max))
    }
}
