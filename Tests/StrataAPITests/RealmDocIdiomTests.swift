// Two names Realm's documentation uses that Linux's Foundation lacks: `autoreleasepool(invoking:)`
// around a background write, and `RealmCollection.ElementType` in generic code over collections.
import Foundation
import Testing
import Strata
import StrataTestSupport

/// Generic code over any Realm collection, written against RealmSwift's associated name.
func firstElements<C: RealmCollection>(_ collection: C, count: Int) -> [C.ElementType] {
    Array(collection.prefix(count))
}

@Suite struct RealmDocIdiomTests {
    @Test func aBackgroundWriteInsideAnAutoreleasePoolCommits() throws {
        let config = tempConfig("pool")
        let written = DispatchSemaphore(value: 0)
        let failure = LockedMessage()
        DispatchQueue(label: "background").async {
            autoreleasepool {
                do {
                    let realm = try Realm(configuration: config)
                    try realm.write { realm.add(Dog(value: ["id": "rex", "name": "Rex", "age": 3])) }
                } catch {
                    failure.set("\(error)")
                }
            }
            written.signal()
        }
        written.wait()
        #expect(failure.value == nil, "\(failure.value ?? "")")
        #expect(try Realm(configuration: config).objects(Dog.self).count == 1)
        // It returns the block's result and passes its error on.
        #expect(autoreleasepool { 42 } == 42)
        #expect(throws: Realm.Error.self) {
            try autoreleasepool { throw Realm.Error(.invalidArgument, "from the block") }
        }
    }

    @Test func elementTypeNamesTheElementsOfEveryCollection() throws {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            for (i, name) in ["a", "b", "c"].enumerated() { realm.add(Dog(value: ["id": name, "name": name, "age": i])) }
        }
        let dogs: [Results<Dog>.ElementType] = firstElements(realm.objects(Dog.self).sorted(byKeyPath: "age"), count: 2)
        #expect(dogs.map(\.name) == ["a", "b"])
        let names = List<String>()
        names.append(objectsIn: ["x", "y"])
        #expect(firstElements(names, count: 1) == ["x"])
    }
}

private final class LockedMessage: @unchecked Sendable {
    // @unchecked: `stored` is touched only under `lock`.
    private let lock = NSLock()
    private var stored: String?
    func set(_ message: String) { lock.lock(); stored = message; lock.unlock() }
    var value: String? { lock.lock(); defer { lock.unlock() }; return stored }
}
