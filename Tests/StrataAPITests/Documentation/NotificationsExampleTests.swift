// The example of Strata.docc's "Notifications" article, as it shows it, on the "Getting
// started" model: the initial results, then the change set of one write, then nothing.
import Foundation
import Strata
import Testing

extension ArticleExample {
    @Suite struct NotificationsExampleTests {
        @Test func anObserverSeesTheInitialResultsThenEachChange() throws {
            let directory = try TemporaryDirectory()
            let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file("dogs.realm")))
            try realm.write { realm.add(Dog(value: ["id": 1, "name": "Rex"])) }
            var seen: [String] = []
            func show(_ dogs: Results<Dog>) { seen.append("initial \(dogs.count)") }
            func update(_ dogs: Results<Dog>, deleted: [Int], inserted: [Int], changed: [Int]) {
                seen.append("update \(dogs.count) deleted \(deleted) inserted \(inserted) changed \(changed)")
            }
            func report(_ error: Swift.Error) { seen.append("error \(error)") }

            let token = realm.objects(Dog.self).observe { change in
                switch change {
                case .initial(let dogs):
                    show(dogs)
                case .update(let dogs, let deletions, let insertions, let modifications):
                    update(dogs, deleted: deletions, inserted: insertions, changed: modifications)
                case .error(let error):
                    report(error)
                }
            }
            try realm.write { realm.add(Dog(value: ["id": 2, "name": "Fido"])) }   // .update: inserted [1]
            token.invalidate()                                                     // no more changes

            try realm.write { realm.add(Dog(value: ["id": 3, "name": "Max"])) }
            #expect(seen == ["initial 1", "update 2 deleted [] inserted [1] changed []"])
        }
    }
}
