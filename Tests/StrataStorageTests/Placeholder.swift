import Testing
@testable import StrataStorage

@Test func moduleLoads() { #expect(Bool(true)) }
