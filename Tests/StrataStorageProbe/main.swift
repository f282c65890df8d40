// strata-storage-probe: the child process of the StrataStorage crash and multi-process tests.
//
// Commands (stdout lines are flushed one by one so that a parent reading them sees every line
// the child printed before it died):
//   increment <path> <count> <durability>  count write transactions, each adding 1 to root 1
//                                           (and to the counter page at root 0); prints "done".
//   crashloop <path> <durability>           commits forever; transaction i rewrites 1–40 pages all
//                                           stamped with i and prints "acked i" after commit returns.
//   crashthreads <path>                     like crashloop with 4 threads under `.full` (group commit).
//   crashpinned <path>                      like crashloop under `.unsafe` (1–12 pages), with a reader
//                                           pinned for 1–300 commits at a time and a third of the
//                                           transactions rolled back.
//   pin <path>                              pins a read transaction, prints "pinned <version>",
//                                           waits for a line on stdin, re-reads every page of its
//                                           version and prints "intact" or "damaged", then exits.
//   hold <path>                             opens the file, prints "open", waits for stdin, exits.
//   exclusive <path> <count> <durability> <counterFile>
//                                           like increment, checking through a word mapped from
//                                           <counterFile> that no other writer is inside a write
//                                           transaction at the same time; prints "done" or "overlap n".
//   holdwriter <path>                       begins a write transaction, writes into it, prints
//                                           "writing" and sleeps holding the writer lock until killed.
//   bench-commit, bench-copy                release-build measurements, see Bench.swift.
// Exit status 0 on success, 2 on a storage error (printed as "error <description>").

import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// One write(2) per line: atomic on a pipe (< PIPE_BUF), unbuffered, so a SIGKILL never leaves
/// an acknowledged line unread or half-written.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func durability(_ text: String) -> Durability { Durability(rawValue: text) ?? .full }

/// Directory page layout (kind 1): count u32 @8, page refs u32 from 16.
func writeGeneration(_ txn: WriteTransaction, value: UInt64, pages: Int) throws {
    let oldDirectory = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
    if !oldDirectory.isNull {
        let old = try txn.readPage(oldDirectory)
        let count = Int(old.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        var refs: [PageRef] = []
        for i in 0..<count { refs.append(PageRef(old.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self))) }
        for ref in refs { txn.freePage(ref) }
        txn.freePage(oldDirectory)
    }
    let (directory, dirPayload) = try txn.allocatePage()
    dirPayload.storeBytes(of: 1, as: UInt8.self)
    dirPayload.storeBytes(of: UInt32(pages), toByteOffset: 8, as: UInt32.self)
    for i in 0..<pages {
        let (ref, payload) = try txn.allocatePage()
        payload.storeBytes(of: 1, as: UInt8.self)
        payload.storeBytes(of: value, toByteOffset: 8, as: UInt64.self)
        for k in stride(from: 16, to: PageLayout.payloadSize - 7, by: 8) {
            payload.storeBytes(of: value &* 0x9E37_79B9_7F4A_7C15, toByteOffset: k, as: UInt64.self)
        }
        dirPayload.storeBytes(of: ref.raw, toByteOffset: 16 + 4 * i, as: UInt32.self)
    }
    txn.roots[0] = UInt64(directory.raw)
    txn.roots[1] = value
}

/// A digest of every page of the generation visible to `reader`.
func generationChecksum(_ reader: ReadTransaction) throws -> [UInt64] {
    let directory = PageRef(UInt32(truncatingIfNeeded: reader.roots[0]))
    if directory.isNull { return [] }
    let dir = try reader.readPage(directory)
    let count = Int(dir.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    var sums: [UInt64] = []
    for i in 0..<count {
        let page = try reader.readPage(PageRef(dir.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self)))
        var sum: UInt64 = 0
        for k in stride(from: 0, to: PageLayout.payloadSize - 7, by: 8) {
            sum = sum &* 31 &+ page.loadUnaligned(fromByteOffset: k, as: UInt64.self)
        }
        sums.append(sum)
    }
    return sums
}

