// Cross-process notifications: a child process (`strata-probe`, Tests/StrataProbe) writes
// through Strata (the commits of Tests/StrataCrossProcess) while this process observes a Results and a single object on a queue-confined
// realm; the changes must arrive (picked up by the version watcher, no refresh called).
// Timeouts are generous (30 s per step): the machine running the suite may be loaded.
import Foundation
import Synchronization
import Testing
import Strata
import StrataCrossProcess
import StrataTestSupport

@Suite struct NotificationCrossProcessTests {
    @Test func anotherProcessesCommitsReachResultsAndObjectObservers() throws {
        let config = tempConfig("shared")
        let path = try #require(config.fileURL?.path)
        // The file exists with object 0 before the child opens it.
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let item = ProbeItem()
                item.id = 0
                item.name = "first"
                realm.add(item)
            }
        }
        let queue = DispatchQueue(label: "cross-process-observer")
        let resultsLog = Mutex<[String]>([])
        let objectLog = Mutex<[String]>([])
        let resultsSaw = DispatchSemaphore(value: 0)
        let objectSaw = DispatchSemaphore(value: 0)
        let holder = TokensHolder()
        let count = 5
        queue.sync {
            do {
                let realm = try Realm(configuration: config, queue: queue)
                holder.tokens.append(realm.objects(ProbeItem.self).observe { change in
                    switch change {
                    case .initial(let r): resultsLog.withLock { $0.append("initial \(r.count)") }
                    case .update(let r, _, let i, _):
                        resultsLog.withLock { $0.append("update \(r.count) +\(i.count)") }
                        // Commits coalesce: done once every item (and the change to 0) is seen.
                        if r.count == count + 1, r.first?.count == CrossProcessWrites.changedCount { resultsSaw.signal() }
                    case .error(let e): resultsLog.withLock { $0.append("error \(e)") }
                    }
                })
                guard let first = realm.object(ofType: ProbeItem.self, forPrimaryKey: 0) else {
                    objectLog.withLock { $0.append("object 0 missing") }
                    return
                }
                holder.tokens.append(first.observe { (change: ObjectChange<ProbeItem>) in
                    switch change {
                    case .change(let o, let props):
                        objectLog.withLock { $0.append("\(props.map(\.name).sorted()) \(o.count) \(o.name)") }
                        objectSaw.signal()
                    case .deleted: objectLog.withLock { $0.append("deleted") }
                    case .error(let e): objectLog.withLock { $0.append("error \(e)") }
                    }
                })
            } catch {
                resultsLog.withLock { $0.append("open failed \(error)") }
            }
        }
        queue.sync {}   // the Results' .initial has run
        #expect(resultsLog.withLock { $0 } == ["initial 1"])

        let child = try StrataProbe.run(CrossProcessWrites.arguments(path: path, count: count, durability: config.durability))
        #expect(child.status == 0, "probe output: \(child.output)")
        #expect(child.output.contains(CrossProcessWrites.doneLine(count: count)))

        #expect(resultsSaw.wait(timeout: .now() + 30) == .success, "results log: \(resultsLog.withLock { $0 })")
        #expect(objectSaw.wait(timeout: .now() + 30) == .success, "object log: \(objectLog.withLock { $0 })")
        queue.sync {
            #expect(objectLog.withLock { $0 }.last
                    == "[\"count\", \"name\"] \(CrossProcessWrites.changedCount) \(CrossProcessWrites.changedName)")
            #expect(!resultsLog.withLock { $0 }.contains { $0.hasPrefix("error") })
            for t in holder.tokens { t.invalidate() }
        }
    }

    @Test func probeRejectsBadUsageWithItsExitCode() throws {
        let r = try StrataProbe.run(["write", "/nonexistent-dir/x.realm", "not-a-number", "full"])
        #expect(r.status == 64)
        let e = try StrataProbe.run(["write", "/nonexistent-dir/x.realm", "1", "full"])
        #expect(e.status == 2 && e.output.hasPrefix("error"))
    }
}

/// Tokens made on another queue.
final class TokensHolder: @unchecked Sendable {
    // @unchecked: appended inside queue.sync, read inside a later queue.sync (serial queue).
    var tokens: [NotificationToken] = []
}
