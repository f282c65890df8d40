// Writing: transactions, add/create/delete, primary keys, links, backlinks, embedded objects.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct WriteTransactionTests {
    @Test func writeReturnsTheBlockValueAndCommits() throws {
        let realm = try Realm(configuration: memoryConfig())
        let n = try realm.write { () -> Int in
            realm.add(ToDoItem(value: ["text": "milk"]))
            return 7
        }
        #expect(n == 7)
        #expect(realm.objects(ToDoItem.self).count == 1)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func writeRollsBackWhenTheBlockThrows() throws {
        struct Boom: Error {}
        let realm = try Realm(configuration: memoryConfig())
        let item = ToDoItem(value: ["text": "x"])
        #expect(throws: Boom.self) {
            try realm.write {
                realm.add(item)
                throw Boom()
            }
        }
        #expect(realm.objects(ToDoItem.self).isEmpty)
        #expect(item.isInvalidated)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func misuseOfTransactionsIsTyped() throws {
        let realm = try Realm(configuration: memoryConfig())
        #expect { try realm.addThrowing(ToDoItem()) } throws: { ($0 as? Realm.Error)?.code == .notInWriteTransaction }
        #expect { try realm.commitWrite() } throws: { ($0 as? Realm.Error)?.code == .notInWriteTransaction }
        realm.beginWrite()
        #expect { try realm.beginWriteThrowing() } throws: { ($0 as? Realm.Error)?.code == .alreadyInWriteTransaction }
        #expect { try realm.deleteThrowing(ToDoItem()) } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        let item = ToDoItem()
        try realm.write { realm.add(item) }
        #expect { try item.setValueThrowing("y", forKey: "text") } throws: { ($0 as? Realm.Error)?.code == .notInWriteTransaction }
        // Thrown at once, and the write fails with it all the same.
        var thrownAtOnce: Realm.Error.Code?
        #expect {
            try realm.write {
                do { try item.setValueThrowing("other", forKey: "id") } catch let e as Realm.Error { thrownAtOnce = e.code }
            }
        } throws: { ($0 as? Realm.Error)?.code == .primaryKeyChange }
        #expect(thrownAtOnce == .primaryKeyChange)
    }

    @Test func cancelWriteInvalidatesAddedObjects() throws {
        let realm = try Realm(configuration: memoryConfig())
        realm.beginWrite()
        let item = ToDoItem(value: ["text": "gone"])
        realm.add(item)
        #expect(realm.objects(ToDoItem.self).count == 1)
        realm.cancelWrite()
        #expect(item.isInvalidated)
        #expect(realm.objects(ToDoItem.self).count == 0)
    }

    @Test func managedObjectsReadAndWriteThroughTheRealm() throws {
        let realm = try Realm(configuration: memoryConfig())
        let item = ToDoItem(value: ["text": "buy"])
        try realm.write { realm.add(item) }
        #expect(item.realm != nil)
        try realm.write { item.isCompleted = true; item.text = "bought" }
        let again = try #require(realm.object(ofType: ToDoItem.self, forPrimaryKey: item.id))
        #expect(again.isCompleted)
        #expect(again.text == "bought")
        #expect(again.isSameObject(as: item))
        #expect(again !== item)
    }
}

