// Models ported from Realm's documentation (its example models) and helpers.
import Foundation
import Strata
import StrataStorage

public final class Dog: Object {
    @Persisted(primaryKey: true) public var id: String
    @Persisted(indexed: true) public var name: String
    @Persisted public var age: Int
    @Persisted public var owner: Person?
}

public final class Person: Object {
    @Persisted public var name = ""
    @Persisted public var picture: Data?
    @Persisted public var dogs: List<Dog>
    @Persisted public var tags: List<String>
    @Persisted(originProperty: "owner") public var pets: LinkingObjects<Dog>
}

public enum Department: String, PersistableEnum {
    case news, sports, culture
}

public final class NewsPerson: Object {
    @Persisted(primaryKey: true) public var key = UUID().uuidString
    @Persisted(indexed: true) public var firstName = ""
    @Persisted(indexed: true) public var lastName: String?
    @Persisted public var born = Date.distantPast
    @Persisted public var deceased: Date?
    @Persisted public var photo: Data?
    @Persisted public var isVIP = false
    @Persisted public var id = 0
    @Persisted public var hairCount: Int64 = 0
    @Persisted public var height: Float = 0
    @Persisted public var weight: Double = 0
    @Persisted public var lat: Double?
    @Persisted public var department = Department.news
}

public final class Article: Object {
    @Persisted(primaryKey: true) public var id = ""
    @Persisted public var title: String?
    @Persisted public var author: NewsPerson?
    @Persisted public var people: List<NewsPerson>
    @Persisted public var date = Date()
}

public final class CarPerson: Object {
    @Persisted public var name = ""
}

public final class RepairShop: Object {
    @Persisted public var name = ""
    @Persisted public var contact: CarPerson?
    @Persisted(originProperty: "shop") public var maintainedCars: LinkingObjects<Car>
}

public final class Repair: Object {
    @Persisted public var date = Date()
    @Persisted public var person: CarPerson?
}

public final class Car: Object {
    @Persisted public var brand = ""
    @Persisted public var year = 0
    @Persisted public var owner: CarPerson?
    @Persisted public var shop: RepairShop?
    @Persisted public var repairs: List<Repair>
    @Persisted public var plates: List<String>
    @Persisted public var checkups: List<Date>
}

public final class ToDoItem: Object {
    @Persisted(primaryKey: true) public var id = UUID().uuidString
    @Persisted public var text = ""
    @Persisted public var isCompleted = false
}

public final class Sensor: Object {
    @Persisted(primaryKey: true) public var symbol: String
    @Persisted public var readings: List<Reading>
}

public final class Reading: Object {
    @Persisted public var value: Double
    @Persisted public var seq: Int64
    @Persisted public var timestamp: Date
}

public final class Address: EmbeddedObject {
    @Persisted public var street = ""
    @Persisted public var city = ""
}

public final class Contact: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var name = ""
    @Persisted public var address: Address?
    @Persisted public var previous: List<Address>
}

public final class AllTypes: Object {
    @Persisted public var b = false
    @Persisted public var i = 0
    @Persisted public var i8: Int8 = 0
    @Persisted public var i16: Int16 = 0
    @Persisted public var i32: Int32 = 0
    @Persisted public var i64: Int64 = 0
    @Persisted public var f: Float = 0
    @Persisted public var d: Double = 0
    @Persisted public var s = ""
    @Persisted public var data = Data()
    @Persisted public var date = Date(timeIntervalSince1970: 0)
    @Persisted public var dec = Decimal128(0)
    @Persisted public var oid = ObjectId()
    @Persisted public var uuid = UUID()
    @Persisted public var optInt: Int?
    @Persisted public var optString: String?
    @Persisted public var optDate: Date?
    @Persisted public var optUUID: UUID?
    @Persisted public var optOid: ObjectId?
    @Persisted public var ints: List<Int>
    @Persisted public var optStrings: List<String?>
    @Persisted public var dept = Department.sports
    public var notPersisted = 42
}

/// A fresh on-disk configuration in its own temporary directory.
public func tempConfig(_ name: String = "test", durability: Durability = .unsafe) -> Realm.Configuration {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-objects-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var c = Realm.Configuration(fileURL: dir.appendingPathComponent("\(name).realm"))
    c.durability = durability
    return c
}

/// A fresh in-memory configuration.
public func memoryConfig() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "mem-\(UUID().uuidString)")
}

public final class Profile: Object {
    @Persisted public var name = ""
    @Persisted public var tags: MutableSet<String>
    @Persisted public var scores: Map<String, Int>
    @Persisted public var friends: MutableSet<Dog>
    @Persisted public var best: Map<String, Dog?>
}

public final class DecimalHolder: Object {
    @Persisted public var amount = Decimal128(0)
    @Persisted public var maybe: Decimal128?
    @Persisted public var history: List<Decimal128>
}
