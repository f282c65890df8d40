// The summary CSV's columns and how a measured case becomes a row.
//
// Invariants: `SummaryColumns.required` are the columns, in the order, first;
// `SummaryColumns.extras` follow. Names are stable (baselines depend on them). Numbers are plain
// (no units, no thousands separators); an unknown or not-applicable figure is an empty cell,
// never a made-up zero.

import Foundation

public enum SummaryColumns {
    /// The columns issue #4 requires, in its order.
    public static let required = [
        "timestamp", "host", "git_rev", "build", "workload", "engine", "strategy", "writers", "batch_size",
        "encryption", "durability", "repetition", "duration_s", "readings", "transactions", "readings_per_s",
        "transactions_per_s", "commit_p50_us", "commit_p99_us", "commit_max_us", "e2e_p50_us", "e2e_p99_us",
        "backlog_max", "file_bytes_end", "file_bytes_peak", "file_bytes_compacted", "compact_ms", "live_objects",
        "lost", "cpu_user_s", "cpu_sys_s", "peak_rss_bytes",
    ]

    /// Further columns, after the required ones.
    public static let extras = [
        "bound", "target_readings", "rate", "max_delay_ms", "commit_p90_us", "e2e_p90_us", "e2e_max_us",
        "file_bytes_start", "deleted", "verified", "writer_handles", "stats_passes", "reader_ops",
        "reader_p50_us", "reader_p99_us", "encryption_overhead", "pinned_slowdown", "unpinned_twin_bytes", "pinned_extra_bytes", "engine_settings", "allocator",
        "jemalloc_allocated_bytes", "jemalloc_resident_bytes", "cpu_model", "cores", "os", "swift_version", "note",
        "memory_bytes", "kernel", "interrupted", "trim",
    ] + WorkFigures.columns + FloorColumns.all

    /// The reads workload's columns (empty on the rows of other workloads), after the rest.
    public static let reads = ["op", "objects", "ops", "ops_per_s", "us_per_op", "ns_per_object", "bytes_per_object",
                               "readers", "alone_p50_us", "alone_p99_us", "writer_commits", "writer_commits_per_s",
                               "objects_seen", "cpu_us_per_op"]

    public static let all = required + extras + reads
}

/// The flush floor's columns (`FloorProbe`), last in the file: older files lack them.
public enum FloorColumns {
    public static let all = ["floor_us", "floor_append_us", "commit_p50_over_floor"]
}

/// Everything measured for one case; `row(machine:timestamp:)` renders it.
public struct CaseResult: Sendable {
    public var spec: CaseSpec
    public var durationSeconds: Double
    /// Readings committed (total writes, trimmed ones included).
    public var readings: Int
    public var transactions: Int
    public var commit: LatencySummary?
    public var endToEnd: LatencySummary?
    public var reader: LatencySummary?
    public var readerOps: Int?
    public var backlogMax: Int?
    public var fileBytesStart: Int64?
    public var fileBytesEnd: Int64?
    public var fileBytesPeak: Int64?
    public var fileBytesCompacted: Int64?
    public var compactMs: Double?
    public var liveObjects: Int?
    public var deleted: Int?
    public var lost: Int
    public var verified: Bool
    public var writerHandles: Int?
    public var statsPasses: Int?
    /// Throughput ratio off/on for the encryption workload's `on` rows.
    public var encryptionOverhead: Double?
    /// pinned-growth: the unpinned twin's commit rate / the commit rate while a reader pins a
    /// version, over the same commits.
    public var pinnedSlowdown: Double?
    /// pinned-growth: the unpinned twin's file bytes after the commits of the pinned phase.
    public var unpinnedTwinBytes: Int64?
    /// pinned-growth: file bytes after the pinned phase − `unpinnedTwinBytes` (what the pin cost).
    public var pinnedExtraBytes: Int64?
    public var cpuUserSeconds: Double
    public var cpuSystemSeconds: Double
    public var peakRSSBytes: Int64
    public var engineSettings: String
    public var allocator: String
    public var allocatorFigures: AllocatorStats.Figures?
    public var note: String
    public var timeline: [TimelinePoint]
    /// The work counted over the writing phase (`WorkMeter`), nil when the workload did not meter.
    public var work: WorkFigures?
    /// The flush floor measured just before a durable (`full`) case (`FloorProbe`); nil for the
    /// other durabilities, whose commits wait for no flush.
    public var floor: FloorMeasurement?
    /// The reads workload's figures for this row's operation, nil for other workloads.
    public var read: ReadFigures?
    /// `--readers`: R readers' latencies alone and under a writer, and the writer's commits
    /// (`reader` and `readerOps` hold the latencies under the writer).
    public var load: ReadLoadFigures?

    public init(spec: CaseSpec) {
        self.spec = spec
        durationSeconds = 0
        readings = 0
        transactions = 0
        lost = 0
        verified = true
        cpuUserSeconds = 0
        cpuSystemSeconds = 0
        peakRSSBytes = 0
        engineSettings = ""
        allocator = AllocatorStats.allocatorName
        note = ""
        timeline = []
    }

    public var readingsPerSecond: Double? { durationSeconds > 0 ? Double(readings) / durationSeconds : nil }
    public var transactionsPerSecond: Double? { durationSeconds > 0 ? Double(transactions) / durationSeconds : nil }

    /// Commit p50 / the in-place floor: 1.0 = a commit costs one 4 KiB write and its flush.
    /// nil without a floor or a commit latency.
    public var commitP50OverFloor: Double? {
        guard let floor, floor.inPlaceP50 > 0, let p50 = commit?.p50 else { return nil }
        return p50 / floor.inPlaceP50
    }

