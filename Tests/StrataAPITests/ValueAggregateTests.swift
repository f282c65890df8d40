// Realm's value protocols (MinMaxType, AddableType, SortableType, _RealmCollectionValueInsideOptional)
// and the aggregates they give collections of values: min, max, sum and average on lists, sets,
// maps and AnyRealmCollection, managed and unmanaged, with optional elements and AnyRealmValues.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class NumberBag: Object {
    @Persisted var ints: List<Int>
    @Persisted var maybeInts: List<Int?>
    @Persisted var doubles: List<Double>
    @Persisted var floats: MutableSet<Float>
    @Persisted var smalls: MutableSet<Int8>
    @Persisted var decimals: List<Decimal128>
    @Persisted var dates: List<Date>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var byName: Map<String, Int>
    @Persisted var maybeByName: Map<String, Double?>
}

final class MixedMapHolder: Object {
    @Persisted var values: Map<String, AnyRealmValue>
}

// Generic code over the protocols compiles as it does against RealmSwift.
func total<C: RealmCollection>(_ c: C) -> C.Element where C.Element.PersistedType: AddableType { c.sum() }
func lowest<C: RealmCollection>(_ c: C) -> C.Element? where C.Element.PersistedType: MinMaxType { c.min() }
func sortable<T: SortableType>(_: T.Type) -> Bool { true }
func storableInsideOptional<T: _RealmCollectionValueInsideOptional>(_: T.Type) -> Bool { true }

@Suite("Aggregates of collections of values")
struct ValueAggregateTests {
    private func filled() -> NumberBag {
        let bag = NumberBag()
        bag.ints.append(objectsIn: [5, -2, 9])
        bag.maybeInts.append(objectsIn: [nil, 4, nil, 10])
        bag.doubles.append(objectsIn: [1.5, 2.5])
        bag.floats.insert(objectsIn: [0.5, 4])
        bag.smalls.insert(objectsIn: [100, 27])
        bag.decimals.append(objectsIn: [Decimal128(1), Decimal128(2), Decimal128(4)])
        bag.dates.append(objectsIn: [Date(timeIntervalSince1970: 20), Date(timeIntervalSince1970: 10)])
        bag.mixed.append(objectsIn: [.int(1), .string("skipped"), .double(2.5), .none, .decimal128(Decimal128(0.5))])
        bag.byName["a"] = 3
        bag.byName["b"] = 7
        bag.maybeByName["x"] = nil
        bag.maybeByName["y"] = 2.0
        bag.maybeByName["z"] = 6.0
        return bag
    }

    private func check(_ bag: NumberBag) throws {
        #expect(bag.ints.min() == -2 && bag.ints.max() == 9 && bag.ints.sum() == 12)
        #expect(bag.ints.average() as Double? == 4)
        #expect(bag.maybeInts.min() == 4 && bag.maybeInts.max() == 10 && bag.maybeInts.sum() == 14)
        #expect(bag.maybeInts.average() as Double? == 7)
        #expect(bag.doubles.sum() == 4 && bag.doubles.average() as Double? == 2)
        #expect(bag.floats.min() == 0.5 && bag.floats.sum() == 4.5)
        #expect(bag.smalls.max() == 100 && bag.smalls.sum() == Int8(truncatingIfNeeded: 127))
        #expect(bag.decimals.sum() == Decimal128(7) && bag.decimals.max() == Decimal128(4))
        let decimalMean: Decimal128? = bag.decimals.average()
        #expect(decimalMean == Decimal128(Decimal(7) / Decimal(3)))
        #expect(bag.dates.min() == Date(timeIntervalSince1970: 10) && bag.dates.max() == Date(timeIntervalSince1970: 20))
        // Mixed values: numbers only, summed as a decimal.
        #expect(bag.mixed.sum() == .decimal128(Decimal128(4)))
        #expect(bag.mixed.min() == .decimal128(Decimal128(0.5)) && bag.mixed.max() == .double(2.5))
        #expect(abs((bag.mixed.average() as Double? ?? 0) - 4.0 / 3.0) < 1e-12)  // a decimal mean, as a Double
        #expect(bag.byName.min() == 3 && bag.byName.max() == 7 && bag.byName.sum() == 10)
        #expect(bag.byName.average() as Double? == 5)
        #expect(bag.maybeByName.min() == 2 && bag.maybeByName.sum() == 8)
        #expect(bag.maybeByName.average() as Double? == 4)
        #expect(AnyRealmCollection(bag.ints).sum() == 12 && AnyRealmCollection(bag.doubles).max() == 2.5)
        #expect(total(bag.ints) == 12 && lowest(bag.floats) == 0.5)
    }

    @Test func unmanagedCollectionsAggregate() throws {
        try check(filled())
    }

    @Test func managedCollectionsAggregate() throws {
        let realm = try Realm(configuration: memoryConfig())
        let bag = filled()
        try realm.write { realm.add(bag) }
        try check(bag)
        let read = try #require(realm.objects(NumberBag.self).first)
        try check(read)
    }

