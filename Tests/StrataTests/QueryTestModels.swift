// In-memory test models for the query tests: the reference's Dog/Person, the newspaper
// Person/Article and the car-repair models, as plain classes conforming to QueryValueSource
// (string queries) and QueryKeyPathNaming (type-safe queries).
import Foundation
@testable import Strata

struct UnknownTestProperty: Error, Equatable {
    let type: String
    let key: String
}

/// Base class: identity, object conversion and the unknown-property error.
class TestModel: QueryValueSource, QueryValueConvertible {
    let typeName: String
    /// Address-based, like an unmanaged object's (valid while the model lives).
    var identity: QueryObjectIdentity { QueryObjectIdentity(typeName: typeName, object: self) }

    init(typeName: String) {
        self.typeName = typeName
    }

    /// Subclasses return nil for unknown keys.
    func value(forKey key: String) -> QueryValue? { nil }

    func queryValue(forKey key: String) throws -> QueryValue {
        guard let value = value(forKey: key) else { throw UnknownTestProperty(type: identity.typeName, key: key) }
        return value
    }

    var queryValue: QueryValue { .object(QueryObjectReference(identity: identity, source: self)) }
}

func link(_ model: TestModel?) -> QueryValue { model?.queryValue ?? .null }
func links(_ models: [TestModel]) -> QueryValue { .list(models.map(\.queryValue)) }

// MARK: - Reference: Dog / Person

final class Dog: TestModel, QueryKeyPathNaming {
    var id: String
    var name: String
    var age: Int
    var owner: Person?
    var nickname: String?
    var notPersisted = 0

    init(_ id: String, _ name: String, age: Int, owner: Person? = nil, nickname: String? = nil) {
        self.id = id
        self.name = name
        self.age = age
        self.owner = owner
        self.nickname = nickname
        super.init(typeName: "Dog")
    }

    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "id": return .string(id)
        case "name": return .string(name)
        case "age": return .int(Int64(age))
        case "owner": return link(owner)
        case "nickname": return nickname.queryValue
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: PartialKeyPath<Dog>) -> String? {
        switch keyPath {
        case \Dog.id: return "id"
        case \Dog.name: return "name"
        case \Dog.age: return "age"
        case \Dog.owner: return "owner"
        case \Dog.nickname: return "nickname"
        default: return nil
        }
    }
}

final class Person: TestModel, QueryKeyPathNaming {
    var name: String
    var picture: Data?
    var dogs: [Dog] = []
    var tags: [String]
    var scores: [String: Int]
    var isVIP: Bool
    var balance: Decimal
    var height: Double?

    init(_ name: String, picture: Data? = nil, tags: [String] = [], scores: [String: Int] = [:], isVIP: Bool = false,
         balance: Decimal = 0, height: Double? = nil) {
        self.name = name
        self.picture = picture
        self.tags = tags
        self.scores = scores
        self.isVIP = isVIP
        self.balance = balance
        self.height = height
        super.init(typeName: "Person")
    }

    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "name": return .string(name)
        case "picture": return picture.queryValue
        case "dogs": return links(dogs)
        case "tags": return .set(tags.map(QueryValue.string))
        case "scores": return .map(scores.mapValues { .int(Int64($0)) })
        case "isVIP": return .bool(isVIP)
        case "balance": return .decimal(balance)
        case "height": return height.queryValue
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: PartialKeyPath<Person>) -> String? {
        switch keyPath {
        case \Person.name: return "name"
        case \Person.picture: return "picture"
        case \Person.dogs: return "dogs"
        case \Person.tags: return "tags"
        case \Person.scores: return "scores"
        case \Person.isVIP: return "isVIP"
        case \Person.balance: return "balance"
        case \Person.height: return "height"
        default: return nil
        }
    }
}

/// The reference data set: 4 people, 7 dogs.
struct DogWorld {
    let people: [Person]
    let dogs: [Dog]

