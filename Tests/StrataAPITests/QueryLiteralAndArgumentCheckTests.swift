// The query parser refuses a date literal naming a day that does not exist (31 February is not
// 3 March) or a field out of its range, and arguments no placeholder refers to.
import Foundation
import Strata
import Testing

final class CheckedEvent: Object {
    @Persisted var age = 0
    @Persisted var name = ""
    @Persisted var when = Date(timeIntervalSince1970: 0)
}

@Suite("Query literals and arguments are checked")
struct QueryLiteralAndArgumentCheckTests {
    private func events() throws -> Results<CheckedEvent> {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [CheckedEvent.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(CheckedEvent(value: ["age": 1, "name": "leap", "when": Date(timeIntervalSince1970: 1_456_704_000)]))
        }
        return realm.objects(CheckedEvent.self)
    }

    private func rejection(_ query: String, _ arguments: [Any] = [], in events: Results<CheckedEvent>) -> QueryError? {
        do {
            let matches = try events.filtering(query, arguments)
            Issue.record("'\(query)' with \(arguments.count) arguments was accepted (\(matches.count) matches)")
            return nil
        } catch let error as Realm.Error {
            #expect(error.code == .invalidQuery)
            return error.queryError
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func aDayThatDoesNotExistIsAnError() throws {
        let events = try events()
        for literal in ["T2017-02-31@0:0:0", "2017-02-29@0:0:0", "2100-02-29@0:0:0", "2017-04-31@0:0:0",
                        "2017-06-31@12:00:00", "2017-09-31@0:0:0", "2017-11-31@0:0:0", "2017-01-32@0:0:0",
                        "2017-00-10@0:0:0", "2017-13-01@0:0:0", "2017-01-00@0:0:0"] {
            let error = rejection("when == \(literal)", in: events)
            #expect(error?.kind == .syntax, "\(literal)")
        }
        let error = rejection("when == T2017-02-31@0:0:0", in: events)
        #expect(error?.message.contains("31") == true, "\(error?.message ?? "")")
        #expect(error?.offset == 8)
    }

    @Test func aTimeFieldOutOfRangeIsAnError() throws {
        let events = try events()
        for literal in ["2017-01-01@24:0:0", "2017-01-01@23:60:0", "2017-01-01@23:59:60"] {
            #expect(rejection("when == \(literal)", in: events)?.kind == .syntax, "\(literal)")
        }
    }

    @Test func realDatesAtTheEdgesAreAccepted() throws {
        let events = try events()
        #expect(try events.filtering("when == T2016-02-29@0:0:0", []).count == 1)
        #expect(try events.filtering("when < 2000-02-29@23:59:59", []).count == 0)
        #expect(try events.filtering("when > 2017-12-31@23:59:59:999999999", []).count == 0)
        #expect(try events.filtering("when > 2017-04-30@0:0:0 OR when > 1600-02-29@0:0:0", []).count == 1)
    }

    @Test func anArgumentNoPlaceholderUsesIsAnError() throws {
        let events = try events()
        let extra = rejection("age == %@", [1, 2], in: events)
        #expect(extra?.kind == .argumentCount)
        #expect(extra?.message.contains("2 arguments") == true, "\(extra?.message ?? "")")
        #expect(rejection("age == 1", [1], in: events)?.kind == .argumentCount)
        #expect(rejection("age == $0", [1, 2], in: events)?.kind == .argumentCount)
        #expect(rejection("%K == %@", ["age", 1, "name"], in: events)?.kind == .argumentCount)
    }

    @Test func everyArgumentUsedIsAccepted() throws {
        let events = try events()
        #expect(try events.filtering("age == %@ AND name == %@", [1, "leap"]).count == 1)
        #expect(try events.filtering("age == $1 OR name == $0", ["leap", 7]).count == 1)
        #expect(try events.filtering("%K == %@", ["age", 1]).count == 1)
        #expect(try events.filtering("age == $0 AND age == $0", [1]).count == 1)
    }
}
