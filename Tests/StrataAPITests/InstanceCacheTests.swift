// The per-thread instance cache: opening and releasing realms on many threads leaves no entry.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct InstanceCacheTests {
    /// The cache holds unretained cores (no weak side table): a core must leave it in its deinit,
    /// and lookups racing with releases on other threads must never revive a dying core.
    @Test func openAndReleaseOnManyThreadsLeavesNoEntry() throws {
        let config = tempConfig("cache")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ToDoItem()) }
            #expect(try Realm(configuration: config) == realm)
        }
        let failures = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<150 {
                do {
                    let r = try Realm(configuration: config)
                    let again = try Realm(configuration: config)
                    if r != again || r.objects(ToDoItem.self).count != 1 { failures.set(1) }
                } catch {
                    failures.set(1)
                }
            }
        }
        #expect(failures.get() == 0)
        // Every core was released and removed itself: the file counts as closed.
        #expect(try Realm.deleteFiles(for: config))
    }
}
