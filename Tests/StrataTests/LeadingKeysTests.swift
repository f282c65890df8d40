// The first rows of a class sorted by one numeric column, read without sorting the rest
// (Collections/LeadingKeys.swift), against the whole order the object path gives: the same keys
// for every prefix length around the selection's sizes, with nil, NaN, ±0 and runs of equal
// values that cross the cut, both directions, every numeric width; a read past the leading keys
// and a change to the class give the whole order of the current snapshot.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct LeadingKeysTests {
    /// Few distinct values, so that ties are long and cross every prefix length below.
    static func fill(_ realm: Realm, rows: Int, seed: UInt64) throws {
        var random = ColumnScanRandom(state: seed)
        let doubles: [Double?] = [nil, .nan, -0.0, 0, 1.5, -2.25, .infinity, -.infinity, 7]
        let integers: [Int?] = [nil, .min, .max, 0, -1, 1, 40]
        let floats: [Float?] = [nil, .nan, 0, -0.0, 0.5, -3]
        let dates: [Date?] = [nil, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0),
                              .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 86_400.5),
                              Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: -1e-300)]
        try realm.write {
            for _ in 0..<rows {
                let item = ColumnScanItem()
                item.od = doubles[Int(random.next() % UInt64(doubles.count))]
                item.d = Double(Int(random.next() % 5)) - 2
                item.oi = integers[Int(random.next() % UInt64(integers.count))]
                item.i = Int(random.next() % 7) - 3
                item.i8 = Int8(truncatingIfNeeded: Int(random.next() % 4) * 60)
                item.of = floats[Int(random.next() % UInt64(floats.count))]
                item.f = Float(Int(random.next() % 3))
                item.b = random.next() % 3 == 0
                item.odt = dates[Int(random.next() % UInt64(dates.count))]
                item.dt = dates[1 + Int(random.next() % UInt64(dates.count - 1))]!
                realm.add(item)
            }
        }
    }

    static func keys(_ objects: some Sequence<ColumnScanItem>) -> [UInt64] { objects.compactMap { $0._binding?.key } }

    static func wholeOrder(_ realm: Realm, _ property: String, _ ascending: Bool) -> [UInt64] {
        ColumnScan.$wholeRows.withValue(true) {
            keys(realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending))
        }
    }

    @Test(arguments: [0, 1, 130, 3_000])
    func everyPrefixIsTheWholeOrdersPrefix(rows: Int) throws {
        let realm = try Realm(configuration: memoryConfig())
        try Self.fill(realm, rows: rows, seed: UInt64(rows) &+ 11)
        for property in ["d", "od", "i", "oi", "i8", "f", "of", "b", "dt", "odt"] {
            for ascending in [true, false] {
                let whole = Self.wholeOrder(realm, property, ascending)
                #expect(whole.count == rows)
                for length in [1, 2, 5, 127, 128, 129, 256, 257, 1_023, 1_024, 1_500] {
                    // Fresh results each time: every prefix is worked out on its own.
                    let sorted = realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending)
                    let prefix = Self.keys(sorted.prefix(length))
                    #expect(prefix == Array(whole.prefix(length)), "\(property) \(ascending) prefix \(length)")
                }
                let sorted = realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending)
                #expect(sorted.first?._binding?.key == whole.first, "\(property) \(ascending) first")
                #expect(sorted.last?._binding?.key == whole.last, "\(property) \(ascending) last")
                #expect(sorted.count == rows)
            }
        }
    }

    /// One results read position by position, further each time, then past the leading keys.
    @Test func readingFurtherInKeepsTheWholeOrder() throws {
        let realm = try Realm(configuration: memoryConfig())
        try Self.fill(realm, rows: 2_500, seed: 3)
        for (property, ascending) in [("od", false), ("i", true)] {
            let whole = Self.wholeOrder(realm, property, ascending)
            let sorted = realm.objects(ColumnScanItem.self).sorted(byKeyPath: property, ascending: ascending)
            for position in [0, 1, 100, 127, 128, 300, 700, 1_023, 1_024, 2_000, 2_499, 5, 0] {
                #expect(sorted[position]._binding?.key == whole[position], "\(property) \(ascending) at \(position)")
            }
        }
    }

    /// The leading keys are those of the snapshot read: a write that adds a new best row, or
    /// deletes the best, shows at once, inside the write and after it.
    @Test func aChangeToTheClassShowsInTheLeadingKeys() throws {
        let realm = try Realm(configuration: memoryConfig())
        try Self.fill(realm, rows: 500, seed: 5)
        let sorted = realm.objects(ColumnScanItem.self).sorted(byKeyPath: "d", ascending: false)
        let before = sorted[0]._binding?.key
        #expect(before == Self.wholeOrder(realm, "d", false).first)
        try realm.write {
            let best = ColumnScanItem()
            best.d = 1_000
            realm.add(best)
            #expect(sorted[0].d == 1_000)
            #expect(sorted.count == 501)
        }
        #expect(sorted[0].d == 1_000)
        #expect(realm.objects(ColumnScanItem.self).sorted(byKeyPath: "d").last?.d == 1_000)
        #expect(Self.keys(sorted.prefix(50)) == Array(Self.wholeOrder(realm, "d", false).prefix(50)))
        try realm.write { realm.delete(sorted[0]) }
        #expect(sorted[0]._binding?.key == before)
        #expect(sorted.count == 500)
    }

    /// A date whose interval is NaN has no place in Realm's order of dates: such a column is
    /// sorted as before the column sort covered dates, for the whole order and for its start.
    @Test func aNaNDateLeavesTheSortToTheRows() throws {
        let realm = try Realm(configuration: memoryConfig())
        try Self.fill(realm, rows: 400, seed: 8)
        try realm.write {
            realm.objects(ColumnScanItem.self)[17].odt = Date(timeIntervalSinceReferenceDate: .nan)
        }
        let objects = realm.objects(ColumnScanItem.self)
        let reader = try #require(RowColumnReader(property: "odt", info: objects.info))
        let table = try #require(try realm.core.tableIndex(for: objects.info, create: false))
        for ascending in [true, false] {
            let sorted = try ColumnSort.sortedKeys(by: reader, ascending: ascending, objects: realm.core.snap.metas[table].objects,
                                                   pages: try realm.core.pages())
            #expect(sorted == nil)
            let leading = try ColumnSort.leadingKeys(10, by: reader, ascending: ascending, objects: realm.core.snap.metas[table].objects,
                                                     pages: try realm.core.pages())
            #expect(leading == nil)
            let last = try ColumnSort.lastKey(by: reader, ascending: ascending, objects: realm.core.snap.metas[table].objects,
                                              pages: try realm.core.pages())
            #expect(last == nil)
            let whole = Self.keys(objects.sorted(byKeyPath: "odt", ascending: ascending))
            #expect(Self.keys(objects.sorted(byKeyPath: "odt", ascending: ascending).prefix(10)) == Array(whole.prefix(10)))
        }
    }

    /// Dates of a filtered class sort as the object path sorts them (the key-list sort reads
    /// them as intervals), ties and ±0 included, and with a NaN interval among them too.
    @Test func datesOfAFilteredClassSortAsObjectsDo() throws {
        let realm = try Realm(configuration: memoryConfig())
        try Self.fill(realm, rows: 1_200, seed: 13)
        func expectSameOrder(_ what: String) {
            for property in ["dt", "odt"] {
                for ascending in [true, false] {
                    let query = { realm.objects(ColumnScanItem.self).filter("i > -2").sorted(byKeyPath: property, ascending: ascending) }
                    let byRows = Self.keys(query())
                    let byObjects = ColumnScan.$wholeRows.withValue(true) { Self.keys(query()) }
                    #expect(byRows == byObjects, "\(what): \(property) \(ascending)")
                    #expect(!byRows.isEmpty)
                }
            }
        }
        expectSameOrder("dates")
        try realm.write {
            realm.objects(ColumnScanItem.self).filter("i > -2")[3].odt = Date(timeIntervalSinceReferenceDate: .nan)
        }
        expectSameOrder("a NaN date")
    }

    /// The selection alone: the lowest images with ties going to the earliest, for every count,
    /// against a stable sort.
    @Test(arguments: [0, 1, 2, 3, 7, 64, 1_000])
    func lowestImagesAreAStableSortsPrefix(count: Int) {
        var random = ColumnScanRandom(state: UInt64(count) &+ 1)
        // Random images with few or many distinct values, then every row beating the last (the
        // latest rows, read in the order they were added) and every row worse than the last.
        for distinct in [1, 3, 50, 1 << 20, -1, -2] {
            var lowest = LowestImages(count: count)
            var offered: [(image: UInt64, key: UInt64)] = []
            for key in 0..<UInt64(900) {
                let image = distinct == -1 ? 1_000 - key / 2 : distinct == -2 ? key : random.next() % UInt64(distinct)
                offered.append((image, key))
                lowest.offer(image, key)
            }
            // `sorted(by:)` is not stable; the key breaks ties as offering order does.
            let expected = offered.sorted { ($0.image, $0.key) < ($1.image, $1.key) }.prefix(count).map(\.key)
            #expect(lowest.best() == expected, "count \(count), \(distinct) distinct images")
        }
    }
}
