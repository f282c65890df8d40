// Unmanaged objects behave like plain objects; init(value:), value(forKey:), setValue(_:forKey:).
import Foundation
import Synchronization
import Testing
import Strata
import StrataTestSupport

@Suite struct UnmanagedObjectTests {
    @Test func defaultsAndPlainAssignment() {
        let d = Dog()
        #expect(d.id == "")
        #expect(d.age == 0)
        #expect(d.owner == nil)
        d.name = "Rex"
        d.age = 3
        #expect(d.name == "Rex")
        #expect(d.age == 3)
        #expect(d.realm == nil)
        #expect(!d.isInvalidated)
        #expect(!d.isFrozen)
        let p = Person()
        p.dogs.append(d)
        p.tags.append(contentsOf: ["a", "b"])
        #expect(p.dogs.count == 1)
        #expect(p.dogs[0] === d)
        #expect(Array(p.tags) == ["a", "b"])
        #expect(p.pets.isEmpty)
    }

    @Test func initFromDictionaryWithNestedObjects() {
        let p = Person(value: ["name": "Ann", "dogs": [["id": "1", "name": "Rex", "age": 3], ["id": "2", "name": "Fido"]]])
        #expect(p.name == "Ann")
        #expect(p.dogs.count == 2)
        #expect(p.dogs[0].name == "Rex")
        #expect(p.dogs[0].age == 3)
        #expect(p.dogs[1].id == "2")
    }

    /// The `@Persisted` ordinal counter is per thread (a C thread-local word): objects created on
    /// several threads at once still map every wrapper to its own column. A counter shared between
    /// threads interleaves ordinals, and managed reads (which find the column by ordinal) return
    /// another property's value or stop at a type check. Each thread writes and reads back its own
    /// in-memory realm, so the only thing the threads share is the counter under test.
    @Test func objectsCreatedOnManyThreadsAtOnceKeepTheirColumns() {
        let mismatches = Mutex<Int>(0)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                let realm = try Realm(configuration: memoryConfig())
                try realm.write {
                    for i in 0..<3_000 {
                        realm.add(Dog(value: ["\(thread)-\(i)", "n\(i)", i]))
                    }
                }
                var bad = 0
                for _ in 0..<3 {
                    for dog in realm.objects(Dog.self) {
                        guard let i = Int(dog.id.split(separator: "-").last ?? "") else { bad += 1; continue }
                        if dog.name != "n\(i)" || dog.age != i { bad += 1 }
                    }
                }
                mismatches.withLock { $0 += bad }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test func initFromArrayInDeclarationOrder() {
        let d = Dog(value: ["7", "Rex", 3])
        #expect(d.id == "7")
        #expect(d.name == "Rex")
        #expect(d.age == 3)
    }

    @Test func initFromAnotherObjectCopiesValues() {
        let d = Dog(value: ["7", "Rex", 3])
        let e = Dog(value: d)
        #expect(e.name == "Rex")
        #expect(e !== d)
    }

    @Test func makeReportsBadInput() {
        #expect(throws: Realm.Error.self) { _ = try Dog.make(value: ["nope": 1]) }
        do {
            _ = try Dog.make(value: ["age": "three"])
            Issue.record("a String for an Int property must be rejected")
        } catch let e as Realm.Error {
            #expect(e.code == .invalidArgument)
            #expect(e.message.contains("age"))
        } catch { Issue.record("unexpected \(error)") }
        do {
            _ = try Dog.make(value: ["1", "Rex", 3, nil as Person? as Any, "extra"])
            Issue.record("too many values must be rejected")
        } catch let e as Realm.Error {
            #expect(e.code == .invalidArgument)
        } catch { Issue.record("unexpected \(error)") }
        do {
            _ = try Dog.make(value: 42)
            Issue.record("an Int is not a value for an object")
        } catch let e as Realm.Error {
            #expect(e.code == .invalidArgument)
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func valueForKeyAndSetValue() throws {
        let a = AllTypes()
        a.setValue(5, forKey: "i8")
        #expect(a.i8 == 5)
        a.setValue(nil, forKey: "optInt")
        #expect(a.optInt == nil)
        a.setValue(7, forKey: "optInt")
        #expect(a.optInt == 7)
        #expect(a.value(forKey: "optInt") as? Int == 7)
        #expect(a.value(forKey: "dept") as? String == "sports")
        // A key that names no property stops reading (AccessorRulesTests) and fails a write:
        #expect(throws: Realm.Error.self) { try a.setValueThrowing(1, forKey: "missing") }
        #expect(throws: Realm.Error.self) { try a.setValueThrowing(300, forKey: "i8") }
        a["s"] = "hello"
        #expect(a.s == "hello")
    }

    @Test func enumsAndValueTypes() throws {
        let p = NewsPerson()
        p.department = .culture
        #expect(p.department == .culture)
        let id = ObjectId.generate()
        let parsed = try ObjectId(string: id.stringValue)
        #expect(parsed == id)
        #expect(ObjectId.generate() != id)
        #expect(throws: Realm.Error.self) { _ = try ObjectId(string: "xyz") }
        let dec = try Decimal128(string: "12.345")
        #expect(dec.description == "12.345")
        #expect(throws: Realm.Error.self) { _ = try Decimal128(string: "twelve") }
    }
}
