// Column scans (aggregates and filtered counts over a whole class, reading only the bytes they
// need from packed leaves: StrataStorage KeyedTreeProjection.swift, Query/QueryRowColumns.swift)
// against the general path (whole rows assembled, predicates on materialised objects): on
// generated data with edge values (nil, NaN, ±inf, -0, Int extremes whose sum overflows,
// Decimal128), deleted rows, uncommitted writes and a frozen version, every answer must be
// identical, bit for bit (NaNs aside: see `text`).
import Foundation
import Testing
@testable import Strata
@testable import StrataStorage
import StrataTestSupport

final class ColumnScanItem: Object {
    @Persisted var d = 0.0
    @Persisted var od: Double?
    @Persisted var f: Float = 0
    @Persisted var of: Float?
    @Persisted var i = 0
    @Persisted var oi: Int?
    @Persisted var i8: Int8 = 0
    @Persisted var dt = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var odt: Date?
    @Persisted var dec = Decimal128(0)
    @Persisted var odec: Decimal128?
    @Persisted var b = false
}

/// SplitMix64: a seeded generator, so a failure reproduces.
struct ColumnScanRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// No optional: its rows are plain, stored in packed leaves.
final class PackedScanItem: Object {
    @Persisted var d = 0.0
    @Persisted var f: Float = 0
    @Persisted var i = 0
    @Persisted var i8: Int8 = 0
    @Persisted var dt = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var b = false
}

@Suite struct ColumnScanTests {
    static let doubles: [Double] = [0, -0.0, 1.5, -2.25, .nan, .infinity, -.infinity, 1e300, -1e300, 99.5, 0.1, 3]
    static let ints: [Int] = [0, 1, -1, 7, 42, Int.max, Int.min, 1 << 40, -(1 << 40)]

    /// A row from `random`; `nils` makes every optional nil.
    static func item(_ random: inout ColumnScanRandom, nils: Bool, intRange: Bool) -> ColumnScanItem {
        let o = ColumnScanItem()
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func maybe<T>(_ value: T) -> T? { nils || random.next() % 4 == 0 ? nil : value }
        o.d = random.next() % 3 == 0 ? pick(doubles) : Double(Int(random.next() % 2000)) / 10
        o.od = maybe(pick(doubles))
        o.f = Float(pick(doubles))
        o.of = maybe(Float(Double(Int(random.next() % 100)) / 4))
        // Without `intRange`, the integers stay small: their sums fit, and the fast path must
        // give the same totals (with it, the sums overflow and both must throw the same error).
        o.i = intRange ? pick(ints) : Int(random.next() % 1000) - 500
        o.oi = maybe(Int(random.next() % 100) - 50)
        o.i8 = Int8(truncatingIfNeeded: random.next())
        o.dt = Date(timeIntervalSinceReferenceDate: Double(random.next() % 100_000))
        o.odt = maybe(Date(timeIntervalSinceReferenceDate: pick(doubles)))
        o.dec = Decimal128(Decimal(Int(random.next() % 10_000)) / 100)
        o.odec = maybe(random.next() % 5 == 0 ? Decimal128(stringLiteral: "NaN") : Decimal128(Decimal(Int(random.next() % 100))))
        o.b = random.next() % 2 == 0
        return o
    }

    // Bit for bit, but every NaN alike: the compiler may swap the operands of a floating-point
    // addition (it commutes), and which operand's NaN a sum of two NaNs keeps depends on that.
    static func text(_ d: Double?) -> String { d.map { $0.isNaN ? "nan" : String($0.bitPattern, radix: 16) } ?? "nil" }
    static func text(_ f: Float?) -> String { f.map { $0.isNaN ? "nan" : String($0.bitPattern, radix: 16) } ?? "nil" }

    static func attempt<T>(_ body: () throws(Realm.Error) -> T) -> String {
        do { return "\(try body())" } catch { return "error \(error)" }
    }

