// printf-style placeholders in query text (`%d`, `%i`, `%ld`, `%f`, `%s`…), which NSPredicate and so
// Realm's `filter` take besides `%@` and `%K`.
import Foundation
import Strata
import Testing

final class Gauge: Object {
    @Persisted var name = ""
    @Persisted var level: Int8 = 0
    @Persisted var total: Int64 = 0
    @Persisted var reading = 0.0
}

@Suite("Query format specifiers")
struct QueryFormatSpecifierTests {
    private func gauges() throws -> Results<Gauge> {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [Gauge.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(Gauge(value: ["name": "low", "level": 1, "total": 10, "reading": 0.5]))
            realm.add(Gauge(value: ["name": "mid", "level": 2, "total": 20, "reading": 1.5]))
            realm.add(Gauge(value: ["name": "high", "level": 3, "total": 30, "reading": 2.5]))
        }
        return realm.objects(Gauge.self)
    }

    private func names(_ results: Results<Gauge>) -> [String] { results.map(\.name).sorted() }

    @Test func integerSpecifiersTakeIntegersOfEveryWidth() throws {
        let gauges = try gauges()
        #expect(names(gauges.filter("level = %d", Int8(2))) == ["mid"])
        #expect(names(gauges.filter("level == %i", 3)) == ["high"])
        #expect(names(gauges.filter("total >= %ld", Int64(20))) == ["high", "mid"])
        #expect(names(gauges.filter("total < %lld AND level > %hd", Int64(30), Int16(1))) == ["mid"])
        #expect(names(gauges.filter("level != %u", UInt(1))) == ["high", "mid"])
    }

    @Test func floatingAndStringSpecifiers() throws {
        let gauges = try gauges()
        #expect(names(gauges.filter("reading > %f", 1.0)) == ["high", "mid"])
        #expect(names(gauges.filter("reading <= %lf", 0.5)) == ["low"])
        #expect(names(gauges.filter("name == %s", "mid")) == ["mid"])
        #expect(names(gauges.filter("%K BEGINSWITH %s OR level == %d", "name", "h", 1)) == ["high", "low"])
    }

    @Test func anUnknownSpecifierOrAValueOfTheWrongTypeIsATypedError() throws {
        let gauges = try gauges()
        for (format, argument) in [("level == %x", 1 as Any), ("level == %dx", 1), ("level == %d", "two"), ("name == %s", 3)] {
            do {
                _ = try gauges.filtering(format, [argument])
                Issue.record("\(format) was accepted")
            } catch let error as Realm.Error {
                #expect(error.code == .invalidQuery, "\(format)")
            }
        }
    }
}
