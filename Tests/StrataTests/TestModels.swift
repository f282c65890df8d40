// Models ported from Realm's documentation (REALM_REFERENCE.md, "Example models") and helpers.
import Foundation
import Strata

final class Dog: Object {
    @Persisted(primaryKey: true) var id: String
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var owner: Person?
}

final class Person: Object {
    @Persisted var name = ""
    @Persisted var picture: Data?
    @Persisted var dogs: List<Dog>
    @Persisted var tags: List<String>
    @Persisted(originProperty: "owner") var pets: LinkingObjects<Dog>
}

enum Department: String, PersistableEnum {
    case news, sports, culture
}

final class NewsPerson: Object {
    @Persisted(primaryKey: true) var key = UUID().uuidString
    @Persisted(indexed: true) var firstName = ""
    @Persisted(indexed: true) var lastName: String?
    @Persisted var born = Date.distantPast
    @Persisted var deceased: Date?
    @Persisted var photo: Data?
    @Persisted var isVIP = false
    @Persisted var id = 0
    @Persisted var hairCount: Int64 = 0
    @Persisted var height: Float = 0
    @Persisted var weight: Double = 0
    @Persisted var lat: Double?
    @Persisted var department = Department.news
}

final class Article: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var title: String?
    @Persisted var author: NewsPerson?
    @Persisted var people: List<NewsPerson>
    @Persisted var date = Date()
}

final class CarPerson: Object {
    @Persisted var name = ""
}

final class RepairShop: Object {
    @Persisted var name = ""
    @Persisted var contact: CarPerson?
    @Persisted(originProperty: "shop") var maintainedCars: LinkingObjects<Car>
}

final class Repair: Object {
    @Persisted var date = Date()
    @Persisted var person: CarPerson?
}

final class Car: Object {
    @Persisted var brand = ""
    @Persisted var year = 0
    @Persisted var owner: CarPerson?
    @Persisted var shop: RepairShop?
    @Persisted var repairs: List<Repair>
    @Persisted var plates: List<String>
    @Persisted var checkups: List<Date>
}

final class ToDoItem: Object {
    @Persisted(primaryKey: true) var id = UUID().uuidString
    @Persisted var text = ""
    @Persisted var isCompleted = false
}

final class Sensor: Object {
    @Persisted(primaryKey: true) var symbol: String
    @Persisted var readings: List<Reading>
}

final class Reading: Object {
    @Persisted var value: Double
    @Persisted var seq: Int64
    @Persisted var timestamp: Date
}

final class Address: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
}

final class Contact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: Address?
    @Persisted var previous: List<Address>
}

final class AllTypes: Object {
    @Persisted var b = false
    @Persisted var i = 0
    @Persisted var i8: Int8 = 0
    @Persisted var i16: Int16 = 0
    @Persisted var i32: Int32 = 0
    @Persisted var i64: Int64 = 0
    @Persisted var f: Float = 0
    @Persisted var d: Double = 0
    @Persisted var s = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var dec = Decimal128(0)
    @Persisted var oid = ObjectId()
    @Persisted var uuid = UUID()
    @Persisted var optInt: Int?
    @Persisted var optString: String?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var optOid: ObjectId?
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var dept = Department.sports
    var notPersisted = 42
}

/// A fresh on-disk configuration in its own temporary directory.
func tempConfig(_ name: String = "test", durability: Durability = .unsafe) -> Realm.Configuration {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-objects-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var c = Realm.Configuration(fileURL: dir.appendingPathComponent("\(name).realm"))
    c.durability = durability
    return c
}

/// A fresh in-memory configuration.
func memoryConfig() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "mem-\(UUID().uuidString)")
}

final class Profile: Object {
    @Persisted var name = ""
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var friends: MutableSet<Dog>
    @Persisted var best: Map<String, Dog?>
}
