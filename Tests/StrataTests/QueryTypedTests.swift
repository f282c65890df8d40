// The type-safe Query<T> form must build the same tree as the string form, and so match the
// same objects.
import Foundation
import Testing
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

/// Asserts that the typed query builds the same tree as the string and that it validates.
func expectSameTree<T>(_ string: String, _ arguments: [QueryValue] = [], schema: QuerySchema, type typeName: String,
                       _ build: (Query<T>) -> Query<Bool>, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let parsed = try QueryParser.parse(string, arguments: arguments, schema: schema, typeName: typeName)
        let typed = try build(Query<T>()).predicate()
        #expect(typed == parsed, "\(string) vs typed \(typed)", sourceLocation: sourceLocation)
        try typed.validate(against: schema, type: typeName)
    } catch {
        Issue.record("\(string): \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct QueryTypedTests {
    let world = DogWorld()

    @Test func dogQueriesBuildTheStringTree() {
        let alice = world.people[0]
        func same(_ s: String, _ a: [QueryValue] = [], _ b: (Query<QDog>) -> Query<Bool>,
                  sourceLocation: SourceLocation = #_sourceLocation) {
            expectSameTree(s, a, schema: DogWorld.schema, type: "Dog", b, sourceLocation: sourceLocation)
        }
        same("age > 5") { $0.age > 5 }
        same("age >= 5") { $0.age >= 5 }
        same("age < 5") { $0.age < 5 }
        same("age <= 5") { $0.age <= 5 }
        same("age == 5") { $0.age == 5 }
        same("age != 5") { $0.age != 5 }
        same("age > 5 AND name BEGINSWITH 'F'") { $0.age > 5 && $0.name.starts(with: "F") }
        same("age > 2 AND name BEGINSWITH[c] 'r'") { $0.age > 2 && $0.name.starts(with: "r", options: .caseInsensitive) }
        same("name CONTAINS[cd] 'E'") { $0.name.contains("E", options: [.caseInsensitive, .diacriticInsensitive]) }
        same("name CONTAINS 'u'") { $0.name.contains("u") }
        same("name ENDSWITH[d] 'x'") { $0.name.ends(with: "x", options: .diacriticInsensitive) }
        same("name LIKE[c] 'r*'") { $0.name.like("r*", caseInsensitive: true) }
        same("name LIKE 'R?x'") { $0.name.like("R?x") }
        same("name ==[c] 'rex'") { $0.name.equals("rex", options: .caseInsensitive) }
        same("age IN {1, 12, 99}") { $0.age.in([1, 12, 99]) }
        same("age IN %@", [.list([.int(1), .int(2)])]) { $0.age.in([1, 2]) }
        same("age BETWEEN {2, 5}") { $0.age.between(2, 5) }
        same("age BETWEEN {2, 5}") { $0.age.between(2...5) }
        same("nickname == nil") { $0.nickname == nil }
        same("nickname != nil") { $0.nickname != nil }
        same("nickname BEGINSWITH 'Bu'") { $0.nickname.starts(with: "Bu") }
        same("owner == nil") { $0.owner == nil }
        same("owner == %@", [alice.queryValue]) { $0.owner == alice }
        same("owner.name == 'Alice'") { $0.owner.name == "Alice" }
        same("owner.dogs.@count > 1") { $0.owner.dogs.count > 1 }
        same("owner.isVIP == true") { $0.owner.isVIP }
        same("NOT owner.isVIP == true") { !$0.owner.isVIP }
        same("'vip' IN owner.tags") { $0.owner.tags.contains("vip") }
        same("NOT age > 5") { !($0.age > 5) }
        same("age > 10 OR name == 'Buddy'") { $0.age > 10 || $0.name == "Buddy" }
        same("age > 5 && (name == 'Max' || name == 'Spot')") { $0.age > 5 && ($0.name == "Max" || $0.name == "Spot") }
        same("age > 5 && name == 'Max' || name == 'Spot'") { $0.age > 5 && $0.name == "Max" || $0.name == "Spot" }
        same("age < 2 || age > 10 && name == 'Rex'") { $0.age < 2 || $0.age > 10 && $0.name == "Rex" }
        same("name == id") { $0.name == $0.id }
        same("owner.name != name") { $0.owner.name != $0.name }
    }

    @Test func personQueriesBuildTheStringTree() {
        func same(_ s: String, _ a: [QueryValue] = [], _ b: (Query<QPerson>) -> Query<Bool>,
                  sourceLocation: SourceLocation = #_sourceLocation) {
            expectSameTree(s, a, schema: DogWorld.schema, type: "Person", b, sourceLocation: sourceLocation)
        }
        same("dogs.@max.age > 10") { $0.dogs.max(\.age) > 10 }
        same("dogs.age.@min < 2") { $0.dogs.min(\.age) < 2 }
        same("dogs.@sum.age == 10") { $0.dogs.sum(\.age) == 10 }
        same("dogs.@avg.age == 5.0") { $0.dogs.avg(\.age) == 5 }
        same("dogs.@count == 0") { $0.dogs.count == 0 }
        same("dogs.age > 10") { $0.dogs.age > 10 }
        same("ANY dogs.age > 6") { $0.dogs.age.any > 6 }
        same("ALL dogs.age > 2") { $0.dogs.age.all > 2 }
        same("NONE dogs.age > 6") { $0.dogs.age.none > 6 }
        same("ALL dogs.age IN {3, 7}") { $0.dogs.age.all.in([3, 7]) }
        same("ANY dogs.name BEGINSWITH 'F'") { $0.dogs.name.any.starts(with: "F") }
        same("dogs.owner.name == 'Bob'") { $0.dogs.owner.name == "Bob" }
        same("SUBQUERY(dogs, $x, $x.age > 5).@count >= 2") { $0.dogs.where { $0.age > 5 }.count >= 2 }
        same("SUBQUERY(dogs, $d, $d.age > 5 AND $d.name == 'Max').@count == 2") {
            $0.dogs.where(variable: "$d") { $0.age > 5 && $0.name == "Max" }.count == 2
        }
        same("SUBQUERY(tags, $x, $x BEGINSWITH 'v').@count == 1") { $0.tags.where { $0.starts(with: "v") }.count == 1 }
        same("tags.@count == 0") { $0.tags.count == 0 }
        same("ANY tags IN {'vip', 'dog'}") { $0.tags.containsAny(in: ["vip", "dog"]) }
        same("SUBQUERY(dogs, $x2, SUBQUERY($x2.owner.dogs, $x, $x.age > $x2.age).@count > 0).@count > 0") { person in
            person.dogs.where { d in d.owner.dogs.where { e in e.age > d.age }.count > 0 }.count > 0
        }
        same("'vip' IN tags") { $0.tags.contains("vip") }
        same("isVIP == true") { $0.isVIP }
        same("isVIP == false") { $0.isVIP == false }
        same("NOT isVIP == true") { !$0.isVIP }
        same("balance > %@", [.decimal(50)]) { $0.balance > 50 }
        same("height == nil") { $0.height == nil }
        same("height > 1.65") { $0.height > 1.65 }
        same("picture == nil") { $0.picture == nil }
        same("picture BEGINSWITH %@", [.data(Data([1, 2]))]) { $0.picture.starts(with: Data([1, 2])) }
        same("name IN {'Alice', 'Zed'}") { $0.name.in(["Alice", "Zed"]) }
        same("scores['math'] > 80") { $0.scores["math"] > 80 }
        same("scores.@keys == 'art'") { $0.scores.keys == "art" }
        same("ALL scores.@values > 60") { $0.scores.values.all > 60 }
        same("scores.@count == 2") { $0.scores.count == 2 }
        same("dogs.owner.scores['math'] == 90") { $0.dogs.owner.scores["math"] == 90 }
    }

    @Test func newspaperAndCarQueriesBuildTheStringTree() {
        let day = utcDate(2024, 1, 1)
        expectSameTree("date > %@", [.date(day)], schema: Newspaper.schema, type: "Article") { (a: Query<QArticle>) in a.date > day }
        expectSameTree("author.born < %@ AND author.isVIP == true", [.date(day)], schema: Newspaper.schema, type: "Article") {
            (a: Query<QArticle>) in a.author.born < day && a.author.isVIP
        }
        expectSameTree("people.@count >= 2", schema: Newspaper.schema, type: "Article") { (a: Query<QArticle>) in a.people.count >= 2 }
        expectSameTree("title CONTAINS[c] 'the'", schema: Newspaper.schema, type: "Article") {
            (a: Query<QArticle>) in a.title.contains("the", options: .caseInsensitive)
        }
        expectSameTree("people.@avg.height > 1.7", schema: Newspaper.schema, type: "Article") {
            (a: Query<QArticle>) in a.people.avg(\.height) > 1.7
        }
        expectSameTree("author.hairCount BETWEEN {1, 100}", schema: Newspaper.schema, type: "Article") {
            (a: Query<QArticle>) in a.author.hairCount.between(1, 100)
        }
        expectSameTree("shop.contact.name == 'Ann'", schema: Garage.schema, type: "Car") { (c: Query<QCar>) in c.shop.contact.name == "Ann" }
        expectSameTree("ANY repairs.person.name == 'Ann'", schema: Garage.schema, type: "Car") {
            (c: Query<QCar>) in c.repairs.person.name.any == "Ann"
        }
        expectSameTree("plates.@count > 1", schema: Garage.schema, type: "Car") { (c: Query<QCar>) in c.plates.count > 1 }
        expectSameTree("checkups.@max > %@", [.date(day)], schema: Garage.schema, type: "Car") { (c: Query<QCar>) in c.checkups.max > day }
        expectSameTree("maintainedCars.@max.year > 2020", schema: Garage.schema, type: "RepairShop") {
            (s: Query<QRepairShop>) in s.maintainedCars.max(\.year) > 2020
        }
    }

    @Test func typedQueriesMatchTheSameObjects() throws {
        let typed = try QueryPredicate(QPerson.self) { $0.dogs.age.any > 6 && !$0.isVIP }
        let matches = try world.people.filter { try typed.evaluate(on: $0) }.map(\.name)
        #expect(matches == ["Élodie"])
        let nested = try QueryPredicate(QPerson.self) { person in
            person.dogs.where { d in d.owner.dogs.where { e in e.age > d.age }.count > 0 }.count > 0
        }
        #expect(try world.people.filter { try nested.evaluate(on: $0) }.map(\.name) == ["Alice", "Élodie"])
        let vipOrDog = try QueryPredicate(QPerson.self) { $0.tags.containsAny(in: ["vip", "dog"]) }
        #expect(try world.people.filter { try vipOrDog.evaluate(on: $0) }.map(\.name) == ["Alice", "Carol", "Élodie"])
        let dogs = try QueryPredicate(QDog.self) { $0.owner.name.in(["Bob", "Élodie"]) || $0.owner == nil }
        #expect(try world.dogs.filter { try dogs.evaluate(on: $0) }.map(\.id) == ["d3", "d4", "d5", "d6", "d7"])
    }

    @Test func keyPathsThatAreNotPersistedAreTypedErrors() {
        do {
            _ = try QueryPredicate(QDog.self) { $0.age > 1 && $0.notPersisted == 3 }
            Issue.record("a non-persisted key path was accepted")
        } catch {
            #expect(error.kind == .unknownProperty)
            #expect(error.message.contains("notPersisted"), "\(error)")
            #expect(error.offset == nil)
        }
        #expect(throws: QueryError.self) { try QueryPredicate(QDog.self) { !($0.notPersisted == 3) } }
        #expect(throws: QueryError.self) { try QueryPredicate(QPerson.self) { $0.dogs.where { $0.notPersisted > 1 }.count > 0 } }
        #expect(throws: QueryError.self) { try QueryPredicate(QPerson.self) { $0.dogs.max(\.notPersisted) > 1 } }
        // Validation against the schema catches what naming cannot (e.g. a wrong operator for the type).
        do {
            let predicate = try QueryPredicate(QDog.self) { $0.owner.isVIP > true }
            #expect(throws: QueryError.self) { try predicate.validate(against: DogWorld.schema, type: "Dog") }
        } catch {
            Issue.record("building failed: \(error)")
        }
    }

    @Test func descriptionRoundTrips() throws {
        let p = try QueryPredicate(QPerson.self) {
            ($0.name.starts(with: "A\"b\\c\n", options: .caseInsensitive) || $0.dogs.age.all > 2) && !$0.isVIP
        }
        #expect(try QueryParser.parse(p.description) == p)
        #expect(p.description == "(name BEGINSWITH[c] \"A\\\"b\\\\c\\n\" OR ALL dogs.age > 2) AND NOT isVIP == true")
    }
}