    init() {
        let alice = Person("Alice", picture: Data([1, 2, 3]), tags: ["vip", "cat"], scores: ["math": 90, "art": 70],
                           isVIP: true, balance: Decimal(string: "100.50")!, height: 1.70)
        let bob = Person("Bob", tags: [], balance: 0, height: nil)
        let carol = Person("Carol", tags: ["vip"], scores: ["math": 50], isVIP: true, balance: Decimal(-5), height: 1.62)
        let elodie = Person("Élodie", picture: Data(), tags: ["dog"], balance: Decimal(string: "7.25")!, height: 1.80)
        let rex = Dog("d1", "Rex", age: 3, owner: alice, nickname: "Rexy")
        let fido = Dog("d2", "Fido", age: 7, owner: alice)
        let buddy = Dog("d3", "Buddy", age: 1, owner: bob, nickname: "Bud")
        let max = Dog("d4", "Max", age: 12, owner: elodie)
        let stray = Dog("d5", "rex", age: 5)
        let rëx = Dog("d6", "Rëx", age: 2)
        let spot = Dog("d7", "Spot", age: 7, owner: elodie, nickname: "")
        alice.dogs = [rex, fido]
        bob.dogs = [buddy]
        elodie.dogs = [max, spot, max] // lists allow duplicates
        people = [alice, bob, carol, elodie]
        dogs = [rex, fido, buddy, max, stray, rëx, spot]
    }

    static let schema = QuerySchema([
        QueryObjectSchema("Dog", [
            QueryPropertySchema("id", .string),
            QueryPropertySchema("name", .string),
            QueryPropertySchema("age", .int),
            .link("owner", to: "Person"),
            QueryPropertySchema("nickname", .string, optional: true),
        ]),
        QueryObjectSchema("Person", [
            QueryPropertySchema("name", .string),
            QueryPropertySchema("picture", .data, optional: true),
            .list("dogs", of: "Dog"),
            QueryPropertySchema("tags", .string, collection: .set),
            QueryPropertySchema("scores", .int, collection: .map),
            QueryPropertySchema("isVIP", .bool),
            QueryPropertySchema("balance", .decimal),
            QueryPropertySchema("height", .double, optional: true),
        ]),
    ])
}

// MARK: - Newspaper: Person / Article

final class Author: TestModel, QueryKeyPathNaming {
    var key: String
    var firstName: String
    var lastName: String?
    var born: Date
    var deceased: Date?
    var isVIP: Bool
    var id: Int
    var hairCount: Int64
    var height: Float
    var weight: Double
    var department: String

    init(_ firstName: String, _ lastName: String?, born: Date, deceased: Date? = nil, isVIP: Bool = false, id: Int,
         hairCount: Int64, height: Float, weight: Double, department: String) {
        self.key = "key-\(id)"
        self.firstName = firstName
        self.lastName = lastName
        self.born = born
        self.deceased = deceased
        self.isVIP = isVIP
        self.id = id
        self.hairCount = hairCount
        self.height = height
        self.weight = weight
        self.department = department
        super.init(typeName: "NewsPerson")
    }

    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "key": return .string(self.key)
        case "firstName": return .string(firstName)
        case "lastName": return lastName.queryValue
        case "born": return .date(born)
        case "deceased": return deceased.queryValue
        case "isVIP": return .bool(isVIP)
        case "id": return .int(Int64(id))
        case "hairCount": return .int(hairCount)
        case "height": return .float(height)
        case "weight": return .double(weight)
        case "department": return .string(department)
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: PartialKeyPath<Author>) -> String? {
        switch keyPath {
        case \Author.key: return "key"
        case \Author.firstName: return "firstName"
        case \Author.lastName: return "lastName"
        case \Author.born: return "born"
        case \Author.deceased: return "deceased"
        case \Author.isVIP: return "isVIP"
        case \Author.id: return "id"
        case \Author.hairCount: return "hairCount"
        case \Author.height: return "height"
        case \Author.weight: return "weight"
        case \Author.department: return "department"
        default: return nil
        }
    }
}

final class Article: TestModel, QueryKeyPathNaming {
    var id: String
    var title: String?
    var author: Author?
    var people: [Author]
    var date: Date

    init(_ id: String, title: String?, author: Author?, people: [Author], date: Date) {
        self.id = id
        self.title = title
        self.author = author
        self.people = people
        self.date = date
        super.init(typeName: "Article")
    }

    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "id": return .string(id)
        case "title": return title.queryValue
        case "author": return link(author)
        case "people": return links(people)
        case "date": return .date(date)
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: PartialKeyPath<Article>) -> String? {
        switch keyPath {
        case \Article.id: return "id"
        case \Article.title: return "title"
        case \Article.author: return "author"
        case \Article.people: return "people"
        case \Article.date: return "date"
        default: return nil
        }
    }
}

