// Sorting by plain properties read from the stored rows (Collections/RowSort.swift) against the
// object path (every object built, keys resolved by the query evaluator): the same objects in
// the same order, on generated data with nil, NaN, ±inf, -0 and repeated values (so that ties
// must keep key order), ascending and descending, one and two sort keys, over a whole class, a
// filtered class, a list, packed and slotted rows, and inside a write.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

final class RowSortOwner: Object {
    @Persisted var items: List<ColumnScanItem>
}

@Suite struct RowSortTests {
    static let sorts: [[Strata.SortDescriptor]] = {
        var all: [[Strata.SortDescriptor]] = []
        for property in ["d", "od", "f", "of", "i", "oi", "i8", "dt", "odt", "b"] {
            all.append([Strata.SortDescriptor(keyPath: property, ascending: true)])
            all.append([Strata.SortDescriptor(keyPath: property, ascending: false)])
        }
        all.append([Strata.SortDescriptor(keyPath: "b", ascending: true), Strata.SortDescriptor(keyPath: "d", ascending: false)])
        all.append([Strata.SortDescriptor(keyPath: "oi", ascending: false), Strata.SortDescriptor(keyPath: "of", ascending: true)])
        return all
    }()

    /// The keys of `results` sorted each way of `sorts`, by the rows and by the objects.
    static func expectSameOrder<T: Object>(_ results: () -> Results<T>, _ what: String) {
        for sort in sorts {
            let byRows = results().sorted(by: sort).compactMap { $0._binding?.key }
            let byObjects = ColumnScan.$wholeRows.withValue(true) { results().sorted(by: sort).compactMap { $0._binding?.key } }
            #expect(byRows == byObjects, "\(what): \(sort.map { "\($0.keyPath) \($0.ascending)" })")
        }
    }

    @Test(arguments: [0, 1, 2_000])
    func slottedRowsSortAsObjectsDo(rows: Int) throws {
        let realm = try Realm(configuration: memoryConfig())
        var random = ColumnScanRandom(state: UInt64(rows) &+ 5)
        try realm.write {
            let owner = RowSortOwner()
            realm.add(owner)
            for n in 0..<rows {
                let item = ColumnScanTests.item(&random, nils: false, intRange: n % 2 == 0)
                realm.add(item)
                if n % 3 == 0 { owner.items.append(item) }
            }
        }
        Self.expectSameOrder({ realm.objects(ColumnScanItem.self) }, "whole class")
        Self.expectSameOrder({ realm.objects(ColumnScanItem.self).filter("i > 0") }, "filtered")
        if let owner = realm.objects(RowSortOwner.self).first {
            Self.expectSameOrder({ owner.items.filter("TRUEPREDICATE") }, "a list")
        }
        try realm.write {
            realm.delete(Array(realm.objects(ColumnScanItem.self).filter("b == true AND i < 0")))
            for _ in 0..<(rows / 10) { realm.add(ColumnScanTests.item(&random, nils: true, intRange: false)) }
            Self.expectSameOrder({ realm.objects(ColumnScanItem.self) }, "uncommitted")
        }
    }

    @Test func packedRowsSortAsObjectsDo() throws {
        let realm = try Realm(configuration: memoryConfig())
        var random = ColumnScanRandom(state: 99)
        try realm.write {
            for _ in 0..<3_000 { realm.add(ColumnScanTests.make(PackedScanItem.self, &random, nils: false, intRange: false)) }
        }
        for property in ["d", "f", "i", "i8", "dt", "b"] {
            for ascending in [true, false] {
                let byRows = realm.objects(PackedScanItem.self).sorted(byKeyPath: property, ascending: ascending).compactMap { $0._binding?.key }
                let byObjects = ColumnScan.$wholeRows.withValue(true) {
                    realm.objects(PackedScanItem.self).sorted(byKeyPath: property, ascending: ascending).compactMap { $0._binding?.key }
                }
                #expect(byRows == byObjects, "\(property) \(ascending)")
                #expect(byRows.count == 3_000)
            }
        }
    }

    /// Ties keep key order in both directions, and nil, NaN and -0 take Realm's places.
    @Test func tiesAndSpecialValuesKeepRealmsOrder() throws {
        let realm = try Realm(configuration: memoryConfig())
        let values: [Double?] = [2, nil, .nan, -0.0, 0, 2, -.infinity, nil, .nan, 1]
        try realm.write {
            for (n, v) in values.enumerated() {
                let item = ColumnScanItem()
                item.od = v
                item.i = n
                realm.add(item)
            }
        }
        let up = realm.objects(ColumnScanItem.self).sorted(byKeyPath: "od").map(\.i)
        #expect(up == [1, 7, 2, 8, 6, 3, 4, 9, 0, 5])
        let down = realm.objects(ColumnScanItem.self).sorted(byKeyPath: "od", ascending: false).map(\.i)
        #expect(down == [0, 5, 9, 3, 4, 6, 2, 8, 1, 7])
    }

