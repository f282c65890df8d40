// Runs a plan: for each case a fresh store, the workload, the process-level collectors, a row.
//
// Invariants: each case gets its own empty directory under `runDirectory`, removed after the case
// (also when it fails or is interrupted), and `runDirectory` is removed when the run ends; a case
// the engine cannot honour (SQLite + encryption) is skipped with a `skipped` event, never faked;
// CPU and peak RSS are measured around the case only. Once `stop` is requested no case starts,
// and the running one is abandoned (an `abandoned` event, no row): `run` returns the rows of the
// cases that finished. A run is cut short only when a case was abandoned or never started: a stop
// requested after the last case settled leaves a complete run. Before each durable (`full`) case
// a short burst of the flush floor (`FloorProbe`) runs in `runDirectory`, on the file system the
// case writes to; its medians ride on the case's row.

import Foundation

public struct BenchRunner: Sendable {
    public let cases: [CaseSpec]
    /// Parent directory of the per-case stores (`--dir`), nil = the system temporary directory.
    public let directory: String?
    public let progress: ProgressHandler?
    /// Ends the run early when requested (the CLI's SIGINT/SIGTERM handler raises it).
    public let stop: StopRequest
    /// The directory holding every store of this run (under `directory`); removed when `run`
    /// returns or throws. Public so that a process forced to exit can remove it itself.
    public let runDirectory: String
    /// The `strata-bench` binary the scale workload starts to time a first open (`open-store`);
    /// nil: its cases have no `first-open` row.
    public let executable: String?

