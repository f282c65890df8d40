import Foundation
import Testing
import StrataBench

/// A history that another process is writing while it is checked (a half-written file under a
/// rollback journal, as creating one leaves for a moment) is checked again once it holds still,
/// instead of being refused as damaged; a damaged file that holds still is still refused.
@Suite("history being written")
struct HistoryBeingWrittenTests {
    static func halfWritten(_ path: String) throws {
        var bytes = Array("SQLite format 3\u{0}".utf8)
        bytes += (0..<8_176).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func aFileUnderARollbackJournalIsCheckedAgainOnceItHoldsStill() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/good.sqlite", path = dir + "/h.sqlite"
        do { _ = try HistoryStore(path: good) }  // a complete, empty history, closed again
        try Self.halfWritten(path)
        // A journal whose first byte is zero, which SQLite does not take for a hot journal. A real
        // writer's lock keeps its journal from being taken for one; this stand-in holds no lock.
        // With a nonzero byte, the open below could find the finished file with the journal still
        // beside it, play the journal back and then fail to delete it because the unlink below
        // had just done so ("disk I/O error"): once in a full run of the tests on a busy host.
        #expect(FileManager.default.createFile(atPath: path + "-journal", contents: Data([0])))
        // The "other process" finishes 0.15 s later: the file becomes a complete history and
        // its journal goes away. On a thread of its own: a work item on a global queue waited
        // minutes once, behind the parallel tests' blocked workers, and the check gave up.
        let finished = DispatchSemaphore(value: 0)
        let finisher = Thread {
            usleep(150_000)
            _ = rename(good, path)
            unlink(path + "-journal")
            finished.signal()
        }
        finisher.start()
        let store = try HistoryStore(path: path)
        #expect(try store.runs().isEmpty)
        finished.wait()
    }

    @Test func aDamagedFileThatHoldsStillIsStillRefused() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/h.sqlite"
        try Self.halfWritten(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let started = Date()
        #expect(throws: BenchError.self) { try HistoryStore(path: path) }
        #expect(Date().timeIntervalSince(started) < 0.5, "nothing moved: refused at once")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
