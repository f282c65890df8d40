// `PersistedType`: generic code states what a collection of `V` supports through
// `V.PersistedType`, as against RealmSwift, and aggregates of enums and custom types compute on
// their stored values.
import Foundation
import Strata
import StrataTestSupport
import Testing

enum Rank: Int, PersistableEnum { case low = 1, middle = 5, high = 9 }

struct Cents: CustomPersistable {
    typealias PersistedType = Int
    var amount: Int
    init(amount: Int) { self.amount = amount }
    init(persistedValue: Int) { amount = persistedValue }
    var persistableValue: Int { amount }
}

final class RankedBag: Object {
    @Persisted var ranks: List<Rank>
    @Persisted var maybeRanks: List<Rank?>
    @Persisted var prices: List<Cents>
    @Persisted var priceByName: Map<String, Cents>
    @Persisted var counts: MutableSet<Int>
}

// The forms generic code over Realm collections takes.
func smallest<C: RealmCollection>(_ c: C) -> C.Element? where C.Element.PersistedType: MinMaxType { c.min() }
func summed<C: RealmCollection>(_ c: C) -> C.Element where C.Element.PersistedType: AddableType { c.sum() }
func mean<C: RealmCollection, T: _HasPersistedType>(_ c: C, as: T.Type) -> T? where C.Element.PersistedType: AddableType, T.PersistedType: AddableType {
    c.average()
}
func storedType<T: RealmCollectionValue>(_: T.Type) -> Any.Type { T.PersistedType.self }

@Suite("PersistedType")
struct PersistedTypeTests {
    @Test func eachValueTypeNamesItsStoredType() {
        #expect(ObjectIdentifier(storedType(Int.self)) == ObjectIdentifier(Int.self))
        #expect(ObjectIdentifier(storedType(Int?.self)) == ObjectIdentifier(Int?.self))
        #expect(ObjectIdentifier(storedType(Rank.self)) == ObjectIdentifier(Int.self))
        #expect(ObjectIdentifier(storedType(Rank?.self)) == ObjectIdentifier(Int?.self))
        #expect(ObjectIdentifier(storedType(Cents.self)) == ObjectIdentifier(Int.self))
        #expect(ObjectIdentifier(storedType(AnyRealmValue.self)) == ObjectIdentifier(AnyRealmValue.self))
        #expect(ObjectIdentifier(storedType(Dog.self)) == ObjectIdentifier(Object.self))
    }

    private func filled() -> RankedBag {
        let bag = RankedBag()
        bag.ranks.append(objectsIn: [.middle, .high, .low])
        bag.maybeRanks.append(objectsIn: [nil, .high, .middle])
        bag.prices.append(objectsIn: [Cents(amount: 250), Cents(amount: 100), Cents(amount: 400)])
        bag.priceByName["a"] = Cents(amount: 30)
        bag.priceByName["b"] = Cents(amount: 10)
        bag.counts.insert(objectsIn: [3, 8, 1])
        return bag
    }

    private func check(_ bag: RankedBag) {
        // Enums aggregate their raw values and answer with a case.
        #expect(smallest(bag.ranks) == .low && bag.ranks.max() == .high)
        #expect(bag.maybeRanks.min() == .middle && bag.maybeRanks.max() == .high)
        // Custom types aggregate their persisted values and answer in their own type.
        #expect(smallest(bag.prices)?.amount == 100 && bag.prices.max()?.amount == 400)
        #expect(summed(bag.prices).amount == 750)
        #expect(mean(bag.prices, as: Double.self) == 250)
        #expect(bag.priceByName.min()?.amount == 10 && bag.priceByName.sum().amount == 40)
        #expect(bag.priceByName.average() as Double? == 20)
        #expect(summed(bag.counts) == 12 && mean(bag.counts, as: Double.self) == 4)
    }

    @Test func unmanagedCollectionsAggregateStoredValues() {
        check(filled())
    }

    @Test func managedCollectionsAggregateStoredValues() throws {
        let realm = try Realm(configuration: memoryConfig())
        let bag = filled()
        try realm.write { realm.add(bag) }
        check(bag)
        check(try #require(realm.objects(RankedBag.self).first))
    }

    @Test func emptyCollectionsHaveNoExtremeAndSumToZero() {
        let bag = RankedBag()
        #expect(smallest(bag.ranks) == nil && bag.prices.max() == nil)
        #expect(summed(bag.prices).amount == 0 && mean(bag.prices, as: Double.self) == nil)
    }
}
