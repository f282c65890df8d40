// The confinement fast path of queue-confined realms inside `write {}` (Confinement.whileVerified):
// checks inside the block read a thread-local mark instead of asking libdispatch. The mark must
// exist only inside the block, only on its thread, only for the right queue, and nest correctly.
import Dispatch
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

private struct SetupFailure: Error { let message: String }

@Suite("Queue confinement verified once per write")
struct VerifiedQueueTests {
    /// Opens a realm confined to `queue` (on it) and returns it with the queue's tag number.
    private func openOn(_ queue: DispatchQueue, _ config: Realm.Configuration) throws -> (Unchecked<Realm>, Int) {
        let box = LockedBox<Unchecked<Realm>?>(nil)
        let failure = LockedBox<String?>(nil)
        queue.sync {
            do { box.set(Unchecked(value: try Realm(configuration: config, queue: queue))) } catch { failure.set("\(error)") }
        }
        if let message = failure.get() { throw SetupFailure(message: message) }
        let realm = try #require(box.get())
        guard case .queue(let id) = realm.value.core.confinement else {
            throw SetupFailure(message: "not queue-confined")
        }
        return (realm, id)
    }

    @Test func theMarkExistsOnlyInsideTheWriteBlock() throws {
        let queue = DispatchQueue(label: "strata.verified.a")
        let (realm, id) = try openOn(queue, tempConfig())
        let seen = LockedBox<[Int]>([])
        queue.sync {
            let r = realm.value
            seen.set([VerifiedQueue.current])
            try? r.write {
                seen.set(seen.get() + [VerifiedQueue.current])
                r.add(ToDoItem(value: ["text": "inside"]))
            }
            seen.set(seen.get() + [VerifiedQueue.current])
            // A throwing block clears it too.
            _ = try? r.write { () throws -> Void in
                throw SetupFailure(message: "rolled back")
            }
            seen.set(seen.get() + [VerifiedQueue.current, r.objects(ToDoItem.self).count])
        }
        #expect(seen.get() == [0, id, 0, 0, 1])
    }

    @Test func anotherThreadStartedInsideTheBlockIsStillRefused() throws {
        let queue = DispatchQueue(label: "strata.verified.b")
        let (realm, _) = try openOn(queue, tempConfig())
        let fromThread = LockedBox<(mark: Int, current: Bool, code: Realm.Error.Code?)>((-1, true, nil))
        queue.sync {
            let r = realm.value
            try? r.write {
                r.add(ToDoItem())
                let inside = Unchecked(value: r)
                onOtherThread {
                    var code: Realm.Error.Code?
                    do { try inside.value.writeCopy(toFile: URL(fileURLWithPath: "/tmp/strata-never-written.realm")) } catch {
                        code = (error as? Realm.Error)?.code
                    }
                    fromThread.set((VerifiedQueue.current, inside.value.core.confinement.isCurrent, code))
                }
            }
        }
        let result = fromThread.get()
        #expect(result.mark == 0)
        #expect(result.current == false)
        #expect(result.code == .wrongThread)
    }

    @Test func aRealmOfAnotherQueueIsCheckedForItsOwnQueue() throws {
        // Inside a write of realm A (queue A), realm B confined to queue B is not current; a
        // `sync` onto queue B runs B's write, with B's mark, and A's mark comes back after it.
        let queueA = DispatchQueue(label: "strata.verified.c1")
        let queueB = DispatchQueue(label: "strata.verified.c2")
        let (realmA, idA) = try openOn(queueA, tempConfig("verified-a"))
        let (realmB, idB) = try openOn(queueB, tempConfig("verified-b"))
        #expect(idA != idB)
        let log = LockedBox<[String]>([])
        queueA.sync {
            let a = realmA.value
            try? a.write {
                log.set(log.get() + ["A mark \(VerifiedQueue.current == idA)", "B current \(realmB.value.core.confinement.isCurrent)"])
                a.add(ToDoItem())
                queueB.sync {
                    let b = realmB.value
                    try? b.write {
                        log.set(log.get() + ["B mark \(VerifiedQueue.current == idB)"])
                        b.add(ToDoItem())
                    }
                    log.set(log.get() + ["after B \(VerifiedQueue.current == idA)"])
                }
            }
            log.set(log.get() + ["after A \(VerifiedQueue.current)"])
        }
        #expect(log.get() == ["A mark true", "B current false", "B mark true", "after B true", "after A 0"])
        queueB.sync { log.set(["\(realmB.value.objects(ToDoItem.self).count)"]) }
        #expect(log.get() == ["1"])
    }

    @Test func aWriteFromTheWrongQueueSetsNoMark() throws {
        let queue = DispatchQueue(label: "strata.verified.d")
        let other = DispatchQueue(label: "strata.verified.d2")
        let (realm, _) = try openOn(queue, tempConfig())
        let result = LockedBox<(code: Realm.Error.Code?, mark: Int)>((nil, -1))
        other.sync {
            var code: Realm.Error.Code?
            var mark = -1
            do {
                try realm.value.write { mark = VerifiedQueue.current }
            } catch { code = (error as? Realm.Error)?.code }
            result.set((code, mark))
        }
        #expect(result.get().code == .wrongThread)
        #expect(result.get().mark == -1, "the block never ran")
    }
}
