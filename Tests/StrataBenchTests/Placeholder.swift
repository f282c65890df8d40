import Testing
@testable import StrataBench

@Test func moduleLoads() { #expect(Bool(true)) }
