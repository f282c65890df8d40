// The run loop of a thread other than the main one, as a place to deliver a realm's changes.
//
// A thread can be told to be running its run loop only from inside it: code called by the loop (a
// timer, a source, a block the loop performs) sees the loop's current mode, code outside sees
// none. That is Realm's test for whether a thread's realm can be notified, and Strata's: a realm
// of such a thread, or an observer or async write made there, is served by the loop from then on.
//
// Invariants:
// - A block is performed in the loop's common modes and the loop is woken, so it runs at the
//   loop's next turn, whichever mode the thread runs it in.
// - The loop retains the blocks it has not run yet; callers pass blocks that hold their realm
//   weakly and coalesce them (one pending delivery per observer hub, VersionWatcher.swift), so a
//   thread that stops running its loop keeps neither its realm nor a growing list alive.
import CoreFoundation
import Foundation

final class ThreadRunLoop: @unchecked Sendable {
    // @unchecked: CFRunLoopPerformBlock and CFRunLoopWakeUp may be called from any thread.
    private let loop: CFRunLoop
    /// The thread whose loop this is (ThreadIdentity).
    let thread: Int

    private init(loop: CFRunLoop, thread: Int) {
        self.loop = loop
        self.thread = thread
    }

    /// The calling thread's run loop when called from inside it; nil outside it (and on the main
    /// thread, whose realms the main queue serves).
    static func runningOnCurrentThread() -> ThreadRunLoop? {
        guard !Thread.isMainThread, let loop = CFRunLoopGetCurrent(), CFRunLoopCopyCurrentMode(loop) != nil else {
            return nil
        }
        return ThreadRunLoop(loop: loop, thread: ThreadIdentity.current)
    }

    /// Runs `body` on the thread at its loop's next turn.
    func perform(_ body: @escaping @Sendable () -> Void) {
        CFRunLoopPerformBlock(loop, kCFRunLoopCommonModes, body)
        CFRunLoopWakeUp(loop)
    }
}