@Suite struct PrimaryKeyTests {
    @Test func duplicatesAreRejectedAndUpsertsUpdate() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write { realm.add(Dog(value: ["id": "1", "name": "Rex", "age": 1])) }
        do {
            try realm.write { realm.add(Dog(value: ["id": "1", "name": "Other"])) }
            Issue.record("duplicate primary key must throw")
        } catch let e as Realm.Error {
            #expect(e.code == .duplicatePrimaryKey)
            #expect(e.message.contains("Dog"))
        }
        try realm.write { realm.add(Dog(value: ["id": "1", "name": "Max", "age": 5]), update: .modified) }
        #expect(realm.objects(Dog.self).count == 1)
        let d = try #require(realm.object(ofType: Dog.self, forPrimaryKey: "1"))
        #expect(d.name == "Max")
        #expect(d.age == 5)
        try realm.write { _ = realm.create(Dog.self, value: ["id": "1", "age": 9], update: .modified) }
        #expect(d.name == "Max", "create(update:) leaves missing keys unchanged")
        #expect(d.age == 9)
        #expect { try realm.write { realm.add(ToDoItem(), update: .all); realm.add(Reading(), update: .all) } } throws: {
            ($0 as? Realm.Error)?.code == .missingPrimaryKey
        }
    }

    @Test func lookupsWithTheWrongKeyTypeOrNoKeyAreTyped() throws {
        let realm = try Realm(configuration: memoryConfig())
        #expect { try realm.objectThrowing(ofType: Dog.self, forPrimaryKey: 5) } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        #expect { try realm.objectThrowing(ofType: Reading.self, forPrimaryKey: 5) } throws: { ($0 as? Realm.Error)?.code == .missingPrimaryKey }
        #expect(try realm.objectThrowing(ofType: Dog.self, forPrimaryKey: "nobody") == nil)
    }

    @Test func intAndUUIDKeys() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for i in 0..<50 { realm.add(Contact(value: ["id": i, "name": "c\(i)"])) }
        }
        #expect(realm.object(ofType: Contact.self, forPrimaryKey: 37)?.name == "c37")
        #expect(realm.object(ofType: Contact.self, forPrimaryKey: 50) == nil)
    }
}

@Suite struct LinkTests {
    @Test func addingCascadesAndBacklinksAreLive() throws {
        let realm = try Realm(configuration: memoryConfig())
        let ann = Person(value: ["name": "Ann"])
        let rex = Dog(value: ["id": "r", "name": "Rex"])
        let fido = Dog(value: ["id": "f", "name": "Fido"])
        rex.owner = ann
        fido.owner = ann
        ann.dogs.append(objectsIn: [rex, fido])
        try realm.write { realm.add(ann) }
        #expect(realm.objects(Dog.self).count == 2)
        #expect(rex.realm != nil && fido.realm != nil)
        let p = try #require(realm.objects(Person.self).first)
        #expect(p.dogs.count == 2)
        #expect(p.dogs[0].name == "Rex")
        #expect(p.pets.count == 2)
        #expect(Set(p.pets.map(\.name)) == ["Rex", "Fido"])
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: "f")?.owner?.name == "Ann")
    }

    @Test func deletingNullifiesLinksAndRemovesListEntries() throws {
        let realm = try Realm(configuration: memoryConfig())
        let ann = Person(value: ["name": "Ann"])
        let rex = Dog(value: ["id": "r", "name": "Rex"])
        rex.owner = ann
        ann.dogs.append(rex)
        ann.dogs.append(rex)
        ann.dogs.append(Dog(value: ["id": "x", "name": "Xena"]))
        try realm.write { realm.add(ann) }
        #expect(ann.dogs.count == 3)
        try realm.write { realm.delete(rex) }
        #expect(rex.isInvalidated)
        #expect(ann.dogs.count == 1)
        #expect(ann.dogs[0].name == "Xena")
        try realm.write { realm.delete(ann) }
        let xena = try #require(realm.object(ofType: Dog.self, forPrimaryKey: "x"))
        #expect(xena.owner == nil)
        #expect { try realm.write { realm.delete(ann) } } throws: { ($0 as? Realm.Error)?.code == .objectInvalidated }
    }

    @Test func carRepairBacklinks() throws {
        let realm = try Realm(configuration: memoryConfig())
        let shop = RepairShop(value: ["name": "Joe's"])
        let car1 = Car(value: ["brand": "VW", "year": 1999])
        let car2 = Car(value: ["brand": "BMW", "year": 2010])
        car1.shop = shop
        car2.shop = shop
        car1.plates.append(contentsOf: ["A-1", "B-2"])
        car1.checkups.append(Date(timeIntervalSince1970: 100))
        car1.repairs.append(Repair(value: ["date": Date(timeIntervalSince1970: 5), "person": ["name": "Mo"]]))
        try realm.write { realm.add([car1, car2]) }
        let s = try #require(realm.objects(RepairShop.self).first)
        #expect(s.maintainedCars.count == 2)
        #expect(s.maintainedCars.sum(ofProperty: "year") == 4009)
        #expect(Array(car1.plates) == ["A-1", "B-2"])
        #expect(car1.checkups.first == Date(timeIntervalSince1970: 100))
        #expect(car1.repairs.first?.person?.name == "Mo")
        try realm.write { car2.shop = nil }
        #expect(s.maintainedCars.count == 1)
    }

    @Test func embeddedObjectsDieWithTheirParent() throws {
        let realm = try Realm(configuration: memoryConfig())
        let c = Contact(value: ["id": 1, "name": "Bo", "address": ["street": "Main", "city": "X"]])
        c.previous.append(Address(value: ["street": "Old", "city": "Y"]))
        try realm.write { realm.add(c) }
        #expect(realm.objects(Address.self).count == 2)
        #expect(c.address?.street == "Main")
        try realm.write { c.address = Address(value: ["street": "New", "city": "Z"]) }
        #expect(realm.objects(Address.self).count == 2, "the replaced embedded object is deleted")
        #expect(c.address?.street == "New")
        #expect { try realm.write { realm.add(Address()) } } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        try realm.write { realm.delete(c) }
        #expect(realm.objects(Address.self).count == 0)
    }

    @Test func objectsOfAnotherRealmCannotBeLinked() throws {
        let a = try Realm(configuration: memoryConfig())
        let b = try Realm(configuration: memoryConfig())
        let ann = Person()
        try a.write { a.add(ann) }
        let dog = Dog(value: ["id": "1"])
        dog.owner = ann
        #expect { try b.write { b.add(dog) } } throws: { ($0 as? Realm.Error)?.code == .wrongRealm }
    }
}

