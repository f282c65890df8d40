// Floats in exports: written in their shortest form, read back as the same bits.
import Foundation
import Strata
@testable import StrataTool
import Testing

@Suite("Floats in exports")
struct FloatTextTests {
    /// Parsed as a Float directly: through a Double the value would be rounded twice.
    @Test func everyFloatReadsBackExactly() throws {
        var random = DamagedFileToolTests.Generator(state: 0xF10A7)
        var checked = 0
        while checked < 50_000 {
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            guard value.isFinite else { continue }
            checked += 1
            let written = try scalarJSON(.float(value), "test")
            let read = try ValueInput.single(written, .float, optional: false, place: "f", source: "test")
            guard case .float(let back) = read, back.bitPattern == value.bitPattern else {
                Issue.record("\(value) read back as \(read)")
                return
            }
        }
    }
}
