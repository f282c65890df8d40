// The writer lock: one 32-bit word, taken and released with one atomic instruction each when
// nobody waits (no system call); when contended, a waiter yields its CPU a bounded number of
// times, then sleeps on the word with a futex. The threads of one core wait their turn in a queue
// of their own (`lock`), so a thread of the core never waits while later ones take the word. It is the only writer exclusion of the storage:
// for a file the word lies in the lock file's shared mapping (LockFile.swift) and excludes every
// thread and process using the file; an in-memory file, which has no lock file, keeps the same
// word in private memory, where its holder can never die behind its back.
//
// Word (LockFile.writerWordOffset): 0 = free; otherwise the holder's token in bits 0–30 and, in
// bit 31, "someone may be sleeping on the word" (the releaser then wakes one sleeper).
// Token (LockFile.slotTokensOffset + 4·slot): (generation << 8) | slot, generation 1...2^23−1.
// Each core makes a new token when it claims a reader slot (generation + 1 of the slot's last
// token) and stores it in the slot's token cell; the token names the *core*, not a thread. A
// private word is always taken with token 1.
//
// Why not a PTHREAD_PROCESS_SHARED + PTHREAD_MUTEX_ROBUST mutex: a robust mutex belongs to the
// thread that locked it (unlocking from another thread is EPERM, and the kernel's robust list
// is per thread). A write transaction may end on another thread than the one that began it —
// a realm confined to a dispatch queue can run beginWrite and commitWrite in two blocks, which
// GCD runs on different threads; a transaction's deinit runs wherever its last reference dies.
// The writer lock therefore belongs to the core, not to a thread.
//
// Robustness (what PTHREAD_MUTEX_ROBUST gives, by other means): a holder's core is alive while
// its slot's ownership byte (1024 + slot, an OFD lock that dies with its process) is locked and
// the slot's token cell still holds its token. A waiter sleeps at most `probeIntervalNanoseconds`
// (10 ms) at a time; after a timed-out sleep it checks the holder, and if the holder is dead it
// takes the word over with a compare-exchange from the exact word it judged dead (so two waiters
// cannot both take it). A live holder is never judged dead: while its core is open it holds its slot byte and
// nobody else writes its token cell. (A dead holder may look alive for a while — a forked child
// that has not exec'd yet keeps its descriptors — as any OFD lock would stay locked then.)
//
// Taking over from a dead writer leaves the file as a lock the kernel released at its holder's
// death would, which the commit protocol handles
// (MetaSlot.swift; the crash tests kill writers at random moments): a commit writes only pages
// free in its base version, and its meta after its pages. A writer killed before writing its meta
// left pages no version reaches. One killed after its meta but before publishing it (raising the
// lock file's latest version) left an unacknowledged version: the next writer builds on the
// published base and overwrites that meta slot with its own commit of the same version number,
// and until then open accepts that version only if every page its commit record lists verifies
// (else it falls back to the base). One killed after publishing left a complete commit, which the
// next writer adopts (`refreshLocked`) and builds on.
//
// Invariants:
// - Bits 0–30 of the word are 0 or the token of the core holding the writer lock.
// - Only a core that holds a slot's ownership byte writes that slot's token cell.
// - Memory order: taking the word is an acquire, releasing it a release, so the writer state
//   (free space, lock-file latest version) written under the lock is seen by the next holder in
//   any thread or process.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Futex wait/wake on a word of a shared mapping (not FUTEX_PRIVATE: waiters and wakers may be
/// in different processes).
enum Futex {
    /// glibc's `syscall` is variadic, which Swift does not import. It is called through a
    /// non-variadic pointer: on Linux x86_64 and arm64 integer and pointer arguments of a
    /// variadic call are passed exactly like those of a fixed one (and glibc's `syscall` is an
    /// assembly stub that only moves registers), so the call is well defined in practice.
    typealias SyscallFunction = @convention(c) (Int, UnsafeMutableRawPointer, Int32, UInt32,
                                                UnsafePointer<timespec>?, UnsafeMutableRawPointer?, UInt32) -> Int
    static let syscallFunction: SyscallFunction? = {
        #if arch(x86_64) || arch(arm64)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall") else { return nil }
        return unsafeBitCast(symbol, to: SyscallFunction.self)
        #else
        return nil
        #endif
    }()
    #if arch(x86_64)
    static let number = 202
    #else
    static let number = 98  // arm64 (other architectures have no `syscallFunction`)
    #endif
    static let wait: Int32 = 0
    static let wake: Int32 = 1

