// List API, Results, aggregates, value round trips of every type.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct ListAPITests {
    @Test func fullMutatingAPI() throws {
        let realm = try Realm(configuration: memoryConfig())
        let a = AllTypes()
        try realm.write { realm.add(a) }
        let l = a.ints
        try realm.write {
            l.append(1)
            l.append(objectsIn: [2, 3, 4])
            l.insert(0, at: 0)
        }
        #expect(Array(l) == [0, 1, 2, 3, 4])
        try realm.write {
            l.remove(at: 2)
            l.removeFirst()
            l.removeLast()
        }
        #expect(Array(l) == [1, 3])
        try realm.write {
            l.append(objectsIn: [5, 6, 7])
            l.move(from: 0, to: 4)
            l.swapAt(0, 1)
            l.replace(index: 2, object: 60)
        }
        #expect(Array(l) == [5, 3, 60, 7, 1])
        #expect(l.min() == 1)
        #expect(l.max() == 60)
        #expect(l.sum() == 76)
        #expect(l.index(of: 7) == 3)
        try realm.write { l.removeFirst(2) }
        #expect(Array(l) == [60, 7, 1])
        try realm.write { l.removeAll() }
        #expect(l.isEmpty)
        #expect(l.first == nil)
        try realm.write { a.optStrings.append(objectsIn: ["x", nil, "z"]) }
        #expect(Array(a.optStrings) == ["x", nil, "z"])
    }

    @Test func assigningAListReplacesItsContents() throws {
        let realm = try Realm(configuration: memoryConfig())
        let p = Person()
        p.tags.append(objectsIn: ["a", "b"])
        try realm.write { realm.add(p) }
        let fresh = List<String>()
        fresh.append("c")
        try realm.write { p.tags = fresh }
        #expect(Array(p.tags) == ["c"])
    }
}

@Suite struct ResultsTests {
    @Test func countIterationSubscriptAndAggregates() throws {
        let realm = try Realm(configuration: memoryConfig())
        #expect(realm.isEmpty)
        try realm.write {
            for i in 1...10 { realm.add(Dog(value: ["id": "\(i)", "name": "d\(i)", "age": i])) }
        }
        let dogs = realm.objects(Dog.self)
        #expect(!realm.isEmpty)
        #expect(dogs.count == 10)
        #expect(dogs.first?.age == 1)
        #expect(dogs.last?.age == 10)
        #expect(dogs[4].age == 5)
        #expect(dogs.map(\.age).reduce(0, +) == 55)
        #expect(dogs.min(ofProperty: "age") == 1)
        #expect(dogs.max(ofProperty: "age") == 10)
        #expect(dogs.sum(ofProperty: "age") == 55)
        #expect(dogs.average(ofProperty: "age") == 5.5)
        #expect(dogs.index(of: dogs[3]) == 3)
        try realm.write { realm.delete(dogs.filterFirst(3)) }
        #expect(dogs.count == 7, "results are live")
        try realm.write { realm.deleteAll() }
        #expect(dogs.count == 0)
        #expect(realm.isEmpty)
    }

    @Test func everyTypeRoundTripsThroughAFile() throws {
        let config = tempConfig()
        let oid = ObjectId.generate()
        let uuid = UUID()
        do {
            let realm = try Realm(configuration: config)
            let a = AllTypes()
            a.b = true; a.i = -5; a.i8 = -8; a.i16 = 16; a.i32 = -32; a.i64 = .max
            a.f = 1.5; a.d = -2.25; a.s = "héllo"; a.data = Data([1, 2, 3])
            a.date = Date(timeIntervalSince1970: 1234.5); a.dec = try Decimal128(string: "3.14159")
            a.oid = oid; a.uuid = uuid; a.optInt = 9; a.optString = nil; a.optDate = Date(timeIntervalSince1970: 9)
            a.optUUID = uuid; a.optOid = nil; a.dept = .culture
            a.ints.append(objectsIn: [3, 1, 2])
            try realm.write { realm.add(a) }
        }
        let realm = try Realm(configuration: config)
        let a = try #require(realm.objects(AllTypes.self).first)
        #expect(a.b && a.i == -5 && a.i8 == -8 && a.i16 == 16 && a.i32 == -32 && a.i64 == .max)
        #expect(a.f == 1.5 && a.d == -2.25 && a.s == "héllo" && a.data == Data([1, 2, 3]))
        #expect(a.date == Date(timeIntervalSince1970: 1234.5))
        #expect(a.dec == (try Decimal128(string: "3.14159")))
        #expect(a.oid == oid && a.uuid == uuid)
        #expect(a.optInt == 9 && a.optString == nil && a.optDate == Date(timeIntervalSince1970: 9))
        #expect(a.optUUID == uuid && a.optOid == nil && a.dept == .culture)
        #expect(Array(a.ints) == [3, 1, 2])
        try realm.write { a.s = "a much longer string than before"; a.data = Data(); a.optString = "now set" }
        #expect(a.s == "a much longer string than before" && a.data.isEmpty && a.optString == "now set")
        #expect(a.value(forKey: "i32") as? Int32 == -32)
    }

    @Test func valuesOverTheLimitAreTypedErrors() throws {
        let realm = try Realm(configuration: memoryConfig())
        let a = AllTypes()
        a.data = Data(count: 16 * 1024 * 1024 + 1)
        #expect { try realm.write { realm.add(a) } } throws: { ($0 as? Realm.Error)?.code == .valueTooLarge }
        #expect(realm.objects(AllTypes.self).isEmpty)
    }
}

@Suite struct SetAndMapTests {
    @Test func mutableSetKeepsElementsUnique() throws {
        let realm = try Realm(configuration: memoryConfig())
        let p = Profile()
        p.tags.insert(objectsIn: ["a", "b", "a"])
        #expect(p.tags.count == 2)
        try realm.write { realm.add(p) }
        #expect(p.tags.count == 2)
        try realm.write {
            p.tags.insert("c")
            p.tags.insert("a")
            p.tags.remove("b")
        }
        #expect(Set(p.tags) == ["a", "c"])
        #expect(p.tags.contains("c") && !p.tags.contains("b"))
        try realm.write { p.tags.formIntersection(["c", "z"]) }
        #expect(Array(p.tags) == ["c"])
        let rex = Dog(value: ["id": "r"])
        try realm.write {
            p.friends.insert(rex)
            p.friends.insert(rex)
        }
        #expect(p.friends.count == 1)
        try realm.write { realm.delete(rex) }
        #expect(p.friends.isEmpty, "deleting an object removes it from sets")
    }

    @Test func mapsStoreValuesAndLinks() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            let p = Profile()
            p.scores["math"] = 90
            p.best["first"] = Dog(value: ["id": "1", "name": "Rex"])
            try realm.write { realm.add(p) }
            try realm.write {
                p.scores["art"] = 75
                p.scores["math"] = 95
            }
        }
        let realm = try Realm(configuration: config)
        let p = try #require(realm.objects(Profile.self).first)
        #expect(p.scores.count == 2)
        #expect(p.scores["math"] == 95)
        #expect(p.scores.keys == ["art", "math"])
        #expect(p.best["first"]??.name == "Rex")
        try realm.write { p.scores["art"] = nil }
        #expect(p.scores.count == 1)
        let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: "1"))
        try realm.write { realm.delete(rex) }
        #expect(p.best.count == 1)
        if case .some(.none) = p.best["first"] {} else { Issue.record("deleting a linked object leaves a nil map value") }
        try realm.write { p.scores.removeAll() }
        #expect(p.scores.isEmpty)
    }
}