    /// The radix sort's images order every extreme as the values do: the ends of each integer
    /// width, infinities, the smallest subnormals, ±0 as equals, NaN payloads of both signs, in
    /// a class large enough for several leaves and for every byte of the images to vary.
    @Test func extremeValuesSortAsObjectsDo() throws {
        let realm = try Realm(configuration: memoryConfig())
        let doubles: [Double?] = [.infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                  .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 0, -0.0,
                                  .nan, -.nan, Double(bitPattern: 0x7FF0_0000_0000_0001), nil, 1, -1, 0.1, -0.1]
        let integers: [Int?] = [.min, .max, .min + 1, .max - 1, 0, -1, 1, nil, 1 << 32, -(1 << 32), 255, 256, -256]
        let smalls: [Int8] = [.min, .max, 0, -1, 1]
        let floats: [Float?] = [.infinity, -.infinity, .greatestFiniteMagnitude, -.leastNonzeroMagnitude, 0, -0.0, .nan, nil, 0.5]
        var random = ColumnScanRandom(state: 17)
        try realm.write {
            for n in 0..<1_500 {
                let item = ColumnScanItem()
                item.od = doubles[Int(random.next() % UInt64(doubles.count))]
                item.d = n % 7 == 0 ? Double(bitPattern: random.next()) : Double(Int(random.next() % 1_000)) - 500
                item.oi = integers[Int(random.next() % UInt64(integers.count))]
                item.i = Int(bitPattern: UInt(truncatingIfNeeded: random.next()))
                item.i8 = smalls[Int(random.next() % UInt64(smalls.count))]
                item.of = floats[Int(random.next() % UInt64(floats.count))]
                item.f = Float(Int(random.next() % 9)) - 4
                item.b = random.next() % 2 == 0
                realm.add(item)
            }
        }
        for property in ["d", "od", "i", "oi", "i8", "f", "of", "b"] {
            for ascending in [true, false] {
                let byRows = realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending).compactMap { $0._binding?.key }
                let byObjects = ColumnScan.$wholeRows.withValue(true) {
                    realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending).compactMap { $0._binding?.key }
                }
                #expect(byRows.count == 1_500)
                #expect(byRows == byObjects, "\(property) \(ascending)")
            }
        }
    }

    /// The radix sort is stable and orders unsigned integers, whatever bytes vary.
    @Test(arguments: [0, 1, 2, 3, 255, 256, 5_000])
    func radixSortIsAStableSort(count: Int) {
        var random = ColumnScanRandom(state: UInt64(count) &+ 3)
        let masks: [UInt64] = [0, 0xFF, 0xFF00_0000_0000_0000, 0x0F0F, .max]
        for mask in masks {
            var values = (0..<count).map { _ in random.next() & mask }
            var carried = (0..<count).map { UInt64($0) }
            let expected = zip(values, carried).sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            RadixSort.sort(&values, carrying: &carried)
            #expect(values == expected.map(\.0), "mask \(mask)")
            #expect(carried == expected.map(\.1), "mask \(mask)")
        }
    }

    /// What the rows cannot sort goes the object path, and errors stay the object path's.
    @Test func unsupportedKeyPathsTakeTheObjectPath() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { for n in 0..<5 { realm.add(IxItem(value: ["rank": n % 2, "color": n % 2 == 0 ? "red" : "blue", "child": ["code": 5 - n]])) } }
        let info = try ClassInfo.of(IxItem.self)
        let t = try #require(realm.core.snap.tableByName["IxItem"])
        for keyPath in ["color", "child.code", "parts", "nope"] {
            let keys = realm.objects(IxItem.self).keys
            #expect(try RowSort.sortedKeys(keys, table: t, by: [Strata.SortDescriptor(keyPath: keyPath)], info: info, core: realm.core, wholeTable: true) == nil, "\(keyPath)")
        }
        #expect(realm.objects(IxItem.self).sorted(byKeyPath: "child.code").map(\.rank) == [0, 1, 0, 1, 0])
    }

    /// A key without a row (only damage names one) is not sorted as if its values were nil: the
    /// rows give up and the object path, which stops on reading that object, sorts.
    @Test func aKeyWithoutARowTakesTheObjectPath() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { for n in 0..<5 { realm.add(IxItem(value: ["rank": n])) } }
        let info = try ClassInfo.of(IxItem.self)
        let t = try #require(realm.core.snap.tableByName["IxItem"])
        let keys = realm.objects(IxItem.self).keys
        let byRank = [Strata.SortDescriptor(keyPath: "rank")]
        for wholeTable in [true, false] {
            #expect(try RowSort.sortedKeys(keys, table: t, by: byRank, info: info, core: realm.core, wholeTable: wholeTable) != nil)
        }
        let missing = (keys.max() ?? 0) + 1_000
        #expect(try RowSort.sortedKeys(keys + [missing], table: t, by: byRank, info: info, core: realm.core, wholeTable: false) == nil)
        #expect(try RowSort.sortedKeys(keys + [missing], table: t, by: byRank, info: info, core: realm.core, wholeTable: true) == nil)
    }
}
