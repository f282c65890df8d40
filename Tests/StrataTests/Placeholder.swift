import Testing
@testable import Strata

@Test func moduleLoads() { #expect(Bool(true)) }
