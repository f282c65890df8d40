// In-memory test models for the query tests: the reference's Dog/Person, the newspaper
// Person/Article and the car-repair models, as plain classes conforming to QueryValueSource
// (string queries) and QueryKeyPathNaming (type-safe queries). Swift names carry a `Q` prefix so
// they never clash with the object layer's test models (`Dog: Object`…) in the same test target;
// the schema type names are Realm's ("Dog", "Person", …).
import Foundation
@testable import Strata
@testable import StrataQuery
import StrataTestSupport

struct UnknownTestProperty: Error, Equatable {
    let type: String
    let key: String
}

/// Base class: identity, object conversion and the unknown-property error.
class QueryTestModel: QueryValueSource, QueryValueConvertible {
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

func linkValue(_ model: QueryTestModel?) -> QueryValue { model?.queryValue ?? .null }
func linkValues(_ models: [QueryTestModel]) -> QueryValue { .list(models.map(\.queryValue)) }

// MARK: - Reference: Dog / Person

final class QDog: QueryTestModel, QueryKeyPathNaming {
    var id: String
    var name: String
    var age: Int
    var owner: QPerson?
    var nickname: String?
    var notPersisted = 0

    init(_ id: String, _ name: String, age: Int, owner: QPerson? = nil, nickname: String? = nil) {
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
        case "owner": return linkValue(owner)
        case "nickname": return nickname.queryValue
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QDog.id: return "id"
        case \QDog.name: return "name"
        case \QDog.age: return "age"
        case \QDog.owner: return "owner"
        case \QDog.nickname: return "nickname"
        default: return nil
        }
    }
}

final class QPerson: QueryTestModel, QueryKeyPathNaming {
    var name: String
    var picture: Data?
    var dogs: [QDog] = []
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
        case "dogs": return linkValues(dogs)
        case "tags": return .set(tags.map(QueryValue.string))
        case "scores": return .map(scores.mapValues { .int(Int64($0)) })
        case "isVIP": return .bool(isVIP)
        case "balance": return .decimal(balance)
        case "height": return height.queryValue
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QPerson.name: return "name"
        case \QPerson.picture: return "picture"
        case \QPerson.dogs: return "dogs"
        case \QPerson.tags: return "tags"
        case \QPerson.scores: return "scores"
        case \QPerson.isVIP: return "isVIP"
        case \QPerson.balance: return "balance"
        case \QPerson.height: return "height"
        default: return nil
        }
    }
}

/// The reference data set: 4 people, 7 dogs.
struct DogWorld {
    let people: [QPerson]
    let dogs: [QDog]

    init() {
        let alice = QPerson("Alice", picture: Data([1, 2, 3]), tags: ["vip", "cat"], scores: ["math": 90, "art": 70],
                           isVIP: true, balance: Decimal(string: "100.50")!, height: 1.70)
        let bob = QPerson("Bob", tags: [], balance: 0, height: nil)
        let carol = QPerson("Carol", tags: ["vip"], scores: ["math": 50], isVIP: true, balance: Decimal(-5), height: 1.62)
        let elodie = QPerson("Élodie", picture: Data(), tags: ["dog"], balance: Decimal(string: "7.25")!, height: 1.80)
        let rex = QDog("d1", "Rex", age: 3, owner: alice, nickname: "Rexy")
        let fido = QDog("d2", "Fido", age: 7, owner: alice)
        let buddy = QDog("d3", "Buddy", age: 1, owner: bob, nickname: "Bud")
        let max = QDog("d4", "Max", age: 12, owner: elodie)
        let stray = QDog("d5", "rex", age: 5)
        let rëx = QDog("d6", "Rëx", age: 2)
        let spot = QDog("d7", "Spot", age: 7, owner: elodie, nickname: "")
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

final class QAuthor: QueryTestModel, QueryKeyPathNaming {
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

    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QAuthor.key: return "key"
        case \QAuthor.firstName: return "firstName"
        case \QAuthor.lastName: return "lastName"
        case \QAuthor.born: return "born"
        case \QAuthor.deceased: return "deceased"
        case \QAuthor.isVIP: return "isVIP"
        case \QAuthor.id: return "id"
        case \QAuthor.hairCount: return "hairCount"
        case \QAuthor.height: return "height"
        case \QAuthor.weight: return "weight"
        case \QAuthor.department: return "department"
        default: return nil
        }
    }
}

final class QArticle: QueryTestModel, QueryKeyPathNaming {
    var id: String
    var title: String?
    var author: QAuthor?
    var people: [QAuthor]
    var date: Date

    init(_ id: String, title: String?, author: QAuthor?, people: [QAuthor], date: Date) {
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
        case "author": return linkValue(author)
        case "people": return linkValues(people)
        case "date": return .date(date)
        default: return nil
        }
    }

    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QArticle.id: return "id"
        case \QArticle.title: return "title"
        case \QArticle.author: return "author"
        case \QArticle.people: return "people"
        case \QArticle.date: return "date"
        default: return nil
        }
    }
}