    /// The CSV row, keyed by column name.
    public func row(machine: MachineInfo, timestamp: String) -> [String: String] {
        func us(_ value: Double?) -> String { CSVNumber.format(value, digits: 1) }
        var row: [String: String] = [
            "timestamp": timestamp, "host": machine.host, "git_rev": machine.gitRevision, "build": machine.build,
            "workload": spec.workload.rawValue, "engine": spec.engine.rawValue, "strategy": spec.strategy.rawValue,
            "writers": String(spec.writers), "batch_size": String(spec.batchSize),
            "encryption": spec.encryption.rawValue, "durability": spec.durability.rawValue, "trim": spec.trim.rawValue,
            "repetition": String(spec.repetition), "duration_s": CSVNumber.format(durationSeconds, digits: 3),
            "readings": String(readings), "transactions": String(transactions),
            "readings_per_s": CSVNumber.format(readingsPerSecond, digits: 1),
            "transactions_per_s": CSVNumber.format(transactionsPerSecond, digits: 1),
            "commit_p50_us": us(commit?.p50), "commit_p99_us": us(commit?.p99), "commit_max_us": us(commit?.max),
            "e2e_p50_us": us(endToEnd?.p50), "e2e_p99_us": us(endToEnd?.p99),
            "backlog_max": CSVNumber.format(backlogMax),
            "file_bytes_end": CSVNumber.format(fileBytesEnd), "file_bytes_peak": CSVNumber.format(fileBytesPeak),
            "file_bytes_compacted": CSVNumber.format(fileBytesCompacted),
            "compact_ms": CSVNumber.format(compactMs, digits: 2), "live_objects": CSVNumber.format(liveObjects),
            "lost": String(lost), "cpu_user_s": CSVNumber.format(cpuUserSeconds, digits: 6),
            "cpu_sys_s": CSVNumber.format(cpuSystemSeconds, digits: 6), "peak_rss_bytes": String(peakRSSBytes),
        ]
        row["bound"] = spec.bound
        row["target_readings"] = CSVNumber.format(spec.readings)
        row["rate"] = spec.rate.map { CSVNumber.format($0) } ?? ""
        row["max_delay_ms"] = String(spec.maxDelayMs)
        row["commit_p90_us"] = us(commit?.p90)
        row["e2e_p90_us"] = us(endToEnd?.p90)
        row["e2e_max_us"] = us(endToEnd?.max)
        row["file_bytes_start"] = CSVNumber.format(fileBytesStart)
        row["deleted"] = CSVNumber.format(deleted)
        row["verified"] = verified ? "true" : "false"
        row["writer_handles"] = CSVNumber.format(writerHandles)
        row["stats_passes"] = CSVNumber.format(statsPasses)
        row["reader_ops"] = CSVNumber.format(readerOps)
        row["reader_p50_us"] = us(reader?.p50)
        row["reader_p99_us"] = us(reader?.p99)
        row["encryption_overhead"] = CSVNumber.format(encryptionOverhead, digits: 3)
        row["pinned_slowdown"] = CSVNumber.format(pinnedSlowdown, digits: 3)
        row["unpinned_twin_bytes"] = CSVNumber.format(unpinnedTwinBytes)
        row["pinned_extra_bytes"] = CSVNumber.format(pinnedExtraBytes)
        row["engine_settings"] = engineSettings
        row["allocator"] = allocator
        row["jemalloc_allocated_bytes"] = CSVNumber.format(allocatorFigures?.allocatedBytes)
        row["jemalloc_resident_bytes"] = CSVNumber.format(allocatorFigures?.residentBytes)
        row["cpu_model"] = machine.cpuModel
        row["cores"] = String(machine.cores)
        row["os"] = machine.os
        row["swift_version"] = machine.swiftVersion
        row["note"] = note
        row["memory_bytes"] = machine.memoryBytes > 0 ? String(machine.memoryBytes) : ""
        row["kernel"] = machine.kernel
        // Set for the whole file by `RunReport.summaryCSV`; a row alone is a finished case.
        row["interrupted"] = "false"
        for column in WorkFigures.columns { row[column] = work?.cells[column] ?? "" }
        row["floor_us"] = us(floor?.inPlaceP50)
        row["floor_append_us"] = us(floor?.appendP50)
        row["commit_p50_over_floor"] = CSVNumber.format(commitP50OverFloor, digits: 3)
        row["op"] = spec.op?.rawValue ?? ""
        row["objects"] = CSVNumber.format(read?.objects)
        row["ops"] = CSVNumber.format(read?.ops)
        row["ops_per_s"] = CSVNumber.format(read?.opsPerSecond, digits: 1)
        row["us_per_op"] = CSVNumber.format(read?.microsPerOp, digits: 3)
        row["ns_per_object"] = CSVNumber.format(read?.nanosPerObject, digits: 2)
        row["bytes_per_object"] = CSVNumber.format(read?.bytesPerObject, digits: 2)
        row["readers"] = spec.readers > 0 ? String(spec.readers) : ""
        row["alone_p50_us"] = us(load?.alone?.p50)
        row["alone_p99_us"] = us(load?.alone?.p99)
        row["writer_commits"] = CSVNumber.format(load?.writerCommits)
        row["writer_commits_per_s"] = CSVNumber.format(load?.writerCommitsPerSecond, digits: 1)
        row["objects_seen"] = CSVNumber.format(load?.objectsSeen)
        row["cpu_us_per_op"] = CSVNumber.format(read?.cpuMicrosPerOp, digits: 3)
        return row
    }
}
