// The writer child's work (`strata-bench stress-writer`): open a fresh store, create the
// sensors, then commit readings through `SensorWriter`, announcing each transaction on the ack
// pipe before the call (`begin`) and after it returned (`ack`), until killed or `commits` per
// writer are made (`done`).
//
// Each writer thread owns its sensors ("w<thread>-<symbol>"), so every sensor's seqs are
// contiguous from 1 whatever the interleaving of threads. Strategies:
//   dedicated  one thread, one sensor per transaction (round robin), --batch-size readings
//   batched    one thread, one transaction for all its sensors (`addReadings(batch:)`)
//   threads    --writers threads, each with its own handle, as dedicated

import Foundation

public struct StressWriterOptions: Sendable {
    public var stressCase: StressCase
    /// Transactions per writer thread; 0: until killed.
    public var commits: Int
    public var directory: String
    public var ackDescriptor: Int32

    public init(stressCase: StressCase, commits: Int, directory: String, ackDescriptor: Int32) {
        self.stressCase = stressCase
        self.commits = commits
        self.directory = directory
        self.ackDescriptor = ackDescriptor
    }
}

public enum StressWriter {
    /// The strategies the writer child implements.
    public static let strategies: [StrategyKind] = [.dedicated, .batched, .threads]

    /// The sensors writer thread `index` owns.
    public static func sensors(ofWriter index: Int) -> [String] {
        SensorModel.symbols.map { "w\(index)-\($0)" }
    }

    /// Runs the writer to the end (or until the process is killed). Throws the first engine or
    /// pipe error.
    public static func run(_ options: StressWriterOptions) throws {
        let stressCase = options.stressCase
        guard strategies.contains(stressCase.strategy) else {
            throw BenchError(.invalidOption, "--strategy \(stressCase.strategy.rawValue): stress writes with \(strategies.map(\.rawValue).joined(separator: ", "))")
        }
        let pipe = AckPipe(descriptor: options.ackDescriptor)
        let threads = stressCase.strategy == .threads ? stressCase.writers : 1
        let store = try Engines.open(stressCase.engine, stressCase.configuration(directory: options.directory))
        defer { try? store.close() }
        try onThread {
            let writer = try store.makeWriter(placement: .currentThread)
            defer { writer.close() }
            try writer.createSensors((0..<threads).flatMap(sensors(ofWriter:)))
        }
        try pipe.send(AckLog.readyLine)
        let failures = FirstError()
        let group = DispatchGroup()
        for index in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    try write(store, writer: index, options: options, pipe: pipe)
                } catch {
                    failures.keep(error)
                }
            }
        }
        group.wait()
        if let error = failures.error { throw error }
        try pipe.send(AckLog.doneLine)
    }

    /// One writer thread's loop, on its own handle.
    static func write(_ store: any BenchEngine, writer index: Int, options: StressWriterOptions, pipe: AckPipe) throws {
        let writer = try store.makeWriter(placement: .currentThread)
        defer { writer.close() }
        let symbols = sensors(ofWriter: index)
        let batch = Int64(max(1, options.stressCase.batchSize))
        var next = [Int64](repeating: 1, count: symbols.count)
        var made = 0
        while options.commits == 0 || made < options.commits {
            made += 1
            let id = "w\(index)-\(made)"
            // batched: every sensor in one transaction; otherwise one sensor, round robin.
            let chosen = options.stressCase.strategy == .batched ? Array(symbols.indices) : [(made - 1) % symbols.count]
            var parts: [AckPart] = []
            var groups: [(sensor: String, readings: [SensorReading])] = []
            let now = Date().timeIntervalSince1970
            for position in chosen {
                let first = next[position]
                let readings = (first..<(first + batch)).map { SensorReading(value: Double($0), seq: $0, timestamp: now) }
                parts.append(AckPart(sensor: symbols[position], first: first, last: first + batch - 1))
                groups.append((symbols[position], readings))
                next[position] += batch
            }
            try pipe.send(AckLog.beginLine(id, parts))
            do {
                if groups.count == 1 {
                    _ = try writer.addReadings(sensor: groups[0].sensor, readings: groups[0].readings)
                } else {
                    _ = try writer.addReadings(batch: groups)
                }
            } catch {
                // Named on the pipe so the parent knows which transaction the engine refused
                // (io-error judges that the failing call reported it); then the writer stops.
                try? pipe.send(AckLog.errorLine(id))
                throw error
            }
            try pipe.send(AckLog.ackLine(id))
        }
    }

    /// Runs `body` on a new thread and waits for it (engine handles are made where they are used).
    static func onThread(_ body: @escaping @Sendable () throws -> Void) throws {
        let failures = FirstError()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try body() } catch { failures.keep(error) }
            finished.signal()
        }
        finished.wait()
        if let error = failures.error { throw error }
    }
}

/// The write end of the ack pipe: one write(2) per line, so lines of threads never interleave.
final class AckPipe: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func send(_ line: String) throws {
        let bytes = Array(line.utf8)
        guard bytes.count < AckLog.maxLineBytes else {
            throw BenchError(.childProtocol, "an ack line of \(bytes.count) bytes would not be written atomically (limit \(AckLog.maxLineBytes))")
        }
        while true {
            let written = Glibc.write(descriptor, bytes, bytes.count)
            if written == bytes.count { return }
            if written < 0 && errno == EINTR { continue }
            throw BenchError(.io, "cannot write to the ack pipe (descriptor \(descriptor)): \(written < 0 ? String(cString: strerror(errno)) : "short write")")
        }
    }
}

/// The first error of several threads.
final class FirstError: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: (any Error)?

    func keep(_ error: any Error) {
        lock.withLock { if stored == nil { stored = error } }
    }

    var error: (any Error)? { lock.withLock { stored } }
}
