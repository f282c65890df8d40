// min/max/sum/average(ofProperty:) asked for as Foundation boxes (`as NSNumber?`, `as NSDate?`), on
// results, lists and generic collections: the box keeps the property's type, and the typed forms
// are still what a literal or a Swift type asks for.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Meter: Object {
    @Persisted var count = 0
    @Persisted var level: Float = 0
    @Persisted var ratio = 0.0
    @Persisted var amount = Decimal128(0)
    @Persisted var at = Date(timeIntervalSince1970: 0)
    @Persisted var note = ""
}

final class MeterLog: Object {
    @Persisted var readings: List<Meter>
}

private func boxedMinimum<C: RealmCollection>(_ collection: C, _ property: String) -> NSNumber? where C.Element: Object {
    collection.min(ofProperty: property)
}

@Suite("Aggregates as NSNumber and NSDate")
struct BridgedAggregateTests {
    private func filledLog() throws -> (Realm, MeterLog) {
        let realm = try Realm(configuration: memoryConfig())
        let log = MeterLog()
        for i in 1...3 {
            let reading = Meter()
            reading.count = i
            reading.level = Float(i) + 0.5
            reading.ratio = Double(i) / 4
            reading.amount = Decimal128(number: NSNumber(value: i * 10))
            reading.at = Date(timeIntervalSince1970: Double(i))
            log.readings.append(reading)
        }
        try realm.write { realm.add(log) }
        return (realm, log)
    }

    @Test func resultsGiveBoxesOfThePropertysType() throws {
        let (realm, _) = try filledLog()
        let readings = realm.objects(Meter.self)
        #expect(readings.min(ofProperty: "count") as NSNumber? == 1)
        #expect(readings.max(ofProperty: "count") as NSNumber? == 3)
        #expect((readings.max(ofProperty: "level") as NSNumber?)?.floatValue == 3.5)
        #expect(readings.min(ofProperty: "ratio") as NSNumber? == NSNumber(value: 0.25))
        #expect((readings.max(ofProperty: "amount") as NSNumber?) is NSDecimalNumber)
        #expect(readings.min(ofProperty: "at") as NSDate? == NSDate(timeIntervalSince1970: 1))
        #expect(readings.max(ofProperty: "at") as NSDate? == NSDate(timeIntervalSince1970: 3))
        #expect(readings.sum(ofProperty: "count") as NSNumber == 6)
        #expect((readings.sum(ofProperty: "level") as NSNumber).doubleValue == 7.5)
        #expect(readings.average(ofProperty: "count") as NSNumber? == 2)
        #expect((readings.sum(ofProperty: "amount") as NSNumber).intValue == 60)
        // The typed forms are unchanged.
        #expect(readings.min(ofProperty: "count") == 1)
        #expect(readings.sum(ofProperty: "count") as Int == 6)
        #expect(readings.average(ofProperty: "count") == 2)
    }

    @Test func emptyCollectionsGiveNilOrZero() throws {
        let realm = try Realm(configuration: memoryConfig())
        let none = realm.objects(Meter.self)
        #expect(none.min(ofProperty: "count") as NSNumber? == nil)
        #expect(none.max(ofProperty: "at") as NSDate? == nil)
        #expect(none.sum(ofProperty: "ratio") as NSNumber == 0)
        #expect(none.average(ofProperty: "ratio") as NSNumber? == nil)
    }

    @Test func listsAndGenericCodeAnswerToo() throws {
        let (_, log) = try filledLog()
        #expect(log.readings.max(ofProperty: "count") as NSNumber? == 3)
        #expect(boxedMinimum(log.readings, "count") == 1)
        #expect(boxedMinimum(log.readings.filter("count > 1"), "count") == 2)
    }

    @Test func aPropertyThatIsNotANumberStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "boxed-note"))
            _ = realm.objects(Meter.self).min(ofProperty: "note") as NSNumber?
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "boxed-missing"))
            _ = realm.objects(Meter.self).sum(ofProperty: "noSuchProperty") as NSNumber
        }
    }
}
