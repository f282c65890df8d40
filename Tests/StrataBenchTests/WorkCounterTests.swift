import Foundation
import Testing
@testable import StrataBench

private func scratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-work-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The calling thread's write(2)-family calls and bytes, from the kernel (/proc/thread-self/io):
/// the independent account the engine's own counters are checked against.
private func threadIO() throws -> (calls: Int, bytes: Int) {
    let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
    var calls = 0, bytes = 0
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.first == "syscw" { calls = Int(parts[1]) ?? -1 }
        if parts.first == "wchar" { bytes = Int(parts[1]) ?? -1 }
    }
    return (calls, bytes)
}

private func readings(_ count: Int, from seq: Int64) -> [SensorReading] {
    (0..<count).map { SensorReading(value: Double($0), seq: seq + Int64($0), timestamp: 1_700_000_000) }
}

/// Runs `body` on a thread of its own (Strata's realms are confined to the thread that opens them,
/// and the kernel's per-thread account must see only this work).
private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    nonisolated(unsafe) var outcome: Result<T, Error>?
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        outcome = Result { try body() }
        done.signal()
    }
    thread.start()
    done.wait()
    return try outcome!.get()
}

@Suite("work counters", .serialized)
struct WorkCounterTests {
    @Test func strataDurableCommitsCountPagesBytesCallsAndFlushesExactly() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try StrataEngine(EngineConfiguration(directory: directory, durability: .full))
        defer { try? engine.close() }
        let commits = 25
        let (before, after, kernel) = try onThread { () -> (EngineWork, EngineWork, (calls: Int, bytes: Int)) in
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            try writer.insertStandalone(readings(1, from: 1))  // grows the file once (1 MiB step)
            let before = engine.work()
            let io0 = try threadIO()
            for index in 0..<commits { try writer.insertStandalone(readings(3, from: Int64(10 + index * 3))) }
            let io1 = try threadIO()
            return (before, engine.work(), (io1.calls - io0.calls, io1.bytes - io0.bytes))
        }
        let pages = try #require(after.pagesWritten) - (before.pagesWritten ?? 0)
        let bytes = try #require(after.bytesWritten) - (before.bytesWritten ?? 0)
        let calls = try #require(after.writeCalls) - (before.writeCalls ?? 0)
        let flushes = try #require(after.flushes) - (before.flushes ?? 0)
        // Every commit writes at least its leaf and the tree above it.
        #expect(pages >= commits)
        // The pages, one meta slot and one durability record (24 bytes, written after the flush)
        // per commit are exactly what the kernel saw written.
        #expect(bytes == (pages + commits) * 4096 + commits * 24)
        #expect(bytes == kernel.bytes)
        #expect(calls == kernel.calls)
        // `full`: one fdatasync per commit on a single writer.
        #expect(flushes == commits)
    }

    @Test func strataUnsafeCommitsWriteThroughTheMappingWithoutCallsOrFlushes() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try StrataEngine(EngineConfiguration(directory: directory, durability: .unsafe))
        defer { try? engine.close() }
        let commits = 40
        let (before, after, kernel) = try onThread { () -> (EngineWork, EngineWork, (calls: Int, bytes: Int)) in
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            try writer.insertStandalone(readings(1, from: 1))
            let before = engine.work()
            let io0 = try threadIO()
            for index in 0..<commits { try writer.insertStandalone(readings(2, from: Int64(10 + index * 2))) }
            let io1 = try threadIO()
            return (before, engine.work(), (io1.calls - io0.calls, io1.bytes - io0.bytes))
        }
        let pages = (after.pagesWritten ?? 0) - (before.pagesWritten ?? 0)
        #expect(pages >= commits)
        #expect((after.bytesWritten ?? 0) - (before.bytesWritten ?? 0) == (pages + commits) * 4096)
        #expect((after.writeCalls ?? -1) - (before.writeCalls ?? 0) == 0)
        #expect(kernel.calls == 0)
        #expect((after.flushes ?? -1) - (before.flushes ?? 0) == 0)
    }

    @Test func aTransactionOfManyReadingsWritesProportionallyMorePages() throws {
        // N pages of data: 20,000 readings whose values vary in every byte carry at least 8
        // bytes each that no packing can share, so the commit writes at least 20,000 × 8 / 4096
        // pages; a count below that missed pages.
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try StrataEngine(EngineConfiguration(directory: directory, durability: .full))
        defer { try? engine.close() }
        let (before, after) = try onThread { () -> (EngineWork, EngineWork) in
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            var generator = SeededGenerator(state: 3)
            let varied = (0..<20_000).map { index in
                SensorReading(value: Double.random(in: 1...2, using: &generator), seq: Int64(index + 1), timestamp: 1_700_000_000)
            }
            let before = engine.work()
            try writer.insertStandalone(varied)
            return (before, engine.work())
        }
        let pages = (after.pagesWritten ?? 0) - (before.pagesWritten ?? 0)
        #expect(pages >= 20_000 * 8 / 4096)
        #expect((after.bytesWritten ?? 0) - (before.bytesWritten ?? 0) >= (pages + 1) * 4096)
        #expect((after.flushes ?? 0) - (before.flushes ?? 0) == 1)
    }

    @Test func sqliteCountsTheWriterConnectionsPages() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try SQLiteEngine(EngineConfiguration(directory: directory, durability: .unsafe))
        defer { try? engine.close() }
        let writer = try engine.makeWriter(placement: .currentThread)
        defer { writer.close() }
        let before = engine.work()
        try writer.insertStandalone(readings(20_000, from: 1))
        let after = engine.work()
        let pages = try #require(after.pagesWritten) - (before.pagesWritten ?? 0)
        // Rows of ~30 bytes plus their index entries: at least 20,000 × 16 bytes of pages.
        #expect(pages >= 20_000 * 16 / 4096)
        // Process-wide write bytes include at least those pages (WAL frames are page + 24 bytes).
        #expect(try #require(after.bytesWritten) - (before.bytesWritten ?? 0) >= pages * 4096)
        #expect(try #require(after.writeCalls) > (before.writeCalls ?? 0))
    }

    @Test(arguments: [("full", 1.0), ("unsafe", 0.0)])
    func sqliteCountsOneFlushPerDurableCommitAndNoneUnsafe(durability: String, expected: Double) throws {
        // In a process of its own: the counting VFS counts every SQLite file of the process, and
        // other tests open SQLite files in parallel. WAL with synchronous=FULL syncs the WAL once
        // per commit; 300 small commits never reach a checkpoint (1000 pages); OFF never syncs.
        let row = try runHarness(["run", "--workload", "sensors", "--engine", "sqlite", "--strategy", "main-sync",
                                  "--durability", durability, "--readings", "300"])
        #expect(Double(row["flushes_per_txn"] ?? "") == expected)
        #expect(Double(row["flushes_per_reading"] ?? "") == expected)
    }

    @Test func figuresAreDividedPerTransactionAndPerReadingAndMissingOnesAreEmptyCells() {
        let figures = WorkFigures(totals: [("pages_written", 300), ("store_bytes", nil), ("flushes", 100), ("write_calls", 0),
                                           ("heap_allocs", nil), ("heap_bytes", nil), ("instructions", nil)],
                                  transactions: 100, readings: 1000)
        let cells = figures.cells
        #expect(cells["pages_written_per_txn"] == "3")
        #expect(cells["pages_written_per_reading"] == "0.3")
        #expect(cells["flushes_per_txn"] == "1")
        #expect(cells["write_calls_per_txn"] == "0")
        #expect(cells["store_bytes_per_txn"] == "")
        #expect(cells["instructions_per_reading"] == "")
        #expect(Set(cells.keys) == Set(WorkFigures.columns))
        let empty = WorkFigures(totals: [("pages_written", 5)], transactions: 0, readings: 0)
        #expect(empty.cells["pages_written_per_txn"] == "")
    }

    @Test func instructionsAreCountedWhereAPMUExistsAndEmptyWhereNot() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try StrataEngine(EngineConfiguration(directory: directory, durability: .memory))
        defer { try? engine.close() }
        let figures = try onThread { () -> WorkFigures in
            let meter = WorkMeter(engine: engine)
            let writer = try engine.makeWriter(placement: .currentThread)
            defer { writer.close() }
            for index in 0..<50 { try writer.insertStandalone(readings(1, from: Int64(index + 1))) }
            return meter.finish(transactions: 50, readings: 50)
        }
        if InstructionCounter.isAvailable {
            #expect((figures.perTransaction("instructions") ?? 0) > 1_000)
        } else {
            // This VM: perf_event_open refuses (no PMU); the cell is empty, never a zero.
            #expect(figures.total("instructions") == nil)
            #expect(figures.cells["instructions_per_txn"] == "")
        }
        // In-memory Strata counts the pages its commits built, and writes no bytes to a file.
        #expect((figures.perTransaction("pages_written") ?? 0) >= 1)
        #expect(figures.total("store_bytes") == 0)
    }

    /// Runs the built strata-bench with `arguments` (plus `--quiet --out`) and returns its first row.
    private func runHarness(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: String] {
        let binary = try #require(CLI.executable, "strata-bench is not built beside the tests")
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let out = (directory as NSString).appendingPathComponent("run.csv")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + ["--quiet", "--out", out]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try #require(try CSVReader.read(path: out).records.first)
    }

    @Test func heapFiguresNeedJemallocAndCountAllocations() throws {
        if AllocatorStats.allocatorName == "system" {
            #expect(AllocatorStats.requests() == nil)
        }
        // Under jemalloc (as CI runs the harness): every case reports allocations per transaction,
        // and more readings per transaction allocate more per transaction.
        let preload = ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/lib/x86_64-linux-gnu/libjemalloc.so.2",
                       "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"].first { FileManager.default.fileExists(atPath: $0) }
        guard let preload else {
            Issue.record("libjemalloc.so.2 is missing: the allocation counters cannot be checked here")
            return
        }
        let row = try runHarness(["run", "--workload", "bulk-insert", "--engine", "strata", "--readings", "2000",
                                  "--batch-size", "10", "--durability", "unsafe"],
                                 environment: ["LD_PRELOAD": preload, "MALLOC_CONF": "tcache:false"])
        #expect(row["allocator"] == "jemalloc-no-tcache")
        let perTransaction = try #require(Double(row["heap_allocs_per_txn"] ?? ""))
        let perReading = try #require(Double(row["heap_allocs_per_reading"] ?? ""))
        // Each of the 10 readings of a transaction is at least one object allocation.
        #expect(perReading >= 1)
        #expect(abs(perTransaction - perReading * 10) < 0.01 * perTransaction)
        #expect(try #require(Double(row["heap_bytes_per_txn"] ?? "")) >= perTransaction * 8)
    }
}
