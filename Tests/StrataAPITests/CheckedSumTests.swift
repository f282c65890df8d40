// `checkedSum`: the sum of integers that throws `.valueTooLarge` when the exact total does not fit
// the type asked for, where `sum` (whose signature is RealmSwift's, and cannot throw) stops.
import Foundation
import Strata
import Testing

@Suite("Sums that throw when they do not fit")
struct CheckedSumTests {
    private func realm(amounts: [Int]) throws -> Realm { try exactTallyRealm(amounts: amounts, extraTypes: [DocumentedAccount.self]) }

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

    /// The DocC example (Queries.md, "Sums"), as written there.
    @Test func theDocumentedExampleReportsTheSumThatDoesNotFit() throws {
        let store = try realm(amounts: [])
        try store.write {
            for balance in [Int.max, Int.max] { store.add(DocumentedAccount(value: ["balance": balance])) }
        }
        let accounts = store.objects(DocumentedAccount.self)
        let printed = PrintedLines()
        try runDocumentedExample(accounts, print: { printed.lines.append("\($0)") })
        #expect(printed.lines.count == 1 && printed.lines[0].contains("18446744073709551614"), "\(printed.lines)")
    }

    private func runDocumentedExample(_ accounts: Results<DocumentedAccount>, print: (Any) -> Void) throws {
        do {
            let total: Int = try accounts.checkedSum(ofProperty: "balance")
            print(total)
        } catch where error.code == .valueTooLarge {
            print(error.message)
        }
    }
}

/// What the documented example prints, kept for the test to read.
private final class PrintedLines {
    var lines: [String] = []
}

final class DocumentedAccount: Object {
    @Persisted var balance = 0
}
