// Decimal128 is stored as 16 binary bytes: values, optionals and lists of them round-trip
// through a file exactly, with Realm's rounding beyond 34 digits and NaN kept.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport


@Suite struct DecimalStorageTests {
    @Test func decimalSlotIsSixteenFixedBytes() throws {
        let column = try #require(try ClassInfo.of(DecimalHolder.self).layout.columns.first)
        #expect(column.type == .decimal128)
        #expect(!column.isVariable)
        #expect(_Column.width(type: .decimal128, collection: .none) == 16)
    }

    @Test func valuesRoundTripThroughAFile() throws {
        let config = tempConfig("decimal")
        let values = ["0", "-1", "3.14159", "-12345678901234567890.123456789", "1e-40", "9e100",
                      "1234567890123456789012345678901234",  // 34 digits: exact
                      "9999999999999999999999999999999999",  // 34 digits above 2¹¹²: exact too
                      "-8765432109876543210987654321098765e-128",
                      "5192296858534827628530496329220096e127"]  // 2¹¹² at the largest exponent
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for v in values {
                    let h = DecimalHolder()
                    h.amount = try Decimal128(string: v)
                    h.maybe = v == "0" ? nil : try Decimal128(string: v)
                    for w in values { h.history.append(try Decimal128(string: w)) }
                    realm.add(h)
                }
            }
        }
        let realm = try Realm(configuration: config)
        let stored = realm.objects(DecimalHolder.self).map { $0.amount }
        #expect(stored == (try values.map { try Decimal128(string: $0) }))
        let first = try #require(realm.objects(DecimalHolder.self).first)
        #expect(first.maybe == nil)
        #expect(realm.objects(DecimalHolder.self)[1].maybe == (try Decimal128(string: "-1")))
        #expect(Array(first.history) == (try values.map { try Decimal128(string: $0) }))
    }

    @Test func moreThanThirtyFourDigitsRoundHalfUp() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = DecimalHolder()
        try realm.write {
            h.amount = try Decimal128(string: "12345678901234567890123456789012345678")  // 38 digits
            realm.add(h)
        }
        #expect(h.amount == (try Decimal128(string: "12345678901234567890123456789012350000")))
        try realm.write { h.amount = try Decimal128(string: "-0.99999999999999999999999999999999999") }  // 35 nines
        #expect(h.amount == -1)
        // 35 nines round up to 10³⁵: the carry leaves a 34-digit coefficient one exponent higher.
        try realm.write { h.amount = try Decimal128(string: String(repeating: "9", count: 35)) }
        #expect(h.amount == (try Decimal128(string: "1e35")))
        // 38 digits at exponent 123 round to exponent 127, the largest stored: exact, not clamped.
        try realm.write { h.amount = try Decimal128(string: "99999999999999999999999999999999994999e123") }
        #expect(h.amount == (try Decimal128(string: "9999999999999999999999999999999999e127")))
    }

    @Test func nanIsKept() throws {
        let realm = try Realm(configuration: memoryConfig())
        let h = DecimalHolder()
        try realm.write {
            h.amount = Decimal128(Decimal.nan)
            realm.add(h)
        }
        #expect(h.amount.value.isNaN)
    }
}