    /// Queries on the properties both classes have.
    static var queries: [(String, [Any])] { [
        ("d > 99.5", []), ("d >= 3", []), ("d < 0.1", []), ("d <= -0.0", []), ("d == 0", []), ("d != 1.5", []),
        ("d == %@", [Double.nan]), ("d != %@", [Double.nan]), ("d > %@", [-Double.infinity]), ("d < %@", [Double.infinity]),
        ("d > 2", []), ("d == 3", []), ("d >= %@", [Int.max]), ("d < %@", [Int.min]), ("d == %@", [Float(1.5)]),
        ("f > 1.5", []), ("f == 0.1", []), ("f < %@", [Float(0.1)]), ("f != 3", []), ("i > 5", []), ("i <= -7", []),
        ("i == 42", []), ("i8 < 0", []), ("dt > %@", [Date(timeIntervalSinceReferenceDate: 50_000)]),
        ("dt == %@", [Date(timeIntervalSinceReferenceDate: 7)]), ("b == true", []), ("d > 1 AND i < 3", []),
        ("NOT (d <= 2)", []), ("d BETWEEN {0, 1}", []), ("d > f", []), ("d IN {1.5, 3}", []),
        ("TRUEPREDICATE", []), ("FALSEPREDICATE", []),
    ] }

    /// Queries on the optional and decimal properties of `ColumnScanItem`.
    static var optionalQueries: [(String, [Any])] { [
        ("od == nil", []), ("od != nil", []), ("od > 1", []), ("od != 1.5", []), ("od <= 0.1", []), ("od == -0.0", []),
        ("of == nil", []), ("of >= 10", []), ("of != 2.5", []), ("oi == nil", []), ("oi > 3", []), ("odt == nil", []),
        ("odt < %@", [Date(timeIntervalSinceReferenceDate: 1)]), ("odt != %@", [Date(timeIntervalSinceReferenceDate: 3)]),
        ("dec > 50", []), ("odec == nil", []), ("d < 1 OR of == nil", []), ("od == d", []),
    ] }

    /// Every aggregate and filtered count of `results`, as text.
    static func transcript<T: Object>(_ results: Results<T>) -> [String] {
        let optionals = T.self == ColumnScanItem.self
        var out: [String] = ["count \(results.count)"]
        out.append("min d \(text(results.min(ofProperty: "d") as Double?)) max \(text(results.max(ofProperty: "d") as Double?))")
        out.append("sum d \(text(results.sum(ofProperty: "d") as Double)) avg \(text(results.average(ofProperty: "d") as Double?))")
        if optionals {
        out.append("min od \(text(results.min(ofProperty: "od") as Double?)) max \(text(results.max(ofProperty: "od") as Double?))")
        out.append("sum od \(text(results.sum(ofProperty: "od") as Double)) avg \(text(results.average(ofProperty: "od") as Double?))")
        }
        out.append("min f \(text(results.min(ofProperty: "f") as Float?)) max \(text(results.max(ofProperty: "f") as Float?))")
        out.append("sum f \(text(results.sum(ofProperty: "f") as Float)) avg \(text(results.average(ofProperty: "f") as Double?))")
        if optionals { out.append("min of \(text(results.min(ofProperty: "of") as Float?)) sum \(text(results.sum(ofProperty: "of") as Float))") }
        out.append("min i \(String(describing: results.min(ofProperty: "i") as Int?)) max \(String(describing: results.max(ofProperty: "i") as Int?))")
        out.append("sum i \(attempt { () throws(Realm.Error) in try results.checkedSum(ofProperty: "i") as Int })")
        out.append("avg i \(text(results.average(ofProperty: "i") as Double?))")
        if optionals { out.append("sum oi \(attempt { () throws(Realm.Error) in try results.checkedSum(ofProperty: "oi") as Int }) min \(String(describing: results.min(ofProperty: "oi") as Int?))") }
        out.append("sum i8 \(attempt { () throws(Realm.Error) in try results.checkedSum(ofProperty: "i8") as Int8 }) max \(String(describing: results.max(ofProperty: "i8") as Int8?))")
        out.append("min dt \(String(describing: results.min(ofProperty: "dt") as Date?)) max \(String(describing: results.max(ofProperty: "dt") as Date?))")
        if optionals {
        out.append("max odt \(String(describing: results.max(ofProperty: "odt") as Date?))")
        out.append("sum dec \(results.sum(ofProperty: "dec") as Decimal128) avg \(String(describing: results.average(ofProperty: "dec") as Decimal128?))")
        out.append("min odec \(String(describing: results.min(ofProperty: "odec") as Decimal128?)) sum \(results.sum(ofProperty: "odec") as Decimal128)")
        }
        for (query, arguments) in queries + (optionals ? optionalQueries : []) {
            let matched = results.filter(query, arguments)
            // `count` first: on fresh results the fast path counts without collecting keys.
            out.append("\(query) \(arguments): \(matched.count) sum d \(text(matched.sum(ofProperty: "d") as Double))")
            out.append("  sorted \(results.filter(query, arguments).sorted(byKeyPath: "i").count)"
                       + " distinct \(results.filter(query, arguments).distinct(by: ["i8"]).count) listed \(Array(matched).count)")
        }
        return out
    }