@Suite struct BacklinkCountTests {
    /// An upserted object that is already in the list keeps a correct backlink count.
    @Test func upsertIntoAListKeepsCounts() throws {
        let realm = try Realm(configuration: memoryConfig())
        let p = Person(value: ["name": "P"])
        let rex = Dog(value: ["id": "r", "name": "Rex"])
        p.dogs.append(rex)
        try realm.write { realm.add(p) }
        let again = Person(value: ["name": "Q"])
        again.dogs.append(Dog(value: ["id": "r", "name": "Rex2"]))
        let q = Person()
        try realm.write {
            realm.add(q)
            q.dogs.append(rex)
            q.dogs.append(rex)
        }
        try realm.write { q.dogs.remove(at: 0) }
        try realm.write { realm.delete(rex) }
        #expect(q.dogs.isEmpty, "the second entry was still counted and is removed on delete")
        #expect(p.dogs.isEmpty)
    }
}

@Suite struct NewspaperTests {
    @Test func articlesAndPeoplePersistMutateAndDelete() throws {
        let config = tempConfig()
        let authorKey: String
        do {
            let realm = try Realm(configuration: config)
            let author = NewsPerson(value: ["firstName": "Ada", "lastName": "L", "isVIP": true, "hairCount": Int64(1_000_000),
                                            "height": Float(1.7), "weight": 60.5, "lat": 51.5, "department": "culture"])
            authorKey = author.key
            let a = Article(value: ["id": "a1", "title": "Engines", "date": Date(timeIntervalSince1970: 10)])
            a.author = author
            a.people.append(author)
            a.people.append(NewsPerson(value: ["firstName": "Bob"]))
            try realm.write { realm.add(a) }
        }
        do {
            let realm = try Realm(configuration: config)
            let a = try #require(realm.object(ofType: Article.self, forPrimaryKey: "a1"))
            #expect(a.title == "Engines")
            #expect(a.author?.firstName == "Ada")
            #expect(a.author?.department == .culture)
            #expect(a.author?.born == Date.distantPast)
            #expect(a.author?.hairCount == 1_000_000)
            #expect(a.people.count == 2)
            #expect(realm.objects(NewsPerson.self).count == 2)
            try realm.write {
                a.title = nil
                a.author?.deceased = Date(timeIntervalSince1970: 99)
            }
        }
        let realm = try Realm(configuration: config)
        let a = try #require(realm.object(ofType: Article.self, forPrimaryKey: "a1"))
        #expect(a.title == nil)
        let ada = try #require(realm.object(ofType: NewsPerson.self, forPrimaryKey: authorKey))
        #expect(ada.deceased == Date(timeIntervalSince1970: 99))
        try realm.write { realm.delete(ada) }
        #expect(a.author == nil)
        #expect(a.people.count == 1)
        #expect(a.people.first?.firstName == "Bob")
        try realm.write { realm.delete(a) }
        #expect(realm.objects(Article.self).isEmpty)
        #expect(realm.objects(NewsPerson.self).count == 1)
    }
}
