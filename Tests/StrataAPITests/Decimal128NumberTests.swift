// Decimal128 as a number, with RealmSwift's API: conversions, exact decimal arithmetic, range,
// striding, NaN and Codable; and values at the ends of the range survive being stored.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Decimal128 numbers")
struct Decimal128NumberTests {
    @Test func arithmeticIsDecimal() {
        let a: Decimal128 = 0.1, b: Decimal128 = "0.2"
        #expect(a + b == "0.3")  // exact, unlike Double
        #expect(Decimal128(string: "12.5", or: 0) * 2 == 25 && Decimal128(10) - 0.5 == "9.5")
        #expect((Decimal128(1) / 4) == "0.25" && (Decimal128(1) / 0).isNaN)
        var c: Decimal128 = 5
        c += 1; c *= 3; c -= 2; c /= 4
        #expect(c == 4)
        #expect((-Decimal128(3)).magnitude == 3)
        let d: Decimal128 = 7
        d.negate()
        #expect(d == -7)
        #expect(stride(from: Decimal128(0), to: 1, by: 0.25).map { $0 } == [0, 0.25, 0.5, 0.75])
    }

    @Test func aDecimalIsAnInstanceAsInRealmSwift() throws {
        let price: Decimal128 = "12.5"
        let samePrice = price
        let copy = Decimal128(value: price)
        let sum = price + 1
        price.negate()
        #expect(samePrice == -12.5 && samePrice === price)  // one instance, seen through both names
        #expect(copy == 12.5 && sum == 13.5)  // a conversion and a result are new instances

        // A value read from a realm is a new instance: negating it changes nothing stored.
        let realm = try Realm(configuration: memoryConfig())
        let holder = DecimalHolder()
        holder.amount = 3
        try realm.write { realm.add(holder) }
        let read = holder.amount
        read.negate()
        #expect(read == -3 && holder.amount == 3)
    }