    /// Sleeps while `*word == expected`, for at most `nanoseconds`. Returns false when the sleep
    /// timed out (or, without a futex, always: the caller then polls).
    static func wait(_ word: UnsafeMutableRawPointer, expected: UInt32, nanoseconds: Int) -> Bool {
        guard let call = syscallFunction else {
            usleep(200)
            return false
        }
        var timeout = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        let result = call(number, word, wait, expected, &timeout, nil, 0)
        return !(result != 0 && errno == ETIMEDOUT)
    }

    /// Wakes up to `count` sleepers of `word`.
    static func wake(_ word: UnsafeMutableRawPointer, count: UInt32) {
        guard let call = syscallFunction else { return }
        _ = call(number, word, wake, count, nil, nil, 0)
    }
}

/// The writer lock of one core (see the file header). Shared by every thread of the core.
final class WriterLock: @unchecked Sendable {
    // @unchecked: the word is accessed through Atomic operations only; everything else is
    // immutable.
    static let waitersBit: UInt32 = 0x8000_0000
    static let holderMask: UInt32 = 0x7FFF_FFFF
    /// The longest a waiter sleeps before checking whether the holder died.
    static let probeIntervalNanoseconds = 10_000_000
    /// How many times a contended waiter yields its CPU, re-checking the word after each, before
    /// it sleeps on the futex (`lockSlowly`).
    static let yieldsBeforeSleeping = 200

    private let word: UnsafeMutablePointer<Atomic<UInt32>>
    /// This core's queue of threads, in private memory: `[0]` the next ticket to hand out, `[1]`
    /// the ticket whose turn it is, `[2]` how many threads may be sleeping for their turn.
    private let queue: UnsafeMutablePointer<Atomic<UInt32>>
    /// The token this core takes the word with.
    let token: UInt32
    /// The lock file's token cells and descriptor, to tell whether another core holding the word
    /// is still alive; nil for a private word, which only this core ever holds.
    private let slotTokens: UnsafeMutablePointer<Atomic<UInt32>>?
    private let lockFileDescriptor: Int32
    private let ownsWord: Bool

    /// The word in a lock file's shared mapping (which must outlive this lock), held as `token`.
    init(sharedWord: UnsafeMutablePointer<Atomic<UInt32>>, token: UInt32,
         slotTokens: UnsafeMutablePointer<Atomic<UInt32>>, lockFileDescriptor: Int32) {
        self.word = sharedWord
        self.token = token
        self.slotTokens = slotTokens
        self.lockFileDescriptor = lockFileDescriptor
        self.ownsWord = false
        self.queue = WriterLock.makeQueue()
    }

    /// A word in private memory (in-memory files: no lock file, one process).
    init() {
        word = UnsafeMutablePointer<Atomic<UInt32>>.allocate(capacity: 1)
        word.initialize(to: Atomic<UInt32>(0))
        token = 1
        slotTokens = nil
        lockFileDescriptor = -1
        ownsWord = true
        queue = WriterLock.makeQueue()
    }

    private static func makeQueue() -> UnsafeMutablePointer<Atomic<UInt32>> {
        let queue = UnsafeMutablePointer<Atomic<UInt32>>.allocate(capacity: 3)
        for i in 0..<3 { (queue + i).initialize(to: Atomic<UInt32>(0)) }
        return queue
    }

    deinit {
        if ownsWord {
            word.deinitialize(count: 1)
            word.deallocate()
        }
        queue.deinitialize(count: 3)
        queue.deallocate()
    }

    /// Makes a core's token for `slot` (called once the slot's ownership byte is held): the
    /// token names the core, so a later core of the same slot has another one.
    static func newToken(slot: Int, previous: UInt32) -> UInt32 {
        var generation = (previous & holderMask) >> 8 &+ 1
        if generation > holderMask >> 8 { generation = 1 }
        return generation << 8 | UInt32(slot)
    }

