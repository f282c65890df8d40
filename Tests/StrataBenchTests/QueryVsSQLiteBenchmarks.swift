// Query benchmarks, Strata (indexed and not) side by side with SQLite through GRDB doing the
// same work, measured in one run. Skipped unless STRATA_QUERY_BENCH=1; run in release:
//   STRATA_QUERY_BENCH=1 swift test -c release --filter QueryVsSQLiteBenchmarks
// (STRATA_QUERY_BENCH_N sets the number of objects, 1,000,000 by default.)
// Times are the median of 7 runs for cases under 0.2 s, one run otherwise (each `filter` builds a
// new Results, so no run reuses another's cached keys).
// Figures are printed ("BENCH ..." lines), never asserted: performance targets are judged in
// release runs, not by unit tests. Each case still checks that both engines found the same
// number of matches, so a fast wrong answer cannot pass unnoticed.
//
// Data (N objects/rows): plainInt = indexedInt = i % 10,000 (100 matches per value),
// plainString = indexedString = "s<i % 10,000>", plainSerial = serial = i (unique).
// Cases: count and filter (materialize the matches, sum a property) for == on an Int and on a
// String, indexed vs not; IN with 50,000 values on the unique column; 10,000 primary-key lookups
// among 100,000 objects (object(ofType:forPrimaryKey:) and filter("id == %@")).
// "before" lines: the unindexed cases again with predicates evaluated on materialised objects
// (QueryTuning.withObjectPath) and the filter lookups without the parse cache, in the same run.
import Foundation
import GRDB
@_spi(Benchmarks) import Strata
import Testing

final class QBItem: Object {
    @Persisted var plainInt = 0
    @Persisted(indexed: true) var indexedInt = 0
    @Persisted var plainString = ""
    @Persisted(indexed: true) var indexedString = ""
    @Persisted var plainSerial = 0
    @Persisted(indexed: true) var serial = 0
}

/// QBItem without its indexes: the cost of index maintenance at insert.
final class QBPlain: Object {
    @Persisted var plainInt = 0
    @Persisted var indexedInt = 0
    @Persisted var plainString = ""
    @Persisted var indexedString = ""
    @Persisted var plainSerial = 0
    @Persisted var serial = 0
}

final class QBKeyed: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var v = 0
}

private func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The median of several runs for cases under 0.2 s (one run otherwise): single sub-millisecond
/// timings on a shared 2-core machine are mostly noise.
private func medianSeconds(_ body: () throws -> Void) rethrows -> Double {
    var times = [try seconds(body)]
    if times[0] < 0.2 {
        for _ in 0..<6 { times.append(try seconds(body)) }
    }
    times.sort()
    return times[times.count / 2]
}

/// Milliseconds with two decimals, for the report lines.
private func ms(_ s: Double) -> String { String(format: "%.2f ms", s * 1000) }

@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_QUERY_BENCH"] == "1"), .serialized)
struct QueryVsSQLiteBenchmarks {
    let n = Int(ProcessInfo.processInfo.environment["STRATA_QUERY_BENCH_N"] ?? "") ?? 1_000_000
    let keyedCount = 100_000
    let lookups = 10_000
    let inCount = 50_000

    func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-qbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A line comparing Strata's time with SQLite's for one case.
    func report(_ name: String, strata: Double, sqlite: Double, matches: Int) {
        print("BENCH query \(name): Strata \(ms(strata)), SQLite \(ms(sqlite)), Strata/SQLite \(String(format: "%.2f", strata / sqlite))x (\(matches) matches)")
    }

    @Test func queriesSideBySide() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SystemRandomNumberGenerator()
        let inValues = (0..<inCount).map { _ in Int.random(in: 0..<n, using: &rng) }
        let keys = (0..<lookups).map { _ in Int.random(in: 0..<keyedCount, using: &rng) }

