// The example of Strata.docc's "Threads" article, as it shows it, on the "Getting started"
// model: a dog handed to a queue by reference, changed there, and the change seen here.
import Dispatch
import Foundation
import Strata
import Testing

extension ArticleExample {
    @Suite struct ThreadsExampleTests {
        @Test func aReferenceResolvesOnAnotherThread() throws {
            let directory = try TemporaryDirectory()
            let configuration = Realm.Configuration(fileURL: directory.file("dogs.realm"))
            let realm = try Realm(configuration: configuration)
            let dog = Dog(value: ["id": 1, "name": "Rex", "age": 3])
            try realm.write { realm.add(dog) }

            let reference = ThreadSafeReference(to: dog)
            DispatchQueue.global().async {
                let realm = try! Realm(configuration: configuration)
                guard let dog = realm.resolve(reference) else { return }   // deleted meanwhile
                try? realm.write { dog.age += 1 }
            }

            // The queue's commit becomes visible here when this realm refreshes.
            let deadline = Date().addingTimeInterval(30)
            while dog.age == 3 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
                realm.refresh()
            }
            #expect(dog.age == 4)
        }
    
        actor Shelter {
            var count = 0 {
                didSet {
                    guard count > 0 else { return }
                    for waiter in waiters { waiter.resume() }
                    waiters = []
                }
            }
            private var waiters: [CheckedContinuation<Void, Never>] = []

            /// Returns once a notification has counted a dog. No wall-clock deadline: under a full
            /// parallel test run the cooperative threads can be busy for minutes, which a deadline
            /// would misread as a lost notification (the test's time limit bounds a real loss).
            func untilCounted() async {
                if count > 0 { return }
                await withCheckedContinuation { waiters.append($0) }
            }
        }

        @MainActor @Test(.timeLimit(.minutes(10))) func aCollectionIsObservedOnAnActor() async throws {
            let directory = try TemporaryDirectory()
            let configuration = Realm.Configuration(fileURL: directory.file("dogs.realm"))
            let realm = try await Realm.open(configuration: configuration)
            let shelter = Shelter()
            let token = await realm.objects(Dog.self).observe(on: shelter) { shelter, change in
                switch change {
                case .initial(let dogs), .update(let dogs, _, _, _): shelter.count = dogs.count
                case .error: break
                }
            }
            try realm.write { realm.add(Dog(value: ["id": 1, "name": "Rex", "age": 3])) }
            await shelter.untilCounted()
            #expect(await shelter.count == 1)
            token.invalidate()
        }
    }
}