    /// Takes the word: one compare-exchange when it is free and no thread of this core queues.
    ///
    /// A thread that finds the word taken yields a few times (`yieldsBeforeQueueing`), taking it
    /// if it frees while nobody queues; then it takes a ticket of the core's queue and waits for
    /// its turn, and only the thread whose turn it is contends for the word. While any thread
    /// queues, no other thread of the core takes the word out of turn. Without the queue the
    /// word went to whichever waiter looked at it first: with 8 writer threads at `.full` a
    /// commit's wait for it was 136 µs at the median and 1.4 ms at p99 (a temporary probe), as
    /// waiters that had gone to sleep lost turn after turn to yielding ones. A queue for every
    /// contended waiter, without the yields first, cut the tail as much but cost 8% of the
    /// commits per second: a turn handed to a thread that is not running waits until it runs.
    /// Between processes the word stays first come, first served.
    @inline(__always)
    func lock() {
        if queueIsEmpty, word[0].compareExchange(expected: 0, desired: token, ordering: .acquiring).exchanged { return }
        for _ in 0..<WriterLock.yieldsBeforeQueueing {
            sched_yield()
            if queueIsEmpty, word[0].compareExchange(expected: 0, desired: token, ordering: .acquiring).exchanged { return }
        }
        let ticket = queue[0].wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        if queue[1].load(ordering: .acquiring) != ticket { awaitTurn(ticket) }
        lockSlowly()
        holdsTurn = true
    }

    /// How many times a contended thread yields, taking the word if it frees while nobody
    /// queues, before it queues (with 30, eight writers' p99 was about a tenth longer, at the same
    /// commits per second).
    static let yieldsBeforeQueueing = 10
    /// Whether the holder took a ticket, so its release passes the turn on. Only the holder
    /// reads or writes it, under the word.
    private var holdsTurn = false

    /// How many threads of this core hold a ticket: waiting for their turn, or holding the word
    /// after theirs came.
    var ticketsOut: Int { Int(queue[0].load(ordering: .acquiring) &- queue[1].load(ordering: .acquiring)) }

    /// Whether no thread of this core holds a ticket (waiting for its turn or holding the word).
    private var queueIsEmpty: Bool {
        queue[0].load(ordering: .sequentiallyConsistent) == queue[1].load(ordering: .sequentiallyConsistent)
    }

    /// Waits until it is `ticket`'s turn: yields as `lockSlowly` does, then sleeps on the turn
    /// word, counted so that a release makes the system call only when someone sleeps. Each
    /// sleeper woken checks whether the turn is its own.
    private func awaitTurn(_ ticket: UInt32) {
        for _ in 0..<WriterLock.yieldsBeforeSleeping {
            if queue[1].load(ordering: .acquiring) == ticket { return }
            sched_yield()
        }
        queue[2].add(1, ordering: .sequentiallyConsistent)
        defer { queue[2].subtract(1, ordering: .relaxed) }
        while true {
            let turn = queue[1].load(ordering: .sequentiallyConsistent)
            if turn == ticket { return }
            _ = Futex.wait(UnsafeMutableRawPointer(queue + 1), expected: turn, nanoseconds: WriterLock.probeIntervalNanoseconds)
        }
    }

    /// Gives the turn to the next ticket, waking the sleepers if there are any.
    private func passTurn() {
        queue[1].wrappingAdd(1, ordering: .sequentiallyConsistent)
        if queue[2].load(ordering: .sequentiallyConsistent) != 0 {
            Futex.wake(UnsafeMutableRawPointer(queue + 1), count: UInt32(Int32.max))
        }
    }

