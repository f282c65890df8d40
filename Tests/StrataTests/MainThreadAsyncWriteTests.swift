// Asynchronous writes of a realm of the main thread run from the main run loop, as in RealmSwift:
// `beginAsyncWrite` returns before its block runs, so its id can be cancelled until the run loop
// turns (seen in a child `strata-probe main-async-write`, whose main thread is its own). Before,
// the block ran at once and cancelling its id failed with "not pending".
import Foundation
import Testing
import Strata
import StrataTestSupport
import StrataCorpus

@Suite("Asynchronous writes on the main thread")
struct MainThreadAsyncWriteTests {
    @Test func theBlockRunsWhenTheMainRunLoopTurnsAndCanBeCancelledBefore() throws {
        let path = CorpusFile.directory("main-async-write") + "/main.realm"
        let run = try ProbeRun.run(["main-async-write", path, "plain"], timeout: 60)
        #expect(run.exitStatus == 0, "\(run)")
        #expect(run.lines == ["in-write-after-begin false cancelled-ran false committed 1 completed true"])
    }
}
