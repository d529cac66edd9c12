import Testing
@testable import OresRedux
@Test func smoke() { #expect(true) }