        // MARK: Strata
        var config = Realm.Configuration(fileURL: dir.appendingPathComponent("q.realm"))
        config.durability = .unsafe
        config.objectTypes = [QBItem.self, QBKeyed.self, QBPlain.self]
        let realm = try Realm(configuration: config)
        let insertPlain = try seconds {
            try insertInBatches(realm, count: n) { j in
                let o = QBPlain()
                o.plainInt = j % 10_000
                o.indexedInt = j % 10_000
                o.plainString = "s\(j % 10_000)"
                o.indexedString = o.plainString
                o.plainSerial = j
                o.serial = j
                return o
            }
        }
        print("BENCH query setup: Strata inserted \(n) objects without indexes in \(ms(insertPlain))")
        let insert = try seconds {
            try insertInBatches(realm, count: n) { j in
                let o = QBItem()
                o.plainInt = j % 10_000
                o.indexedInt = j % 10_000
                o.plainString = "s\(j % 10_000)"
                o.indexedString = o.plainString
                o.plainSerial = j
                o.serial = j
                return o
            }
            try realm.write {
                for j in 0..<keyedCount { realm.add(QBKeyed(value: ["id": j, "v": j])) }
            }
        }
        print("BENCH query setup: Strata inserted \(n) objects with 3 indexed properties (+\(keyedCount) keyed) in \(ms(insert))")
        let items = realm.objects(QBItem.self)
        var strata: [String: (time: Double, matches: Int)] = [:]
        func measure(_ name: String, _ body: () -> Int) {
            var matches = 0
            let t = medianSeconds { matches = body() }
            strata[name] = (t, matches)
        }
        func sumOf(_ r: Results<QBItem>) -> Int {
            var s = 0
            for o in r { s += o.plainSerial }
            return s
        }
        measure("count Int ==, not indexed") { items.filter("plainInt == %@", 4_242).count }
        measure("count Int ==, indexed") { items.filter("indexedInt == %@", 4_242).count }
        measure("count String ==, not indexed") { items.filter("plainString == %@", "s4242").count }
        measure("count String ==, indexed") { items.filter("indexedString == %@", "s4242").count }
        var sums: [String: Int] = [:]
        measure("filter Int ==, not indexed") { let r = items.filter("plainInt == %@", 4_243); sums["int"] = sumOf(r); return r.count }
        measure("filter Int ==, indexed") { let r = items.filter("indexedInt == %@", 4_243); #expect(sumOf(r) == sums["int"]); return r.count }
        measure("filter String ==, not indexed") { let r = items.filter("plainString == %@", "s4243"); sums["str"] = sumOf(r); return r.count }
        measure("filter String ==, indexed") { let r = items.filter("indexedString == %@", "s4243"); #expect(sumOf(r) == sums["str"]); return r.count }
        measure("IN 50,000, not indexed") { items.filter("plainSerial IN %@", inValues).count }
        measure("IN 50,000, indexed") { items.filter("serial IN %@", inValues).count }
        measure("10,000 pk lookups, object(forPrimaryKey:)") {
            var found = 0
            for k in keys where realm.object(ofType: QBKeyed.self, forPrimaryKey: k)?.v == k { found += 1 }
            return found
        }
        measure("10,000 pk lookups, filter(id == k)") {
            var found = 0
            let keyed = realm.objects(QBKeyed.self)
            for k in keys where keyed.filter("id == %@", k).first?.v == k { found += 1 }
            return found
        }
        // The same unindexed cases through the object path (each object materialised and read
        // through its properties), and `filter(id == k)` parsing every call: the figures before
        // row-bytes evaluation and the parse cache, measured in the same run.
        var before: [String: (time: Double, matches: Int)] = [:]
        func measureBefore(_ name: String, _ body: () -> Int) {
            var matches = 0
            let t = medianSeconds { matches = body() }
            before[name] = (t, matches)
        }
        QueryTuning.withObjectPath {
            measureBefore("count Int ==, not indexed") { items.filter("plainInt == %@", 4_242).count }
            measureBefore("count String ==, not indexed") { items.filter("plainString == %@", "s4242").count }
            measureBefore("filter Int ==, not indexed") { let r = items.filter("plainInt == %@", 4_243); #expect(sumOf(r) == sums["int"]); return r.count }
            measureBefore("filter String ==, not indexed") { let r = items.filter("plainString == %@", "s4243"); #expect(sumOf(r) == sums["str"]); return r.count }
        }
        QueryTuning.withoutParseCache {
            measureBefore("10,000 pk lookups, filter(id == k)") {
                var found = 0
                let keyed = realm.objects(QBKeyed.self)
                for k in keys where keyed.filter("id == %@", k).first?.v == k { found += 1 }
                return found
            }
        }
        for name in before.keys.sorted() {
            guard let old = before[name], let new = strata[name] else { continue }
            #expect(old.matches == new.matches, "\(name): object path \(old.matches), row path \(new.matches)")
            print("BENCH query Strata \(name): before (object path / no parse cache) \(ms(old.time)), after \(ms(new.time)), speed-up \(String(format: "%.1f", old.time / new.time))x")
        }
        for (a, b) in [("count Int ==, not indexed", "count Int ==, indexed"), ("count String ==, not indexed", "count String ==, indexed"),
                       ("filter Int ==, not indexed", "filter Int ==, indexed"), ("filter String ==, not indexed", "filter String ==, indexed"),
                       ("IN 50,000, not indexed", "IN 50,000, indexed")] {
            if let x = strata[a], let y = strata[b] {
                #expect(x.matches == y.matches, "\(a) vs \(b)")
                print("BENCH query Strata \(b.replacingOccurrences(of: ", indexed", with: "")): scan \(ms(x.time)), index \(ms(y.time)), speed-up \(String(format: "%.0f", x.time / y.time))x (\(y.matches) matches)")
            }
        }

        // MARK: SQLite (GRDB), same data and queries, WAL, synchronous=OFF
        var gconfig = GRDB.Configuration()
        gconfig.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous=OFF") }
        let db = try DatabasePool(path: dir.appendingPathComponent("q.sqlite").path, configuration: gconfig)
        let sqlInsert = try seconds {
            try db.write { db in
                try db.execute(sql: """
                    CREATE TABLE item(plainInt INTEGER, indexedInt INTEGER, plainString TEXT, indexedString TEXT,
                                      plainSerial INTEGER, serial INTEGER);
                    CREATE INDEX item_indexedInt ON item(indexedInt);
                    CREATE INDEX item_indexedString ON item(indexedString);
                    CREATE INDEX item_serial ON item(serial);
                    CREATE TABLE keyed(id INTEGER PRIMARY KEY, v INTEGER);
                    """)
            }
            var i = 0
            while i < n {
                try db.write { db in
                    let s = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?)")
                    for j in i..<min(n, i + 10_000) {
                        try s.execute(arguments: [j % 10_000, j % 10_000, "s\(j % 10_000)", "s\(j % 10_000)", j, j])
                    }
                }
                i += 10_000
            }
            try db.write { db in
                let s = try db.makeStatement(sql: "INSERT INTO keyed VALUES (?, ?)")
                for j in 0..<keyedCount { try s.execute(arguments: [j, j]) }
            }
        }
        print("BENCH query setup: SQLite inserted \(n) rows with 3 indexes (+\(keyedCount) keyed) in \(ms(sqlInsert))")
        var sqlite: [String: (time: Double, matches: Int)] = [:]
        func measureSQL(_ name: String, _ body: (Database) throws -> Int) throws {
            var matches = 0
            let t = try medianSeconds { matches = try db.read { try body($0) } }
            sqlite[name] = (t, matches)
        }
        func sumSQL(_ db: Database, _ whereClause: String, _ args: StatementArguments) throws -> (sum: Int, count: Int) {
            var sum = 0, count = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM item WHERE \(whereClause)", arguments: args)
            while let row = try rows.next() {
                sum += row["plainSerial"] as Int
                count += 1
            }
            return (sum, count)
        }
        let inList = inValues.map(String.init).joined(separator: ",")
        try measureSQL("count Int ==, not indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE plainInt = ?", arguments: [4_242]) ?? -1 }
        try measureSQL("count Int ==, indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE indexedInt = ?", arguments: [4_242]) ?? -1 }
        try measureSQL("count String ==, not indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE plainString = ?", arguments: ["s4242"]) ?? -1 }
        try measureSQL("count String ==, indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE indexedString = ?", arguments: ["s4242"]) ?? -1 }
        try measureSQL("filter Int ==, not indexed") { let r = try sumSQL($0, "plainInt = ?", [4_243]); #expect(r.sum == sums["int"]); return r.count }
        try measureSQL("filter Int ==, indexed") { let r = try sumSQL($0, "indexedInt = ?", [4_243]); #expect(r.sum == sums["int"]); return r.count }
        try measureSQL("filter String ==, not indexed") { let r = try sumSQL($0, "plainString = ?", ["s4243"]); #expect(r.sum == sums["str"]); return r.count }
        try measureSQL("filter String ==, indexed") { let r = try sumSQL($0, "indexedString = ?", ["s4243"]); #expect(r.sum == sums["str"]); return r.count }
        try measureSQL("IN 50,000, not indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE plainSerial IN (\(inList))") ?? -1 }
        try measureSQL("IN 50,000, indexed") { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item WHERE serial IN (\(inList))") ?? -1 }
        try measureSQL("10,000 pk lookups, object(forPrimaryKey:)") { db in
            var found = 0
            let s = try db.makeStatement(sql: "SELECT v FROM keyed WHERE id = ?")
            for k in keys where try Int.fetchOne(s, arguments: [k]) == k { found += 1 }
            return found
        }
        sqlite["10,000 pk lookups, filter(id == k)"] = sqlite["10,000 pk lookups, object(forPrimaryKey:)"]

        for name in strata.keys.sorted() {
            guard let s = strata[name], let q = sqlite[name] else { continue }
            #expect(s.matches == q.matches, "\(name): Strata \(s.matches) matches, SQLite \(q.matches)")
            report(name, strata: s.time, sqlite: q.time, matches: s.matches)
        }
    }
}

/// Adds `count` objects made by `make(j)` in write transactions of 10,000.
private func insertInBatches(_ realm: Realm, count n: Int, make: (Int) -> Object) throws {
    var i = 0
    while i < n {
        try realm.write {
            for j in i..<min(n, i + 10_000) { realm.add(make(j)) }
        }
        i += 10_000
    }
}
