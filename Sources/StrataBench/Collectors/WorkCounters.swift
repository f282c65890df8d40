// The work a case did, counted rather than timed: pages and bytes written to the store, flushes,
// write system calls, heap allocations (count and bytes), user-space instructions. Count-bound
// single-writer cases do the same work every run, so `compare` judges these tightly (the
// tolerances are data: results/baselines/counter-thresholds.csv).
//
// Invariants:
// - Every figure is a difference between two snapshots taken around a workload's writing phase
//   (producers start → last commit returned), divided by the phase's transactions or readings.
// - A figure the engine or the machine cannot give is nil (an empty CSV cell), never zero:
//   instructions without a PMU (`perf_event_open` refused, as on most VMs), heap figures without
//   jemalloc as the process's allocator, store bytes and calls of in-memory stores.
// - What each figure means per engine is documented in docs/strata-bench.md's column table and on
//   `EngineWork`.

import CStrataBenchCounters
import Foundation

/// Totals of the work an engine's store did since it was opened (nil: not measured by it).
///
/// - Strata: `Realm.storageStatistics` of the store's file (this process, every handle).
/// - SQLite: `pagesWritten` = pages the writer connection wrote (`SQLITE_DBSTATUS_CACHE_WRITE`:
///   pages into the WAL, checkpoints excluded); `bytesWritten` and `writeCalls` = the process's
///   write(2)-family bytes and calls from /proc/self/io (`wchar`, `syscw`: WAL, checkpoints into
///   the database file, and the harness's few stderr lines); `flushes` = xSync calls through the
///   counting VFS (CStrataBenchCounters: WAL and database fsyncs of every SQLite file).
public struct EngineWork: Sendable, Equatable {
    public var pagesWritten: Int?
    public var bytesWritten: Int?
    public var flushes: Int?
    public var writeCalls: Int?

    public init(pagesWritten: Int? = nil, bytesWritten: Int? = nil, flushes: Int? = nil, writeCalls: Int? = nil) {
        self.pagesWritten = pagesWritten
        self.bytesWritten = bytesWritten
        self.flushes = flushes
        self.writeCalls = writeCalls
    }
}

/// The counted figures of one case: per transaction and per reading (nil = not measured).
public struct WorkFigures: Sendable, Equatable {
    /// The counters, in CSV order: (column stem, total over the phase).
    public var totals: [(name: String, value: Double?)]
    public var transactions: Int
    public var readings: Int

    public static func == (lhs: WorkFigures, rhs: WorkFigures) -> Bool {
        lhs.transactions == rhs.transactions && lhs.readings == rhs.readings
            && lhs.totals.map(\.name) == rhs.totals.map(\.name) && lhs.totals.map(\.value) == rhs.totals.map(\.value)
    }

    /// Column stems, each rendered as `<stem>_per_txn` and `<stem>_per_reading`.
    public static let stems = ["pages_written", "store_bytes", "flushes", "write_calls", "heap_allocs", "heap_bytes",
                               "instructions"]

    public static let columns = stems.map { $0 + "_per_txn" } + stems.map { $0 + "_per_reading" }

    public func total(_ stem: String) -> Double? { totals.first { $0.name == stem }?.value ?? nil }

    public func perTransaction(_ stem: String) -> Double? {
        guard transactions > 0, let total = total(stem) else { return nil }
        return total / Double(transactions)
    }

    public func perReading(_ stem: String) -> Double? {
        guard readings > 0, let total = total(stem) else { return nil }
        return total / Double(readings)
    }

    /// The CSV cells, keyed by column.
    public var cells: [String: String] {
        var cells: [String: String] = [:]
        for stem in Self.stems {
            cells[stem + "_per_txn"] = CSVNumber.format(perTransaction(stem), digits: 3)
            cells[stem + "_per_reading"] = CSVNumber.format(perReading(stem), digits: 3)
        }
        return cells
    }
}

/// Measures one phase: `start` before the first write, `finish` after the last commit returned.
public final class WorkMeter: @unchecked Sendable {
    // @unchecked: created, finished and released by one thread (the workload's case thread).
    private let engine: any BenchEngine
    private let before: Snapshot
    private let instructions: InstructionCounter?

    struct Snapshot {
        var engine: EngineWork
        var heap: AllocatorStats.Requests?
        var instructions: UInt64?
    }

    public init(engine: any BenchEngine) {
        self.engine = engine
        instructions = InstructionCounter()
        before = Snapshot(engine: engine.work(), heap: AllocatorStats.requests(), instructions: instructions?.read())
    }

    /// The figures of the phase, for `transactions` commits holding `readings` readings.
    public func finish(transactions: Int, readings: Int) -> WorkFigures {
        let instructionsNow = instructions?.read()
        let heapNow = AllocatorStats.requests()
        let now = engine.work()
        func delta(_ after: Int?, _ before: Int?) -> Double? {
            guard let after, let before else { return nil }
            return Double(after - before)
        }
        var instructionTotal: Double? = nil
        if let start = before.instructions, let end = instructionsNow, end >= start { instructionTotal = Double(end - start) }
        return WorkFigures(totals: [
            ("pages_written", delta(now.pagesWritten, before.engine.pagesWritten)),
            ("store_bytes", delta(now.bytesWritten, before.engine.bytesWritten)),
            ("flushes", delta(now.flushes, before.engine.flushes)),
            ("write_calls", delta(now.writeCalls, before.engine.writeCalls)),
            ("heap_allocs", delta(heapNow?.count, before.heap?.count)),
            ("heap_bytes", delta(heapNow?.bytes, before.heap?.bytes)),
            ("instructions", instructionTotal),
        ], transactions: transactions, readings: readings)
    }
}

/// User-space instructions of this process's threads (the calling one and those it starts),
/// through perf_event_open. `init` fails (nil) where the machine has no PMU or the kernel
/// refuses: the figure is then absent, not zero.
final class InstructionCounter {
    private let fd: Int32

    init?() {
        let fd = strata_bench_instructions_open()
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    func read() -> UInt64? {
        var value: UInt64 = 0
        return strata_bench_instructions_read(fd, &value) == 0 ? value : nil
    }

    /// Whether this machine gives an instruction counter (false on VMs without a PMU).
    static var isAvailable: Bool { InstructionCounter()?.read() != nil }
}

/// The process's write(2)-family figures from /proc/self/io (nil where the file is missing).
enum ProcessIO {
    static func current() -> (writeCalls: Int, bytesWritten: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        var calls: Int?, bytes: Int?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "syscw" { calls = Int(parts[1]) }
            if parts[0] == "wchar" { bytes = Int(parts[1]) }
        }
        guard let calls, let bytes else { return nil }
        return (calls, bytes)
    }
}