    @Test func createAndKeyValueCodingConvertNumbersAndNumericText() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let a = realm.create(DecimalHolder.self, value: ["amount": 1, "maybe": "2.5"])
            let b = realm.create(DecimalHolder.self, value: ["amount": NSNumber(value: 7), "maybe": Decimal(string: "0.125")!])
            b.setValue(4.5, forKey: "amount")
            a.setValue("1e3", forKey: "maybe")
        }
        let holders = realm.objects(DecimalHolder.self)
        #expect(holders.map(\.amount) == [1, 4.5])
        #expect(holders.map(\.maybe) == [1000, 0.125])
    }

    @Test func textThatIsNotANumberFailsTheWrite() throws {
        let realm = try Realm(configuration: memoryConfig())
        for bad: Any in ["pear", true] {
            #expect(throws: Realm.Error.self) {
                try realm.write { realm.create(DecimalHolder.self, value: ["amount": bad]) }
            }
        }
        #expect(realm.objects(DecimalHolder.self).isEmpty)  // each failed write rolled back
    }

    @Test func oneInstanceNegatedFromManyThreads() async {
        let shared: Decimal128 = 5
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1_000 { shared.negate() } } }
        }
        #expect(shared == 5)  // 8,000 negations, none lost to a race
    }

    @Test func conversionsFromOtherValues() {
        #expect(Decimal128(value: Int8(-3)) == -3 && Decimal128(value: UInt64.max) == Decimal128(string: "18446744073709551615", or: 0))
        #expect(Decimal128(value: Float(0.5)) == 0.5 && Decimal128(value: 2.25) == 2.25)
        #expect(Decimal128(value: "1e3") == 1000 && Decimal128(value: Decimal(string: "4.5")!) == 4.5)
        #expect(Decimal128(value: NSNumber(value: 7)) == 7 && Decimal128(number: NSNumber(value: 1.5)) == 1.5)
        #expect(Decimal128(value: Decimal128(9)) == 9)
        // Not a number: NaN, never a stop.
        #expect(Decimal128(value: "twelve").isNaN && Decimal128(value: Date()).isNaN && Decimal128(value: true).isNaN)
        #expect(Decimal128(exactly: Int.max) == Decimal128(string: "\(Int.max)", or: 0))
        #expect(Decimal128(exactly: UInt128.max) == nil)  // 39 digits: more than a stored value keeps
        #expect(Decimal128(exactly: UInt128(String(repeating: "9", count: 34))!) != nil)
        #expect(Decimal128(exactly: UInt128(String(repeating: "9", count: 35))!) == nil)
        #expect(Decimal128(exactly: UInt128("1" + String(repeating: "0", count: 37))!) != nil)  // one significant digit
    }

    @Test func aBinaryNumberIsTheDecimalItWasWrittenAs() throws {
        // Fifteen significant digits, as Realm rounds a Double: what the literal says, not the
        // binary value's 19.989999999999998436… nor Foundation's 19.98999999999999488.
        let price: Decimal128 = 19.99
        #expect(price == (try Decimal128(string: "19.99")) && price.stringValue == "19.99")
        #expect(Decimal128(value: 0.1 + 0.2) == (try Decimal128(string: "0.3")))
        #expect(Decimal128(value: 123456.789).stringValue == "123456.789")
        #expect(Decimal128(number: NSNumber(value: 19.99)).stringValue == "19.99")
        #expect(Decimal128(value: NSNumber(value: -3.144444)).stringValue == "-3.144444")
        // The Float's value to 15 digits, in Realm's text (a number below 1 has an exponent).
        #expect(Decimal128(value: Float(0.1)).stringValue == "1.00000001490116E-1")
        #expect(Decimal128(value: 1.0 / 3.0).stringValue == "3.33333333333333E-1")
        #expect(Decimal128(value: 6.02214076e23) == (try Decimal128(string: "6.02214076e23")))
        #expect(Decimal128(value: 1e-120) == (try Decimal128(string: "1e-120")))
        // Beyond Foundation's Decimal, or not finite: NaN.
        #expect(Decimal128(value: 1e300).isNaN && Decimal128(value: Double.infinity).isNaN && Decimal128(value: Double.leastNonzeroMagnitude).isNaN)
        // Conversions are remembered a few at a time: cycling through more values than that keeps
        // each one's own decimal.
        let written = ["0.1", "2.5", "19.99", "-3.25", "1e-7", "123456.789"]
        for _ in 0..<3 {
            for text in written {
                #expect(Decimal128(value: Double(text)!) == (try Decimal128(string: text)), "\(text)")
            }
        }
        let decoded = try JSONDecoder().decode([Decimal128].self, from: Data("[19.99, 7]".utf8))
        #expect(decoded == [try Decimal128(string: "19.99"), 7])
    }

    @Test func aQueryComparesADoubleAsTheDecimalItWasWrittenAs() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            realm.create(DecimalHolder.self, value: ["amount": try Decimal128(string: "19.99")])
            realm.create(DecimalHolder.self, value: ["amount": 19.99])
        }
        let holders = realm.objects(DecimalHolder.self)
        #expect(holders.filter("amount == %@", 19.99).count == 2)
        #expect(holders.filter("amount == 19.99").count == 2)
        #expect(holders.filter("amount < %@", 19.99).isEmpty)
    }

    @Test func nanAndText() {
        let nan = Decimal128(value: "x")
        #expect(nan.isNaN && nan.isSignaling && nan.isSignalingNaN && nan.stringValue == "NaN")
        #expect(Decimal128(12.5).stringValue == "12.5" && !Decimal128(1).isNaN)
    }

    @Test func theRangeIsWhatAStoredValueHolds() throws {
        #expect(Decimal128.min < -1 && Decimal128.max > 1 && Decimal128.min == -Decimal128.max)
        // A coefficient beyond 64 bits prints with both signs, as realm-core prints one.
        #expect(Decimal128.max.stringValue == "+" + String(repeating: "9", count: 34) + "E+127")
        let realm = try Realm(configuration: memoryConfig())
        let holder = DecimalHolder()
        holder.amount = .max
        holder.maybe = .min
        try realm.write { realm.add(holder) }
        let read = try #require(realm.objects(DecimalHolder.self).first)
        #expect(read.amount == .max && read.maybe == .min)
    }

    @Test func aValueBeyondTheRangeFailsTheWriteAndChangesNothing() throws {
        let realm = try Realm(configuration: memoryConfig())
        let holder = DecimalHolder()
        holder.amount = 7
        try realm.write { realm.add(holder) }
        // 38 digits at Foundation's largest exponent: rounded to 34 digits it needs exponent 131.
        let beyond = try Decimal128(string: "12345678901234567890123456789012345678e127")
        #expect(beyond > Decimal128.max)
        #expect(throws: Realm.Error.self) { try realm.write { holder.amount = beyond } }
        #expect(holder.amount == 7)
        #expect(throws: Realm.Error.self) { try realm.write { holder.history.append(beyond) } }
        #expect(holder.history.isEmpty)
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(DecimalHolder(value: ["amount": beyond])) }
        }
        #expect(realm.objects(DecimalHolder.self).count == 1)
        let mixed = DecimalInMixedHolder()
        try realm.write { realm.add(mixed) }
        #expect(throws: Realm.Error.self) { try realm.write { mixed.value = .decimal128(beyond) } }
        #expect(mixed.value == .none)
    }

    @Test func codableAsText() throws {
        let encoded = try JSONEncoder().encode([Decimal128("12.5")])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"12.5\"]")
        let decoded = try JSONDecoder().decode([Decimal128].self, from: Data("[\"1.25\", 3, 0.5]".utf8))
        #expect(decoded == ["1.25", 3, 0.5])
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Decimal128].self, from: Data("[\"pear\"]".utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)) }
    }
}

extension Decimal128 {
    /// A test shorthand: the parsed string, or `fallback` when it is not a number.
    convenience init(string: String, or fallback: Decimal128) {
        self.init(((try? Decimal128(string: string)) ?? fallback).value)
    }
}

final class DecimalInMixedHolder: Object {
    @Persisted var value: AnyRealmValue
}