    @Test func emptyAndAllNilCollectionsHaveNoMinimumAndSumToZero() throws {
        let bag = NumberBag()
        bag.maybeInts.append(objectsIn: [nil, nil])
        bag.mixed.append(.string("no number"))
        #expect(bag.ints.min() == nil && bag.ints.max() == nil && bag.ints.sum() == 0)
        #expect(bag.ints.average() as Double? == nil)
        #expect(bag.maybeInts.min() == nil && bag.maybeInts.sum() == 0 && bag.maybeInts.average() as Double? == nil)
        #expect(bag.decimals.sum() == Decimal128(0) && bag.dates.max() == nil)
        #expect(bag.mixed.min() == nil && bag.mixed.average() as Double? == nil)
        #expect(bag.byName.sum() == 0 && bag.byName.min() == nil)
    }

    /// RealmSwift sums an unmanaged list's or set's mixed values as Foundation numbers and a
    /// managed one's in the engine, as a Decimal128; a map's empty sum is the integer 0 either way.
    @Test func anEmptyMixedSumIsAnIntegerUnmanagedAndADecimalManaged() throws {
        let bag = NumberBag()
        bag.mixed.append(.string("no number"))
        #expect(bag.mixed.sum() == .int(0))
        #expect(List<AnyRealmValue>().sum() == .int(0) && MutableSet<AnyRealmValue>().sum() == .int(0))
        #expect(Map<String, AnyRealmValue>().sum() == .int(0))
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add(bag) }
        #expect(bag.mixed.sum() == .decimal128(Decimal128(0)))
        let holder = MixedMapHolder()
        holder.values["text"] = .string("no number")
        try realm.write { realm.add(holder) }
        #expect(holder.values.sum() == .int(0))
        try realm.write { holder.values["two"] = .int(2) }
        #expect(holder.values.sum() == .decimal128(Decimal128(2)))
        try realm.write { bag.mixed.append(.int(2)) }
        #expect(bag.mixed.sum() == .decimal128(Decimal128(2)))
    }

    @Test func conformancesAreRealmSwifts() {
        #expect(sortable(Int.self) && sortable(String.self) && sortable(Data.self) && sortable(Date.self) && sortable(Int?.self))
        #expect(storableInsideOptional(Int.self) && storableInsideOptional(UUID.self) && storableInsideOptional(ObjectId.self))
        let addable: [Any.Type] = [Int.self, Int8.self, Int16.self, Int32.self, Int64.self, Float.self, Double.self, Decimal128.self, AnyRealmValue.self, Int?.self]
        #expect(addable.allSatisfy(isAddable))
        #expect(!isAddable(Date.self) && isMinMax(Date.self))
        #expect(!isMinMax(String.self) && !isSortable(Bool.self) && !isSortable(UUID.self))
    }

    // Asked of a type known only at run time, as generic code meets it.
    private func isAddable(_ type: Any.Type) -> Bool { type is any AddableType.Type }
    private func isMinMax(_ type: Any.Type) -> Bool { type is any MinMaxType.Type }
    private func isSortable(_ type: Any.Type) -> Bool { type is any SortableType.Type }
}

@Suite("Map.isInvalidated")
struct MapInvalidationTests {
    @Test func aMapIsInvalidatedWithItsOwner() throws {
        let realm = try Realm(configuration: memoryConfig())
        let bag = NumberBag()
        bag.byName["a"] = 1
        #expect(!bag.byName.isInvalidated)
        try realm.write { realm.add(bag) }
        let map = bag.byName
        #expect(!map.isInvalidated && map.count == 1)
        try realm.write { realm.delete(bag) }
        #expect(map.isInvalidated)
    }
}

@Suite("average(ofProperty:) as any AddableType")
struct AverageOfPropertyTests {
    @Test func theMeanComesInTheRequestedType() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for (amount, maybe) in [(Decimal128(1), Decimal128?.none), (Decimal128(2), Decimal128(10)), (Decimal128(4), Decimal128(20))] {
                let holder = DecimalHolder()
                holder.amount = amount
                holder.maybe = maybe
                realm.add(holder)
            }
        }
        let holders = realm.objects(DecimalHolder.self)
        let decimalMean: Decimal128? = holders.average(ofProperty: "amount")
        #expect(decimalMean == Decimal128(Decimal(7) / Decimal(3)))  // decimal arithmetic, not Double
        #expect(holders.average(ofProperty: "maybe") as Decimal128? == 15)  // nil skipped
        #expect(holders.average(of: \.amount) == decimalMean)
        #expect(holders.sum(ofProperty: "amount") as Decimal128 == 7)
        let dogs = try Realm(configuration: memoryConfig())
        try dogs.write {
            for (id, age) in [("a", 3), ("b", 4)] {
                let dog = Dog()
                dog.id = id
                dog.age = age
                dogs.add(dog)
            }
        }
        #expect(dogs.objects(Dog.self).average(ofProperty: "age") as Double? == 3.5)
        #expect(dogs.objects(Dog.self).average(ofProperty: "age") as Decimal128? == 3.5)
        #expect(dogs.objects(Dog.self).average(of: \.age) == 3)  // the property's type, truncated
        #expect(dogs.objects(Dog.self).filter("age > 10").average(ofProperty: "age") as Double? == nil)
    }
}
