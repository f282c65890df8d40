// Thread and queue confinement, frozen objects, ThreadSafeReference, refresh, async writes.
import Dispatch
import Foundation
import Testing
import Strata
import StrataTestSupport

/// Runs `body` on a new thread and waits for it.
func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let t = Thread {
        body()
        done.signal()
    }
    t.start()
    done.wait()
}

/// Moves a non-Sendable value to another thread in tests that check confinement.
struct Unchecked<T>: @unchecked Sendable {
    // @unchecked: the tests hand the value over and only use it where the API allows.
    let value: T
}

@Suite struct ThreadTests {
    @Test func liveRealmsAreConfinedToTheirThread() throws {
        let realm = try Realm(configuration: tempConfig())
        let box = Unchecked(value: realm)
        let result = LockedBox<Realm.Error.Code?>(nil)
        onOtherThread {
            do { try box.value.beginWriteThrowing() } catch let e as Realm.Error { result.set(e.code) } catch {}
        }
        #expect(result.get() == .wrongThread)
    }

    @Test func eachThreadGetsItsOwnInstanceAndSeesCommits() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(ToDoItem(value: ["text": "a"])) }
        let seen = LockedBox(0)
        onOtherThread {
            do {
                let r = try Realm(configuration: config)
                try r.write { r.add(ToDoItem(value: ["text": "b"])) }
                seen.set(r.objects(ToDoItem.self).count)
            } catch { seen.set(-1) }
        }
        #expect(seen.get() == 2)
        #expect(realm.objects(ToDoItem.self).count == 1, "the snapshot does not move by itself")
        #expect(realm.refresh())
        #expect(realm.objects(ToDoItem.self).count == 2)
    }

    @Test func frozenObjectsCrossThreads() throws {
        let realm = try Realm(configuration: tempConfig())
        let item = ToDoItem(value: ["text": "frozen"])
        try realm.write { realm.add(item) }
        let frozen = item.freeze()
        #expect(frozen.isFrozen)
        let box = Unchecked(value: frozen)
        let text = LockedBox("")
        onOtherThread { text.set(box.value.text) }
        #expect(text.get() == "frozen")
        try realm.write { item.text = "changed" }
        #expect(frozen.text == "frozen", "a frozen object never changes")
        #expect(frozen.thaw()?.text == "changed")
        let frozenRealm = realm.freeze()
        #expect(frozenRealm.isFrozen)
        #expect { try frozenRealm.beginWriteThrowing() } throws: { ($0 as? Realm.Error)?.code == .readOnly }
        #expect(realm.objects(ToDoItem.self).freeze().count == 1)
    }

    @Test func threadSafeReferencesResolveOnce() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        let item = ToDoItem(value: ["text": "handed over"])
        try realm.write { realm.add(item) }
        let ref = ThreadSafeReference(to: item)
        let text = LockedBox<String?>(nil)
        #expect(!ref.isInvalidated)
        onOtherThread {
            guard let r = try? Realm(configuration: config) else { return }
            text.set(r.resolve(ref)?.text)
        }
        #expect(text.get() == "handed over")
        // Resolved: a second resolve is a misuse (ThreadSafeReferenceTests in StrataAPITests).
        #expect(ref.isInvalidated)
    }

    @Test func queueConfinedRealms() throws {
        let config = tempConfig()
        let queue = DispatchQueue(label: "strata.test.queue")
        let count = LockedBox(-1)
        let box = LockedBox<Unchecked<Realm>?>(nil)
        queue.sync {
            do {
                let r = try Realm(configuration: config, queue: queue)
                try r.write { r.add(ToDoItem()) }
                count.set(r.objects(ToDoItem.self).count)
                box.set(Unchecked(value: r))
            } catch { count.set(-2) }
        }
        #expect(count.get() == 1)
        let rb = try #require(box.get())
        #expect { try rb.value.beginWriteThrowing() } throws: { ($0 as? Realm.Error)?.code == .wrongThread }
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<String>("")
        queue.async {
            let r = rb.value
            r.writeAsync({ r.add(ToDoItem(value: ["text": "async"])) }, onComplete: { error in
                result.set(error == nil ? "ok" : "\(error!)")
                done.signal()
            })
        }
        done.wait()
        #expect(result.get() == "ok")
        queue.sync { count.set(rb.value.objects(ToDoItem.self).count) }
        #expect(count.get() == 2)
    }

    @Test func concurrentQueueWriters() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(try Sensor.make(value: ["symbol": "o3"])) }
        }
        let group = DispatchGroup()
        let q = DispatchQueue(label: "strata.writers", attributes: .concurrent)
        let failures = LockedBox(0)
        for i in 0..<40 {
            q.async(group: group) {
                do {
                    let r = try Realm(configuration: config)
                    try r.write {
                        guard let s = r.object(ofType: Sensor.self, forPrimaryKey: "o3") else { return }
                        let reading = Reading()
                        reading.seq = Int64(i)
                        s.readings.append(reading)
                    }
                } catch { failures.set(failures.get() + 1) }
            }
        }
        group.wait()
        #expect(failures.get() == 0)
        let realm = try Realm(configuration: config)
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "o3")?.readings.count == 40)
        #expect(Set(realm.objects(Reading.self).map(\.seq)) == Set((0..<40).map(Int64.init)))
    }

    @Test func asyncWriteAndInvalidate() async throws {
        let realm = try Realm(configuration: memoryConfig())
        let n = try await realm.asyncWrite { () -> Int in
            realm.add(ToDoItem())
            return 1
        }
        #expect(n == 1)
        realm.invalidate()
        #expect(realm.objects(ToDoItem.self).count == 1)
    }

    @Test func cancelAsyncWriteRejectsUnknownIds() throws {
        let realm = try Realm(configuration: memoryConfig())
        #expect { try realm.cancelAsyncWrite(999) } throws: { ($0 as? Realm.Error)?.code == .invalidArgument }
        let id = realm.writeAsync { }
        #expect(id > 0)
        #expect(!realm.isPerformingAsynchronousWriteOperations)
    }

    @Test func tooManyActiveVersions() throws {
        var config = tempConfig()
        config.maximumNumberOfActiveVersions = 2
        let realm = try Realm(configuration: config)
        var frozen: [Realm] = []
        var failure: Realm.Error.Code?
        for _ in 0..<6 {
            do {
                try realm.write { realm.add(ToDoItem()) }
                frozen.append(try realm.freezeThrowing())
            } catch let e as Realm.Error {
                failure = e.code
                break
            }
        }
        #expect(failure == .tooManyActiveVersions)
    }
}

@Suite struct MainQueueTests {
    /// The harness's main-queue strategy: `Realm(configuration:queue: .main)` used in main-queue blocks.
    @Test func mainQueueConfinedRealm() async throws {
        let config = tempConfig()
        let outcome: String = await withCheckedContinuation { cont in
            DispatchQueue.main.async {
                do {
                    let realm = try Realm(configuration: config, queue: .main)
                    try realm.write { realm.add(try Sensor.make(value: ["symbol": "main"])) }
                    let again = try Realm(configuration: config, queue: .main)
                    cont.resume(returning: again == realm ? "ok \(again.objects(Sensor.self).count)" : "not cached")
                } catch {
                    cont.resume(returning: "\(error)")
                }
            }
        }
        #expect(outcome == "ok 1")
    }
}