    /// The transcript by the column scans, and by the general path.
    static func bothWays<T: Object>(_ results: () -> Results<T>) -> (fast: [String], general: [String]) {
        let fast = transcript(results())
        let general = QueryRowProgram.$objectPathOnly.withValue(true) {
            ColumnScan.$wholeRows.withValue(true) { transcript(results()) }
        }
        return (fast, general)
    }

    static func expectSame<T: Object>(_ results: () -> Results<T>, _ what: String) {
        let (fast, general) = bothWays(results)
        #expect(fast.count == general.count)
        for (a, b) in zip(fast, general) { #expect(a == b, "\(what)") }
    }

    /// `item` as a `PackedScanItem` (its non-optional properties).
    static func packed(_ o: ColumnScanItem) -> PackedScanItem {
        let p = PackedScanItem()
        p.d = o.d; p.f = o.f; p.i = o.i; p.i8 = o.i8; p.dt = o.dt; p.b = o.b
        return p
    }

    static func make<T: Object>(_ type: T.Type, _ random: inout ColumnScanRandom, nils: Bool, intRange: Bool) -> Object {
        let o = item(&random, nils: nils, intRange: intRange)
        return T.self == PackedScanItem.self ? packed(o) : o
    }

    @Test(arguments: [(0, false, false), (1, false, false), (3000, false, false), (3000, true, false), (2500, false, true)])
    func packedRowsAgree(rows: Int, allNil: Bool, intRange: Bool) throws {
        try check(PackedScanItem.self, rows: rows, allNil: allNil, intRange: intRange)
    }

    @Test(arguments: [(0, false, false), (1, false, false), (3000, false, false), (3000, true, false), (2500, false, true)])
    func slottedRowsAgree(rows: Int, allNil: Bool, intRange: Bool) throws {
        try check(ColumnScanItem.self, rows: rows, allNil: allNil, intRange: intRange)
    }

    func check<T: Object>(_ type: T.Type, rows: Int, allNil: Bool, intRange: Bool) throws {
        let realm = try Realm(configuration: memoryConfig())
        var random = ColumnScanRandom(state: UInt64(rows) &* 31 &+ (allNil ? 7 : 0) &+ (intRange ? 13 : 0))
        try realm.write {
            for _ in 0..<rows { realm.add(Self.make(T.self, &random, nils: allNil, intRange: intRange)) }
        }
        Self.expectSame({ realm.objects(T.self) }, "committed \(rows)")
        // Deleted rows, then uncommitted additions, changes and deletions inside a write.
        try realm.write { realm.delete(Array(realm.objects(T.self).filter("i > 100 AND b == true"))) }
        Self.expectSame({ realm.objects(T.self) }, "after deletions")
        let frozen = realm.freeze()
        try realm.write {
            for _ in 0..<(rows / 10) { realm.add(Self.make(T.self, &random, nils: allNil, intRange: intRange)) }
            for o in realm.objects(T.self).filter("i < -400") { o.setValue(Double.nan, forKey: "d"); o.setValue(3, forKey: "i") }
            realm.delete(Array(realm.objects(T.self).filter("f == 3")))
            Self.expectSame({ realm.objects(T.self) }, "uncommitted")
        }
        Self.expectSame({ frozen.objects(T.self) }, "frozen")
    }

    /// The generated data must reach the packed leaves the fast path reads plane by plane.
    @Test func generatedRowsArePacked() throws {
        let realm = try Realm(configuration: memoryConfig())
        var random = ColumnScanRandom(state: 1)
        try realm.write { for _ in 0..<3000 { realm.add(Self.make(PackedScanItem.self, &random, nils: false, intRange: false)) } }
        #expect(realm.objects(PackedScanItem.self).count == 3000)
        let core = realm.core
        let pages = try core.pages()
        let t = try #require(core.snap.tableByClass[ObjectIdentifier(PackedScanItem.self)])
        var packed = 0
        try TreePages.forEachPage(ofTreeAt: core.snap.metas[t].objects.root, in: pages) { ref in
            if try pages.readPage(ref).load(as: UInt8.self) == TreePageKind.keyedPackedLeaf { packed += 1 }
        }
        #expect(packed > 3)
    }
}