    public init(cases: [CaseSpec], directory: String? = nil, progress: ProgressHandler? = nil,
                stop: StopRequest = StopRequest(), executable: String? = nil) {
        self.cases = cases
        self.executable = executable
        self.directory = directory
        self.progress = progress
        self.stop = stop
        let parent = directory ?? NSTemporaryDirectory()
        runDirectory = (parent as NSString).appendingPathComponent("strata-bench-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    /// What a run produced, and whether a stop cut it short.
    public struct Outcome: Sendable {
        /// The rows of the cases that finished, in plan order.
        public var results: [CaseResult]
        /// True when a stop request abandoned a case or kept one from starting; false when every
        /// case finished or was skipped (even if a stop arrived after the last one).
        public var cutShort: Bool
    }

    /// Runs every case in order, returning the finished rows. See `execute()`.
    public func run() async throws -> [CaseResult] {
        try await execute().results
    }

    /// Runs every case in order. Throws only for failures that make the rest meaningless
    /// (e.g. the store directory cannot be created); a case whose writer fails still yields a row.
    public func execute() async throws -> Outcome {
        try CaseDirectory.create(runDirectory, what: "the store directory")
        defer { try? FileManager.default.removeItem(atPath: runDirectory) }

        var results: [CaseResult] = []
        var cutShort = false
        for (offset, spec) in cases.enumerated() {
            if stop.isRequested { cutShort = true; break }
            let index = offset + 1
            if spec.workload == .reads || spec.workload == .scale, let why = Engines.readUnavailability(spec.engine) {
                progress?(.skipped(label: spec.label, reason: "\(why); case skipped, not faked"))
                continue
            }
            if spec.encryption == .on, let why = Engines.encryptionUnavailability(spec.engine) {
                progress?(.skipped(label: spec.label, reason: "\(spec.engine.rawValue) cannot run with encryption \(spec.encryption.rawValue) (\(why)); case skipped, not faked"))
                continue
            }
            progress?(.caseStarted(index: index, total: cases.count, label: spec.label))
            let caseDirectory = (runDirectory as NSString).appendingPathComponent("case-\(index)")
            var rows: [CaseResult]
            do {
                // The floor's burst right before the case, so that both see the disk's same moment.
                let floor = spec.durability == .full ? try FloorProbe.measure(directory: runDirectory) : nil
                rows = try await runRows(spec, directory: caseDirectory)
                for index in rows.indices { rows[index].floor = floor }
            } catch let error as BenchError where error.code == .interrupted {
                progress?(.abandoned(index: index, total: cases.count, label: spec.label))
                cutShort = true
                break
            }
            for result in rows {
                progress?(.caseFinished(index: index, total: cases.count, label: result.spec.label, result: result))
            }
            results += rows
        }
        Self.fillEncryptionOverhead(&results)
        return Outcome(results: results, cutShort: cutShort)
    }

    /// The rows of one case: one for a write workload, one per operation for reads.
    func runRows(_ spec: CaseSpec, directory: String) async throws -> [CaseResult] {
        guard spec.workload == .reads || spec.workload == .scale else { return [try await runCase(spec, directory: directory)] }
        return try await CaseDirectory.using(directory) { try await runReadRows(spec, directory: directory) }
    }

    private func runReadRows(_ spec: CaseSpec, directory: String) async throws -> [CaseResult] {
        PeakMemory.reset()
        let before = ResourceSnapshot.now()
        let configuration = CaseDirectory.configuration(spec, in: directory, key: CaseDirectory.key(for: spec))
        var rows = spec.workload == .scale
            ? try await ScaleWorkload.run(kind: spec.engine, configuration: configuration, spec: spec, executable: executable, stop: stop)
            : try await ReadsWorkload.run(kind: spec.engine, configuration: configuration, spec: spec, stop: stop)
        let after = ResourceSnapshot.now()
        // Process figures cover the whole case (fill and every operation): each row carries them.
        for index in rows.indices {
            rows[index].cpuUserSeconds = after.userSeconds - before.userSeconds
            rows[index].cpuSystemSeconds = after.systemSeconds - before.systemSeconds
            rows[index].peakRSSBytes = PeakMemory.peakBytes()
            rows[index].allocatorFigures = AllocatorStats.current()
        }
        return rows
    }

    func runCase(_ spec: CaseSpec, directory: String) async throws -> CaseResult {
        try await CaseDirectory.using(directory) { try await runWriteCase(spec, directory: directory) }
    }

    private func runWriteCase(_ spec: CaseSpec, directory: String) async throws -> CaseResult {
        let key = CaseDirectory.key(for: spec)
        PeakMemory.reset()
        let before = ResourceSnapshot.now()
        let engine = try Engines.open(spec.engine, CaseDirectory.configuration(spec, in: directory, key: key))
        var result: CaseResult
        do {
            switch spec.workload {
            case .sensors:
                result = try await SensorsWorkload.run(engine: engine, spec: spec, withQueryReader: false, progress: progress,
                                                       stop: stop)
            case .readWhileWrite:
                result = try await SensorsWorkload.run(engine: engine, spec: spec, withQueryReader: true, progress: progress,
                                                       stop: stop)
            case .bulkInsert, .encryption:
                result = try await StoreWorkloads.bulkInsert(engine: engine, spec: spec, stop: stop)
            case .pinnedGrowth:
                let twinDirectory = (directory as NSString).appendingPathComponent("unpinned-twin")
                result = try await StoreWorkloads.pinnedGrowth(engine: engine, spec: spec, stop: stop) {
                    try CaseDirectory.create(twinDirectory, what: "the unpinned twin's directory")
                    return try Engines.open(spec.engine, CaseDirectory.configuration(spec, in: twinDirectory, key: key))
                }
            case .compaction:
                result = try await StoreWorkloads.compaction(engine: engine, spec: spec, stop: stop)
            case .reads, .scale:
                throw BenchError(.invalidOption, "the \(spec.workload.rawValue) workload runs through runRows")
            }
        } catch {
            try? engine.close()
            throw error
        }
        let after = ResourceSnapshot.now()
        result.cpuUserSeconds = after.userSeconds - before.userSeconds
        result.cpuSystemSeconds = after.systemSeconds - before.systemSeconds
        result.peakRSSBytes = PeakMemory.peakBytes()
        result.allocatorFigures = AllocatorStats.current()
        Self.attachStoreSummary(&result, engine: engine)
        try engine.close()
        return result
    }

    /// For a case that lost readings or failed its end-of-run check: the state of the store it
    /// failed on, as `strata info` summarises it, appended to the case's note (the store itself
    /// is deleted with the case's directory).
    public static func attachStoreSummary(_ result: inout CaseResult, engine: any BenchEngine) {
        guard result.lost != 0 || !result.verified, let summary = engine.storeSummary() else { return }
        result.note += (result.note.isEmpty ? "" : "; ") + "store: " + summary
    }

    /// For each encrypted row with an unencrypted twin (same case, same repetition): the
    /// throughput ratio off/on (1.25 = each encrypted reading took 25% longer).
    public static func fillEncryptionOverhead(_ results: inout [CaseResult]) {
        for index in results.indices where results[index].spec.encryption == .on {
            var plain = results[index].spec
            plain.encryption = .off
            guard let twin = results.first(where: { $0.spec == plain }),
                  let off = twin.readingsPerSecond, let on = results[index].readingsPerSecond, on > 0 else { continue }
            results[index].encryptionOverhead = off / on
        }
    }
}
