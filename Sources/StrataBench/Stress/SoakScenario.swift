// `soak`: one writer committing for `budget.duration` seconds while the parent samples it once a
// second from /proc (RSS, open descriptors, mapped bytes), the store's size on disk and the
// acknowledgements of that second (→ mean commit interval). Then the writer is killed, the
// checker must find everything it acknowledged, and `SoakTrend` judges each series' slope over
// the second half. One round whatever `budget.rounds` says: a soak is one long run.

import Foundation

public struct SoakScenario: StressScenarioDriver {
    public let scenario = StressScenario.soak
    /// Seconds between samples.
    public var interval: Double

    public init(interval: Double = 1) {
        self.interval = interval
    }

    public func run(_ stressCase: StressCase, budget: StressBudget, seed: UInt64, context: StressContext) throws -> [StressRoundResult] {
        let roundDirectory = (context.directory as NSString).appendingPathComponent("round-1")
        func path(_ name: String) -> String { (roundDirectory as NSString).appendingPathComponent(name) }
        let store = path("store")
        try StressFiles.makeDirectory(store)
        let writer = try WriterChild(executable: context.executable, stressCase: stressCase, directory: store,
                                     stderrPath: path("writer.stderr"), environment: context.environment)
        defer { _ = writer.kill() }
        let started = Date()
        var samples: [SoakSample] = []
        var previousAcks = 0
        var next = interval
        while !writer.pipeEnded && context.stop?.isRequested != true {
            let wait = next - Date().timeIntervalSince(started)
            if wait > 0 { usleep(UInt32(min(wait, 1) * 1_000_000)); continue }
            let seconds = Date().timeIntervalSince(started)
            let total = writer.acknowledgements
            let acks = total - previousAcks
            previousAcks = total
            let pid = writer.process.pid
            samples.append(SoakSample(seconds: seconds, rssBytes: ProcessProbe.rssBytes(pid) ?? 0,
                                      anonymousBytes: ProcessProbe.anonymousBytes(pid) ?? 0,
                                      storeBytes: ProcessProbe.directoryBytes(store), descriptors: ProcessProbe.descriptors(pid) ?? 0,
                                      mappedBytes: ProcessProbe.mappedBytes(pid) ?? 0, acks: acks, totalAcks: total,
                                      meanCommitMs: acks > 0 ? interval * 1_000 / Double(acks) : nil))
            if seconds >= budget.duration { break }
            next += interval
        }
        let exit = writer.kill()
        let text = writer.text
        try? text.write(toFile: path("acks.log"), atomically: false, encoding: .utf8)
        let log = try AckLog.parse(text, source: "ack pipe of \(stressCase.label) soak")
        let writerFailure: String? = exit == .signaled(SIGKILL) ? nil
            : "writer ended with \(exit) during the soak: \(QuotedInput.clip(log.errors.first?.message ?? writer.errorOutput))"
        let snapshot = path("store-as-left")
        try StressFiles.copyDirectory(store, to: snapshot)
        let outcome = try CheckerChild.check(stressCase, directory: store, scratch: roundDirectory, executable: context.executable,
                                             environment: context.environment, timeout: context.checkTimeout)
        var result = StressRoundResult(round: 1, log: log, outcome: outcome, writerFailure: writerFailure, snapshot: snapshot)
        let judged = SoakTrend.judge(samples, duration: budget.duration, steadyAcks: SoakTrend.steadyAcks(stressCase))
        result.trends = judged.trends
        result.notes = judged.notes
        result.timeline = samples
        return [result]
    }
}

/// Figures of a running process and of a directory, read from /proc and the file system.
public enum ProcessProbe {
    /// VmRSS of /proc/<pid>/status in bytes.
    public static func rssBytes(_ pid: pid_t) -> Int64? { statusBytes(pid, "VmRSS:") }

    /// RssAnon of /proc/<pid>/status in bytes.
    public static func anonymousBytes(_ pid: pid_t) -> Int64? { statusBytes(pid, "RssAnon:") }

    static func statusBytes(_ pid: pid_t, _ field: String) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int64(fields[1]) { return kilobytes * 1_024 }
        }
        return nil
    }

    /// Entries of /proc/<pid>/fd.
    public static func descriptors(_ pid: pid_t) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// Sum of the address ranges of /proc/<pid>/maps (every mapping: files, heap, stacks).
    public static func mappedBytes(_ pid: pid_t) -> Int64? {
        guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else { return nil }
        var total: Int64 = 0
        for line in maps.split(separator: "\n") {
            guard let range = line.split(separator: " ").first else { continue }
            let bounds = range.split(separator: "-")
            guard bounds.count == 2, let low = UInt64(bounds[0], radix: 16), let high = UInt64(bounds[1], radix: 16), high >= low else { continue }
            total &+= Int64(truncatingIfNeeded: high - low)
        }
        return total
    }

    /// Sum of the sizes of the regular files under `directory`.
    public static func directoryBytes(_ directory: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total: Int64 = 0
        while let name = walker.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            if attributes?[.type] as? FileAttributeType == .typeRegular, let size = attributes?[.size] as? NSNumber {
                total += size.int64Value
            }
        }
        return total
    }
}
