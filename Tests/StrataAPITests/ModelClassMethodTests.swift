// `primaryKey()`, `indexedProperties()` and `ignoredProperties()` answer from the `@Persisted`
// declarations, as RealmSwift's class methods do for generic code that asks a class about itself.
import Strata
import Testing

final class Ticket: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted(indexed: true) var holder = ""
    @Persisted(indexed: true) var seat = 0
    @Persisted var price = 0.0
    var scratch = 0
}

final class Stub: Object {
    @Persisted var note = ""
}

@Suite("Model class methods")
struct ModelClassMethodTests {
    @Test func theDeclarationsAnswer() {
        #expect(Ticket.primaryKey() == "code")
        // A primary key is indexed too (it is looked up by value), so it is listed.
        #expect(Ticket.indexedProperties() == ["code", "holder", "seat"])
        #expect(Ticket.ignoredProperties().isEmpty)
        #expect(Stub.primaryKey() == nil)
        #expect(Stub.indexedProperties().isEmpty)
    }

    @Test func genericCodeCanAskAnyClass() {
        func keyOf<T: Object>(_ type: T.Type) -> String? { type.primaryKey() }
        #expect(keyOf(Ticket.self) == "code")
        #expect(keyOf(Stub.self) == nil)
    }
}