/// UTC date from components (for expectations independent of the machine's time zone).
func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Date {
    Date(timeIntervalSince1970: Double(daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60))
}

struct Newspaper {
    let authors: [Author]
    let articles: [Article]

    init() {
        let ada = Author("Ada", "Lovelace", born: utc(1815, 12, 10), deceased: utc(1852, 11, 27), isVIP: true, id: 1,
                         hairCount: 100_000, height: 1.65, weight: 55.5, department: "science")
        let grace = Author("Grace", "Hopper", born: utc(1906, 12, 9), deceased: utc(1992, 1, 1), isVIP: true, id: 2,
                           hairCount: 90_000, height: 1.60, weight: 60, department: "science")
        let tim = Author("Tim", nil, born: utc(1955, 6, 8), id: 3, hairCount: 20_000, height: 1.80, weight: 80.25,
                         department: "web")
        let zoe = Author("zoë", "Ünal", born: utc(2000, 1, 2, 10), id: 4, hairCount: 9_223_372_036_854_775_000,
                         height: 1.7, weight: 61, department: "sports")
        authors = [ada, grace, tim, zoe]
        articles = [
            Article("a1", title: "Engines of thought", author: ada, people: [ada, grace], date: utc(2024, 1, 2, 10)),
            Article("a2", title: "Bugs in relays", author: grace, people: [grace], date: utc(2024, 3, 5)),
            Article("a3", title: nil, author: nil, people: [], date: utc(2023, 12, 31, 23, 59)),
            Article("a4", title: "The web at 35", author: tim, people: [tim, zoe, ada], date: utc(2024, 3, 12)),
        ]
    }

    static let schema = QuerySchema([
        QueryObjectSchema("NewsPerson", [
            QueryPropertySchema("key", .string),
            QueryPropertySchema("firstName", .string),
            QueryPropertySchema("lastName", .string, optional: true),
            QueryPropertySchema("born", .date),
            QueryPropertySchema("deceased", .date, optional: true),
            QueryPropertySchema("isVIP", .bool),
            QueryPropertySchema("id", .int),
            QueryPropertySchema("hairCount", .int),
            QueryPropertySchema("height", .float),
            QueryPropertySchema("weight", .double),
            QueryPropertySchema("department", .string),
        ]),
        QueryObjectSchema("Article", [
            QueryPropertySchema("id", .string),
            QueryPropertySchema("title", .string, optional: true),
            .link("author", to: "NewsPerson"),
            .list("people", of: "NewsPerson"),
            QueryPropertySchema("date", .date),
        ]),
    ])
}

// MARK: - Car repair

final class Mechanic: TestModel, QueryKeyPathNaming {
    var name: String
    init(_ name: String) {
        self.name = name
        super.init(typeName: "CarPerson")
    }
    override func value(forKey key: String) -> QueryValue? { key == "name" ? .string(name) : nil }
    static func queryPropertyName(for keyPath: PartialKeyPath<Mechanic>) -> String? {
        keyPath == \Mechanic.name ? "name" : nil
    }
}

final class RepairShop: TestModel, QueryKeyPathNaming {
    var name: String
    var contact: Mechanic?
    /// Inverse of Car.shop (LinkingObjects), filled in by the garage.
    var maintainedCars: [Car] = []
    init(_ name: String, contact: Mechanic?) {
        self.name = name
        self.contact = contact
        super.init(typeName: "RepairShop")
    }
    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "name": return .string(name)
        case "contact": return link(contact)
        case "maintainedCars": return links(maintainedCars)
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: PartialKeyPath<RepairShop>) -> String? {
        switch keyPath {
        case \RepairShop.name: return "name"
        case \RepairShop.contact: return "contact"
        case \RepairShop.maintainedCars: return "maintainedCars"
        default: return nil
        }
    }
}

