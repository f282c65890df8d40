// ThreadSanitizer's false positive on Synchronization.Mutex (Linux): two threads change a
// dictionary only inside `Mutex.withLock`, which is correct, and ThreadSanitizer still reports a
// "Swift access race" between the two closures. On Linux the Mutex waits and wakes with the futex
// system call, which ThreadSanitizer does not intercept, so it never learns that one closure
// ended before the other began. Reproduce (exit 66 = a report):
//   swiftc -sanitize=thread -g scripts/sanitizers/mutex-false-positive.swift -o /tmp/mutex-fp
//   TSAN_OPTIONS=exitcode=66 /tmp/mutex-fp
// The report's first frame is the closure given to withLock: its mangled name ends in
// `zYu…YTXEfU_` (a closure taking `inout sending` state and returning a `sending` result), which
// is what the entries of tsan.supp name, one per type that holds a Mutex.
import Foundation
import Synchronization

final class Box: Sendable { let state = Mutex<[Int: Int]>([:]) }
let box = Box()
let group = DispatchGroup()
for t in 0..<2 {
    group.enter()
    Thread.detachNewThread {
        for i in 0..<10_000 { box.state.withLock { $0[i % 64, default: 0] += t } }
        group.leave()
    }
}
group.wait()
print("total", box.state.withLock { $0.values.reduce(0, +) })
