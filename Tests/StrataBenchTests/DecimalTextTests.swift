import Foundation
import PropertyBased
import Testing
import StrataBench

/// The one reader of numbers as text (Core/DecimalText.swift): strict grammar, exact integers, and
/// everything the harness writes reads back as written.
@Suite("decimal text")
struct DecimalTextTests {
    @Test func everyFiniteDoubleTheCSVWriterWritesReadsBackExactly() async {
        // Random bit patterns: every exponent is as likely as any other, subnormals included.
        await propertyCheck(count: 3000, input: Gen.int()) { bits in
            let value = Double(bitPattern: UInt64(bitPattern: Int64(bits)))
            guard value.isFinite else { return }
            for digits in [1, 3, 6] {
                let text = CSVNumber.format(value, digits: digits)
                // The number the text denotes, rounded once (the text is all ASCII digits).
                #expect(DecimalText.double(text) == Double(text), "\(value) written as \(text)")
            }
            // Shortest round-trip form (history export, messages): the very same Double.
            #expect(DecimalText.double(value.description) == value, "\(value.description)")
            #expect(DecimalText.double(String(format: "%.17g", value)) == value)
        }
    }

    @Test func wholeValuesTheCSVWriterWritesReadBackAsThemselves() async {
        await propertyCheck(count: 2000, input: Gen.int(in: -999_999_999_999_999...999_999_999_999_999)) { value in
            let text = CSVNumber.format(Double(value))
            #expect(DecimalText.double(text) == Double(value))
            #expect(DecimalText.integer(text) == value)
        }
        await propertyCheck(count: 2000, input: Gen.int()) { value in
            #expect(DecimalText.integer(String(value)) == value)
            #expect(DecimalText.integer(CSVNumber.format(Int64(value))) == value)
        }
    }

    @Test func smallAndSubnormalDoublesReadBack() async {
        await propertyCheck(count: 1000, input: Gen.double(in: -1e-300...1e-300)) { value in
            #expect(DecimalText.double(value.description) == value, "\(value.description)")
        }
        #expect(DecimalText.double("5e-324") == Double.leastNonzeroMagnitude)
        #expect(DecimalText.double("-0") == 0)
    }

    @Test(arguments: ["5\u{0}abc", "5\u{0}", "0x10", "0X10", "0x1p4", "inf", "-inf", "infinity", "nan", "NaN", "",
                      " ", " 5", "5 ", "1 000", "1,000", "1_000", "+", "-", ".", "e5", "1e", "1e+", "--5", "+-5", "5..0",
                      "1.2.3", "1e5.5", "١٢", "１２", "5\n", "\u{FEFF}5", "0b101", "1e5e5"])
    func notADecimalNumber(text: String) {
        #expect(DecimalText.parseDouble(text) == .failure(.notDecimal), "\(text.debugDescription)")
        #expect(DecimalText.parseInteger(text) == .failure(.notDecimal), "\(text.debugDescription)")
    }

    @Test func decimalSpellingsAreRead() {
        for (text, value) in [("5", 5.0), ("+5", 5), ("-5", -5), ("5.", 5), (".5", 0.5), ("0.125", 0.125), ("1e3", 1000),
                              ("1E+3", 1000), ("25e-1", 2.5), ("0000.5", 0.5), ("1e-400", 0)] {
            #expect(DecimalText.double(text) == value, "\(text)")
        }
        #expect(DecimalText.parseDouble("1e309") == .failure(.outOfRange))
        #expect(DecimalText.parseDouble("-1e309") == .failure(.outOfRange))
    }

    @Test func integersAreExactAndRangeChecked() {
        #expect(DecimalText.integer("9223372036854775807") == Int.max)
        #expect(DecimalText.integer("-9223372036854775808") == Int.min)
        #expect(DecimalText.parseInteger("9223372036854775808") == .failure(.outOfRange))
        #expect(DecimalText.parseInteger("-9223372036854775809") == .failure(.outOfRange))
        #expect(DecimalText.parseInteger("1e19") == .failure(.outOfRange))
        #expect(DecimalText.parseInteger("1e1000000000000") == .failure(.outOfRange))
        #expect(DecimalText.integer("1e18") == 1_000_000_000_000_000_000)
        // 2^53 + 1: a Double would round it.
        #expect(DecimalText.integer("9007199254740993") == 9_007_199_254_740_993)
        #expect(DecimalText.integer("9007199254740993.000e0") == 9_007_199_254_740_993)
        #expect(DecimalText.integer("100e-2") == 1)
        #expect(DecimalText.integer("0e999999") == 0)
        #expect(DecimalText.integer("-0") == 0)
        #expect(DecimalText.parseInteger("1.5") == .failure(.notWhole))
        #expect(DecimalText.parseInteger("5e-1") == .failure(.notWhole))
        #expect(DecimalText.parseInteger("1e-1000000000000") == .failure(.notWhole))
        #expect(DecimalText.integer64("25769803776") == 25_769_803_776)
    }
}