final class Repair: TestModel, QueryKeyPathNaming {
    var date: Date
    var person: Mechanic?
    init(_ date: Date, by person: Mechanic?) {
        self.date = date
        self.person = person
        super.init(typeName: "Repair")
    }
    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "date": return .date(date)
        case "person": return link(person)
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: PartialKeyPath<Repair>) -> String? {
        switch keyPath {
        case \Repair.date: return "date"
        case \Repair.person: return "person"
        default: return nil
        }
    }
}

final class Car: TestModel, QueryKeyPathNaming {
    var brand: String
    var year: Int
    var owner: Mechanic?
    var shop: RepairShop?
    var repairs: [Repair]
    var plates: [String]
    var checkups: [Date]
    init(_ brand: String, year: Int, owner: Mechanic?, shop: RepairShop?, repairs: [Repair], plates: [String], checkups: [Date]) {
        self.brand = brand
        self.year = year
        self.owner = owner
        self.shop = shop
        self.repairs = repairs
        self.plates = plates
        self.checkups = checkups
        super.init(typeName: "Car")
    }
    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "brand": return .string(brand)
        case "year": return .int(Int64(year))
        case "owner": return link(owner)
        case "shop": return link(shop)
        case "repairs": return links(repairs)
        case "plates": return .list(plates.map(QueryValue.string))
        case "checkups": return .list(checkups.map(QueryValue.date))
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: PartialKeyPath<Car>) -> String? {
        switch keyPath {
        case \Car.brand: return "brand"
        case \Car.year: return "year"
        case \Car.owner: return "owner"
        case \Car.shop: return "shop"
        case \Car.repairs: return "repairs"
        case \Car.plates: return "plates"
        case \Car.checkups: return "checkups"
        default: return nil
        }
    }
}

struct Garage {
    let people: [Mechanic]
    let shops: [RepairShop]
    let cars: [Car]

    init() {
        let ann = Mechanic("Ann"), ben = Mechanic("Ben"), cid = Mechanic("Cid")
        let fast = RepairShop("Fast Fix", contact: ann)
        let slow = RepairShop("Slow & Steady", contact: nil)
        let idle = RepairShop("Idle Garage", contact: cid)
        let golf = Car("VW", year: 2015, owner: ben, shop: fast,
                       repairs: [Repair(utc(2020, 5, 1), by: ann), Repair(utc(2022, 2, 1), by: ann)],
                       plates: ["AB-123", "CD-456"], checkups: [utc(2021, 1, 1), utc(2023, 1, 1)])
        let beetle = Car("VW", year: 1970, owner: cid, shop: slow,
                         repairs: [Repair(utc(1999, 9, 9), by: nil)], plates: ["OLD-1"], checkups: [])
        let model3 = Car("Tesla", year: 2021, owner: nil, shop: fast, repairs: [], plates: [], checkups: [utc(2022, 6, 1)])
        let volvo = Car("Volvo", year: 2008, owner: ann, shop: nil,
                        repairs: [Repair(utc(2010, 1, 1), by: ben), Repair(utc(2015, 1, 1), by: cid),
                                  Repair(utc(2019, 1, 1), by: ann)],
                        plates: ["SE-777"], checkups: [utc(2010, 1, 1)])
        fast.maintainedCars = [golf, model3]
        slow.maintainedCars = [beetle]
        people = [ann, ben, cid]
        shops = [fast, slow, idle]
        cars = [golf, beetle, model3, volvo]
    }

    static let schema = QuerySchema([
        QueryObjectSchema("CarPerson", [QueryPropertySchema("name", .string)]),
        QueryObjectSchema("RepairShop", [
            QueryPropertySchema("name", .string),
            .link("contact", to: "CarPerson"),
            QueryPropertySchema("maintainedCars", .object, collection: .linkingObjects, linkTarget: "Car"),
        ]),
        QueryObjectSchema("Repair", [QueryPropertySchema("date", .date), .link("person", to: "CarPerson")]),
        QueryObjectSchema("Car", [
            QueryPropertySchema("brand", .string),
            QueryPropertySchema("year", .int),
            .link("owner", to: "CarPerson"),
            .link("shop", to: "RepairShop"),
            .list("repairs", of: "Repair"),
            QueryPropertySchema("plates", .string, collection: .list),
            QueryPropertySchema("checkups", .date, collection: .list),
        ]),
    ])
}