/// UTC date from components (for expectations independent of the machine's time zone).
func utcDate(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Date {
    Date(timeIntervalSince1970: Double(daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60))
}

struct Newspaper {
    let authors: [QAuthor]
    let articles: [QArticle]

    init() {
        let ada = QAuthor("Ada", "Lovelace", born: utcDate(1815, 12, 10), deceased: utcDate(1852, 11, 27), isVIP: true, id: 1,
                         hairCount: 100_000, height: 1.65, weight: 55.5, department: "science")
        let grace = QAuthor("Grace", "Hopper", born: utcDate(1906, 12, 9), deceased: utcDate(1992, 1, 1), isVIP: true, id: 2,
                           hairCount: 90_000, height: 1.60, weight: 60, department: "science")
        let tim = QAuthor("Tim", nil, born: utcDate(1955, 6, 8), id: 3, hairCount: 20_000, height: 1.80, weight: 80.25,
                         department: "web")
        let zoe = QAuthor("zoë", "Ünal", born: utcDate(2000, 1, 2, 10), id: 4, hairCount: 9_223_372_036_854_775_000,
                         height: 1.7, weight: 61, department: "sports")
        authors = [ada, grace, tim, zoe]
        articles = [
            QArticle("a1", title: "Engines of thought", author: ada, people: [ada, grace], date: utcDate(2024, 1, 2, 10)),
            QArticle("a2", title: "Bugs in relays", author: grace, people: [grace], date: utcDate(2024, 3, 5)),
            QArticle("a3", title: nil, author: nil, people: [], date: utcDate(2023, 12, 31, 23, 59)),
            QArticle("a4", title: "The web at 35", author: tim, people: [tim, zoe, ada], date: utcDate(2024, 3, 12)),
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

final class QMechanic: QueryTestModel, QueryKeyPathNaming {
    var name: String
    init(_ name: String) {
        self.name = name
        super.init(typeName: "CarPerson")
    }
    override func value(forKey key: String) -> QueryValue? { key == "name" ? .string(name) : nil }
    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        keyPath == \QMechanic.name ? "name" : nil
    }
}

final class QRepairShop: QueryTestModel, QueryKeyPathNaming {
    var name: String
    var contact: QMechanic?
    /// Inverse of Car.shop (LinkingObjects), filled in by the garage.
    var maintainedCars: [QCar] = []
    init(_ name: String, contact: QMechanic?) {
        self.name = name
        self.contact = contact
        super.init(typeName: "RepairShop")
    }
    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "name": return .string(name)
        case "contact": return linkValue(contact)
        case "maintainedCars": return linkValues(maintainedCars)
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QRepairShop.name: return "name"
        case \QRepairShop.contact: return "contact"
        case \QRepairShop.maintainedCars: return "maintainedCars"
        default: return nil
        }
    }
}

final class QRepair: QueryTestModel, QueryKeyPathNaming {
    var date: Date
    var person: QMechanic?
    init(_ date: Date, by person: QMechanic?) {
        self.date = date
        self.person = person
        super.init(typeName: "Repair")
    }
    override func value(forKey key: String) -> QueryValue? {
        switch key {
        case "date": return .date(date)
        case "person": return linkValue(person)
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QRepair.date: return "date"
        case \QRepair.person: return "person"
        default: return nil
        }
    }
}

final class QCar: QueryTestModel, QueryKeyPathNaming {
    var brand: String
    var year: Int
    var owner: QMechanic?
    var shop: QRepairShop?
    var repairs: [QRepair]
    var plates: [String]
    var checkups: [Date]
    init(_ brand: String, year: Int, owner: QMechanic?, shop: QRepairShop?, repairs: [QRepair], plates: [String], checkups: [Date]) {
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
        case "owner": return linkValue(owner)
        case "shop": return linkValue(shop)
        case "repairs": return linkValues(repairs)
        case "plates": return .list(plates.map(QueryValue.string))
        case "checkups": return .list(checkups.map(QueryValue.date))
        default: return nil
        }
    }
    static func queryPropertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \QCar.brand: return "brand"
        case \QCar.year: return "year"
        case \QCar.owner: return "owner"
        case \QCar.shop: return "shop"
        case \QCar.repairs: return "repairs"
        case \QCar.plates: return "plates"
        case \QCar.checkups: return "checkups"
        default: return nil
        }
    }
}

struct Garage {
    let people: [QMechanic]
    let shops: [QRepairShop]
    let cars: [QCar]

    init() {
        let ann = QMechanic("Ann"), ben = QMechanic("Ben"), cid = QMechanic("Cid")
        let fast = QRepairShop("Fast Fix", contact: ann)
        let slow = QRepairShop("Slow & Steady", contact: nil)
        let idle = QRepairShop("Idle Garage", contact: cid)
        let golf = QCar("VW", year: 2015, owner: ben, shop: fast,
                       repairs: [QRepair(utcDate(2020, 5, 1), by: ann), QRepair(utcDate(2022, 2, 1), by: ann)],
                       plates: ["AB-123", "CD-456"], checkups: [utcDate(2021, 1, 1), utcDate(2023, 1, 1)])
        let beetle = QCar("VW", year: 1970, owner: cid, shop: slow,
                         repairs: [QRepair(utcDate(1999, 9, 9), by: nil)], plates: ["OLD-1"], checkups: [])
        let model3 = QCar("Tesla", year: 2021, owner: nil, shop: fast, repairs: [], plates: [], checkups: [utcDate(2022, 6, 1)])
        let volvo = QCar("Volvo", year: 2008, owner: ann, shop: nil,
                        repairs: [QRepair(utcDate(2010, 1, 1), by: ben), QRepair(utcDate(2015, 1, 1), by: cid),
                                  QRepair(utcDate(2019, 1, 1), by: ann)],
                        plates: ["SE-777"], checkups: [utcDate(2010, 1, 1)])
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