    /// The word for the thread whose turn it is (`lock`), against other processes' threads:
    /// first yield the CPU a bounded number of times, taking the word as soon as it is free; then
    /// sleep on the word (marking it as having sleepers); take it over if its holder died.
    ///
    /// Why yield before sleeping: a write transaction holds the word for tens of microseconds,
    /// and a sleeper's wake-up (futex wake, then an inter-processor interrupt to an idle vCPU and
    /// a context switch) costs about as much again on this kind of machine, on the critical path
    /// of every hand-over. With 8 writer threads under `.full` each commit was handed over that
    /// way, and the group commit's flushes gathered fewer commits. A yielding waiter stays
    /// runnable: when the word frees it takes it on its next turn, and meanwhile the other
    /// threads (the holder among them) run. Bounded: when nothing else is runnable 200 yields
    /// take ~100 µs (one system call each), after which a waiter sleeps, so a long transaction
    /// costs each waiter no more CPU than that. Between processes the word is not FIFO: a yielding
    /// waiter may take it ahead of a sleeper (the release still wakes one sleeper, which sleeps
    /// again if it lost).
    func lockSlowly() {
        for _ in 0..<WriterLock.yieldsBeforeSleeping {
            let current = word[0].load(ordering: .relaxed)
            if current & WriterLock.holderMask == 0, takeFreeWord(seen: current) { return }
            sched_yield()
        }
        while true {
            var current = word[0].load(ordering: .relaxed)
            if current & WriterLock.holderMask == 0 {
                // Free. Take it with the sleepers bit set: others may still sleep on it, and the
                // bit makes our release wake one of them.
                if word[0].compareExchange(expected: current, desired: token | WriterLock.waitersBit,
                                           ordering: .acquiring).exchanged { return }
                continue
            }
            if current & WriterLock.waitersBit == 0 {
                let marked = current | WriterLock.waitersBit
                guard word[0].compareExchange(expected: current, desired: marked, ordering: .relaxed).exchanged else { continue }
                current = marked
            }
            let woken = Futex.wait(UnsafeMutableRawPointer(word), expected: current,
                                   nanoseconds: WriterLock.probeIntervalNanoseconds)
            if !woken, takeOverIfHolderDied(seen: current) { return }
        }
    }

    /// Takes the word if it still holds `seen` and `seen`'s holder is dead. Returns whether it did.
    private func takeOverIfHolderDied(seen: UInt32) -> Bool {
        let holder = seen & WriterLock.holderMask
        guard holder != 0, word[0].load(ordering: .relaxed) == seen, !isHolderAlive(token: holder) else { return false }
        return word[0].compareExchange(expected: seen, desired: token | WriterLock.waitersBit, ordering: .acquiring).exchanged
    }

    /// Whether the core that made `holder` is still open (see the file header: never false for a
    /// live core). Another thread of this core counts as alive, and so does every holder of a
    /// private word.
    func isHolderAlive(token holder: UInt32) -> Bool {
        if holder == token { return true }
        guard let slotTokens else { return true }
        let slot = Int(holder & 0xFF)
        if slotTokens[slot].load(ordering: .acquiring) != holder { return false }
        return LockFile.isLocked(lockFileDescriptor, type: F_WRLCK, byte: 1024 + slot)
    }

    /// Takes the word only if no thread of this core holds or waits for it and the word is free
    /// (or its holder is dead). Never sleeps.
    func tryLock() -> Bool {
        let turn = queue[1].load(ordering: .acquiring)
        guard queue[0].compareExchange(expected: turn, desired: turn &+ 1, ordering: .acquiring).exchanged else { return false }
        let current = word[0].load(ordering: .relaxed)
        let taken = current & WriterLock.holderMask == 0 ? takeFreeWord(seen: current) : takeOverIfHolderDied(seen: current)
        if taken { holdsTurn = true } else { passTurn() }
        return taken
    }

    /// Takes the word, seen free as `seen`, keeping its sleepers bit (a release must still wake a
    /// sleeper that marked it). Returns whether it did; false if the word changed meanwhile.
    @inline(__always)
    private func takeFreeWord(seen: UInt32) -> Bool {
        word[0].compareExchange(expected: seen, desired: token | (seen & WriterLock.waitersBit), ordering: .acquiring).exchanged
    }

    /// Releases the word (one atomic exchange, plus a futex wake if a thread may be sleeping on
    /// it), then, if the holder had queued, gives the turn to the core's next ticket. A release
    /// by a core that does not hold the word changes nothing.
    @inline(__always)
    func unlock() {
        guard word[0].load(ordering: .relaxed) & WriterLock.holderMask == token else { return }
        let turn = holdsTurn
        holdsTurn = false
        let previous = word[0].exchange(0, ordering: .releasing)
        if previous & WriterLock.waitersBit != 0 { Futex.wake(UnsafeMutableRawPointer(word), count: 1) }
        if turn { passTurn() }
    }

    /// Releases the word if this core holds it (a core closing).
    func unlockIfHeld() {
        if word[0].load(ordering: .relaxed) & WriterLock.holderMask == token { unlock() }
    }
}
