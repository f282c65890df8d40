// `description` prints numbers, decimals and class names as RealmSwift prints them, so a log or a
// test that compares printed objects reads the same after a port: a Float to 7 significant
// digits and a Double to 16 (NSNumber's `%0.7g` and `%0.16g`), a Decimal128 as realm-core writes
// it (with an exponent where Realm keeps one), and a class by its Swift name even when
// `_realmObjectName()` stores it under another.
import Foundation
import Strata
import Testing

final class ScaleReading: Object {
    @Persisted var weight: Float = 1.23
    @Persisted var total = 0.1 + 0.2
    @Persisted var length = 12.3
    @Persisted var price: Decimal128 = "123e4"
    @Persisted var fee: Decimal128 = 150
    @Persisted var share: Decimal128 = "0.001"
    @Persisted var weights: List<Float>
    @Persisted var extra: AnyRealmValue
}

final class RenamedScale: Object {
    @Persisted var label = ""
    @Persisted var readings: List<ScaleReading>
    override class func _realmObjectName() -> String? { "Scale In The File" }
}

@Suite("description digits and names as in RealmSwift")
struct DescriptionDigitsTests {
    @Test func aFloatPrintsSevenDigitsAndADoubleSixteen() {
        let reading = ScaleReading()
        reading.weights.append(1.23)
        reading.extra = .float(4.56)
        let text = reading.description
        #expect(text.contains("\tweight = 1.23;\n"), "\(text)")
        #expect(text.contains("\ttotal = 0.3;\n"), "\(text)")
        #expect(text.contains("\tlength = 12.3;\n"), "\(text)")
        #expect(text.contains("[0] 1.23\n"), "\(text)")
        #expect(text.contains("\textra = 4.56;\n"), "\(text)")
    }

    @Test func aManagedFloatPrintsAsTheUnmanagedOne() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let reading = ScaleReading()
        try realm.write { realm.add(reading) }
        #expect(reading.description.contains("\tweight = 1.23;\n"), "\(reading.description)")
        #expect(reading.description.contains("\ttotal = 0.3;\n"), "\(reading.description)")
    }

    @Test func aDecimalPrintsTheExponentRealmKeeps() {
        let text = ScaleReading().description
        #expect(text.contains("\tprice = 1.23E6;\n"), "\(text)")
        #expect(text.contains("\tfee = 150;\n"), "\(text)")
        #expect(text.contains("\tshare = 1E-3;\n"), "\(text)")
    }

    @Test func decimalTextFollowsRealm() throws {
        #expect(Decimal128("123e4").description == "1.23E6")
        #expect(Decimal128("1.5e2").stringValue == "1.5E2")
        #expect(Decimal128("150").stringValue == "150")
        #expect(Decimal128(1230000).stringValue == "1230000")
        #expect(Decimal128("1.50").stringValue == "1.5")
        #expect(Decimal128("0.25").stringValue == "2.5E-1")
        #expect(Decimal128("19.99").stringValue == "19.99")
        #expect((Decimal128("2.5") - Decimal128("3.5")).stringValue == "-1")
        #expect((Decimal128("1.234567") + Decimal128("9.876543")).stringValue == "11.11111")
        #expect((Decimal128("1e2") * Decimal128(3)).stringValue == "3E2")
        #expect(Decimal128(1e20).stringValue == "1E20")
        #expect(Decimal128(19.99).stringValue == "19.99")
        #expect((try Decimal128(string: "1234567890123456789012345.5")).stringValue == "+12345678901234567890123455E-1")
        // The text reads back as the same number.
        let written = Decimal128("123e4")
        #expect((try Decimal128(string: written.stringValue)) == written)
    }

    @Test func aRenamedClassPrintsItsSwiftName() throws {
        let scale = RenamedScale()
        scale.label = "hall"
        scale.readings.append(ScaleReading())
        #expect(scale.description.hasPrefix("RenamedScale {\n\tlabel = hall;\n\treadings = List<ScaleReading> <0x"), "\(scale.description)")

        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(scale) }
        #expect(scale.description.hasPrefix("RenamedScale {\n"), "\(scale.description)")
        #expect(realm.objects(RenamedScale.self).description.hasPrefix("Results<RenamedScale> <0x"))
    }
}
