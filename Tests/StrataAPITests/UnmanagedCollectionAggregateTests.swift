// An unmanaged list or set of objects answers `index(matching:)` and the aggregates in memory, as
// RealmSwift does before the owner is added; the property rules are those of a managed one.
import Foundation
import Strata
import Testing

final class LooseReading: Object {
    @Persisted var label = ""
    @Persisted var count = 0
    @Persisted var small: Int8 = 0
    @Persisted var level: Float = 0
    @Persisted var weight = 0.0
    @Persisted var taken = Date(timeIntervalSince1970: 0)
    @Persisted var note: String?
    @Persisted var bonus: Int?
}

final class LooseLogbook: Object {
    @Persisted var readings: List<LooseReading>
    @Persisted var distinct: MutableSet<LooseReading>
}

@Suite("Unmanaged collections of objects: queries and aggregates in memory")
struct UnmanagedCollectionAggregateTests {
    private func logbook() -> LooseLogbook {
        let book = LooseLogbook()
        for (i, label) in ["north", "south", "east"].enumerated() {
            let reading = LooseReading()
            reading.label = label
            reading.count = i + 1
            reading.small = Int8(i + 1)
            reading.level = Float(i) + 1.5
            reading.weight = Double(i + 1) * 1.25
            reading.taken = Date(timeIntervalSince1970: Double(10 * (i + 1)))
            reading.bonus = i == 1 ? nil : i * 10
            book.readings.append(reading)
            book.distinct.insert(reading)
        }
        return book
    }

    @Test func indexMatchingEvaluatesTheQueryOnEachObject() {
        let book = logbook()
        #expect(book.readings.realm == nil)
        #expect(book.readings.index(matching: "label == 'south'") == 1)
        #expect(book.readings.index(matching: "count > %@ AND label BEGINSWITH %@", 1, "e") == 2)
        #expect(book.readings.index(matching: "note == nil") == 0)
        #expect(book.readings.index(matching: "label == 'west'") == nil)
        #expect(book.readings.index(matching: { $0.weight >= 2.5 }) == 1)
        #expect(book.distinct.index(matching: { $0.label == "east" }) != nil)
    }

    @Test func aggregatesReadTheUnmanagedValues() {
        let readings = logbook().readings
        #expect(readings.min(ofProperty: "count") as Int? == 1)
        #expect(readings.max(ofProperty: "small") as Int8? == 3)
        #expect(readings.max(ofProperty: "small") as Int? == 3)
        #expect(readings.sum(ofProperty: "weight") as Double == 7.5)
        #expect(readings.average(ofProperty: "count") as Double? == 2)
        #expect(readings.min(ofProperty: "level") as Float? == 1.5)
        #expect(readings.max(ofProperty: "taken") as Date? == Date(timeIntervalSince1970: 30))
        #expect(readings.sum(ofProperty: "bonus") as Int == 20)
        #expect(readings.average(ofProperty: "bonus") as Double? == 10)
        #expect(readings.min(of: \.count) == 1 && readings.sum(of: \.small) == 6)
        #expect(readings.average(of: \.weight) == 2.5)
        #expect(logbook().distinct.sum(ofProperty: "count") as Int == 6)
    }

    @Test func boxedAggregatesKeepThePropertyType() {
        let readings = logbook().readings
        #expect(readings.min(ofProperty: "count") as NSNumber? == NSNumber(value: 1))
        #expect(readings.sum(ofProperty: "weight") as NSNumber == NSNumber(value: 7.5))
        #expect(readings.average(ofProperty: "count") as NSNumber? == NSNumber(value: 2.0))
        #expect(readings.max(ofProperty: "taken") as NSDate? == NSDate(timeIntervalSince1970: 30))
        #expect(LooseLogbook().readings.sum(ofProperty: "count") as NSNumber == NSNumber(value: 0))
        #expect(LooseLogbook().readings.average(ofProperty: "count") as NSNumber? == nil)
    }

    @Test func theAnswersAreThoseOfTheManagedCollection() throws {
        let book = logbook()
        let unmanaged: [String] = [
            "\(book.readings.index(matching: "weight > 2") as Any)",
            "\(book.readings.sum(ofProperty: "small") as Int)",
            "\(book.readings.average(ofProperty: "bonus") as Double? as Any)",
            "\(book.readings.max(ofProperty: "label") as String? as Any)",
        ]
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(book) }
        let managed: [String] = [
            "\(book.readings.index(matching: "weight > 2") as Any)",
            "\(book.readings.sum(ofProperty: "small") as Int)",
            "\(book.readings.average(ofProperty: "bonus") as Double? as Any)",
            "\(book.readings.max(ofProperty: "label") as String? as Any)",
        ]
        #expect(unmanaged == managed)
    }

    @Test func anUnknownPropertyStops() async {
        await #expect(processExitsWith: .failure) {
            _ = LooseLogbook().readings.min(ofProperty: "noSuchProperty") as Int?
        }
    }

    @Test func aPropertyOfAnotherTypeStops() async {
        await #expect(processExitsWith: .failure) {
            _ = LooseLogbook().readings.sum(ofProperty: "label") as Int
        }
    }

    @Test func aQueryOnAnUnknownPropertyStops() async {
        await #expect(processExitsWith: .failure) {
            _ = LooseLogbook().readings.index(matching: "noSuchProperty == 1")
        }
    }

    @Test func filteringAnUnmanagedListStillStops() async {
        await #expect(processExitsWith: .failure) {
            _ = LooseLogbook().readings.filter("count > 1").count
        }
    }
}