func run() throws -> Int32 {
    let args = CommandLine.arguments
    guard args.count >= 3 else {
        say("usage: strata-storage-probe increment|crashloop|pin|hold <path> ...")
        return 64
    }
    if let status = try runBenchmark(args) { return status }
    let path = args[2]
    switch args[1] {
    case "increment":
        let count = args.count > 3 ? Int(args[3]) ?? 100 : 100
        let file = try StorageFile.open(StorageOptions(path: path, durability: args.count > 4 ? durability(args[4]) : .full))
        defer { file.close() }
        for _ in 0..<count {
            let txn = try file.beginWrite()
            let value = txn.roots[1] + 1
            try writeGeneration(txn, value: value, pages: 1)
            try txn.commit()
        }
        say("done")
    case "crashloop":
        let file = try StorageFile.open(StorageOptions(path: path, durability: args.count > 3 ? durability(args[3]) : .full))
        var generator = SystemRandomNumberGenerator()
        while true {
            let txn = try file.beginWrite()
            let value = txn.roots[1] + 1
            try writeGeneration(txn, value: value, pages: Int.random(in: 1...40, using: &generator))
            try txn.commit()
            say("acked \(value)")
        }
    case "crashpinned":
        // Like crashloop under `.unsafe`, with what the object layer's stats reader does: a read
        // transaction pinned for a random stretch of commits, then moved to the newest version
        // (held runs pile up and are coalesced, then released); and a third of the transactions
        // rolled back after building their pages (in the file's mapping, FileCore.buildsInPlace).
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        var generator = SystemRandomNumberGenerator()
        var pin = try file.beginRead()
        var untilRepin = Int.random(in: 1...300, using: &generator)
        while true {
            let txn = try file.beginWrite()
            let value = txn.roots[1] + 1
            try writeGeneration(txn, value: value, pages: Int.random(in: 1...12, using: &generator))
            if Int.random(in: 0..<3, using: &generator) == 0 {
                txn.rollback()
            } else {
                try txn.commit()
                say("acked \(value)")
            }
            untilRepin -= 1
            if untilRepin == 0 {
                pin.end()
                pin = try file.beginRead()
                untilRepin = Int.random(in: 1...300, using: &generator)
            }
        }
    case "crashthreads":
        // Four threads committing under `.full` (group commit); each prints the counter value of
        // its commit once commit returns.
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        for _ in 0..<4 {
            Thread.detachNewThread {
                var generator = SystemRandomNumberGenerator()
                while true {
                    do {
                        let txn = try file.beginWrite()
                        let value = txn.roots[1] + 1
                        try writeGeneration(txn, value: value, pages: Int.random(in: 1...8, using: &generator))
                        try txn.commit()
                        say("acked \(value)")
                    } catch {
                        say("error \(error)")
                        exit(2)
                    }
                }
            }
        }
        while true { sleep(1) }
    case "pin":
        let file = try StorageFile.open(StorageOptions(path: path))
        let reader = try file.beginRead()
        let before = try generationChecksum(reader)
        say("pinned \(reader.version)")
        _ = readLine()
        let after = try generationChecksum(reader)
        say(before == after ? "intact" : "damaged")
        reader.end()
        file.close()
    case "exclusive":
        // Like increment, and inside each write transaction a counter shared by every process
        // (a word mapped from <counterFile>, zero-filled by the parent) goes 0 → 1 → 0: finding
        // it non-zero on entry means two writers overlapped. Prints "done" or "overlap <n>".
        let count = args.count > 3 ? Int(args[3]) ?? 100 : 100
        let file = try StorageFile.open(StorageOptions(path: path, durability: args.count > 4 ? durability(args[4]) : .full))
        defer { file.close() }
        guard args.count > 5 else {
            say("usage: strata-storage-probe exclusive <path> <count> <durability> <counterFile>")
            return 64
        }
        let inside = try SharedCounter(path: args[5])
        var overlaps = 0
        for _ in 0..<count {
            let txn = try file.beginWrite()
            if inside.enter() != 0 { overlaps += 1 }
            try writeGeneration(txn, value: txn.roots[1] + 1, pages: 1)
            sched_yield()  // widen the window another writer would need
            inside.leave()
            try txn.commit()
        }
        say(overlaps == 0 ? "done" : "overlap \(overlaps)")
    case "holdwriter":
        // Begins a write transaction, writes a generation into it (uncommitted) and prints
        // "writing"; then waits to be killed while holding the writer lock.
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
        let txn = try file.beginWrite()
        try writeGeneration(txn, value: txn.roots[1] + 1_000, pages: 3)
        say("writing")
        while true { sleep(1) }
    case "hold":
        let file = try StorageFile.open(StorageOptions(path: path))
        say("open")
        _ = readLine()
        file.close()
    default:
        say("unknown command \(args[1])")
        return 64
    }
    return 0
}

do {
    exit(try run())
} catch {
    say("error \(error)")
    exit(2)
}
