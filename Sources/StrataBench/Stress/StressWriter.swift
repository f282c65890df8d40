// The writer child's work (`strata-bench stress-writer`): open a fresh store, create the
// sensors, then commit readings through `SensorWriter`, announcing each transaction on the ack
// pipe before the call (`begin`) and after it returned (`ack`), until killed or `commits` per
// writer are made (`done`). A call that throws is reported (`error <tx> <message>`) before the
// writer ends, so the parent knows what the engine said (a full disk: which error, how clear).
//
// For scenarios with several writers of one store or several runs on it: `txPrefix` keeps tx ids
// unique across writer processes, `sensorPrefix` gives each process its own sensors, `resume`
// continues each sensor after the newest seq the store holds (a second run on a store the first
// left), `readers` adds threads that pin and read versions while the writers commit.
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
    /// Put before every tx id ("p1." → "p1.w0-7").
    public var txPrefix = ""
    /// Put before every sensor symbol ("p1" → "p1w0-o3").
    public var sensorPrefix = ""
    /// Continue after the newest seq each sensor holds instead of from 1.
    public var resume = false
    /// Threads that pin a version, read a sensor's list, unpin, over and over.
    public var readers = 0
    /// Test only: writer thread 0 stops (sleeps forever, holding nothing) after this many acks,
    /// so that tests can show how a stalled writer is reported.
    public var pauseAfter: Int?

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
    public static func sensors(ofWriter index: Int, prefix: String = "") -> [String] {
        SensorModel.symbols.map { "\(prefix)w\(index)-\($0)" }
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
        let store: any BenchEngine
        var starts: [[Int64]] = []
        do {
            store = try Engines.open(stressCase.engine, stressCase.configuration(directory: options.directory))
            try onThread {
                let writer = try store.makeWriter(placement: .currentThread)
                defer { writer.close() }
                try writer.createSensors((0..<threads).flatMap { sensors(ofWriter: $0, prefix: options.sensorPrefix) })
            }
            starts = try firstSeqs(store, threads: threads, options: options)
        } catch {
            try? pipe.send(AckLog.errorLine("-", "\(error)"))
            throw error
        }
        defer { try? store.close() }
        let firsts = starts
        try pipe.send(AckLog.readyLine)
        let failures = FirstError()
        let group = DispatchGroup()
        let writing = StopRequest()
        for index in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    try write(store, writer: index, from: firsts[index], options: options, pipe: pipe, failures: failures)
                } catch {
                    failures.keep(error)
                }
            }
        }
        let reading = DispatchGroup()
        for index in 0..<options.readers {
            reading.enter()
            Thread.detachNewThread {
                defer { reading.leave() }
                do {
                    try read(store, sensors: sensors(ofWriter: index % threads, prefix: options.sensorPrefix), until: writing)
                } catch {
                    try? pipe.send(AckLog.errorLine("-", "reader \(index): \(error)"))
                    failures.keep(error)
                }
            }
        }
        group.wait()
        writing.request("writers finished")
        reading.wait()
        if let error = failures.error { throw error }
        try pipe.send(AckLog.doneLine)
    }

    /// Per writer thread, the seq each of its sensors continues at: 1, or (resume) one past the
    /// newest the store holds.
    static func firstSeqs(_ store: any BenchEngine, threads: Int, options: StressWriterOptions) throws -> [[Int64]] {
        let fresh = [[Int64]](repeating: [Int64](repeating: 1, count: SensorModel.symbols.count), count: threads)
        guard options.resume else { return fresh }
        let found = Locked(fresh)
        try onThread {
            let reader = try store.makeReader(placement: .currentThread)
            defer { reader.close() }
            for index in 0..<threads {
                for (position, symbol) in sensors(ofWriter: index, prefix: options.sensorPrefix).enumerated() {
                    let newest = try reader.sequences(sensor: symbol).max() ?? 0
                    found.update { $0[index][position] = newest + 1 }
                }
            }
        }
        return found.value
    }

    /// A reader thread: pin the current version, read a list, unpin, until `stop`.
    static func read(_ store: any BenchEngine, sensors symbols: [String], until stop: StopRequest) throws {
        let reader = try store.makeReader(placement: .currentThread)
        defer { reader.close() }
        var turn = 0
        while !stop.isRequested {
            try reader.pin()
            defer { reader.unpin() }
            _ = try reader.sequences(sensor: symbols[turn % symbols.count])
            turn += 1
            usleep(500)
        }
    }

    /// One writer thread's loop, on its own handle.
    /// Stops at the first failure of any thread (`failures`): the writer then ends with it.
    static func write(_ store: any BenchEngine, writer index: Int, from starts: [Int64], options: StressWriterOptions,
                      pipe: AckPipe, failures: FirstError) throws {
        let writer: any SensorWriter
        do {
            writer = try store.makeWriter(placement: .currentThread)
        } catch {
            try? pipe.send(AckLog.errorLine("-", "writer \(index): \(error)"))
            throw error
        }
        defer { writer.close() }
        let symbols = sensors(ofWriter: index, prefix: options.sensorPrefix)
        let batch = Int64(max(1, options.stressCase.batchSize))
        var next = starts
        var made = 0
        while (options.commits == 0 || made < options.commits) && failures.error == nil {
            if index == 0, let pause = options.pauseAfter, made >= pause {
                while true { sleep(3_600) }
            }
            made += 1
            let id = "\(options.txPrefix)w\(index)-\(made)"
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
                // Named on the pipe with the engine's message, so the parent knows which
                // transaction the engine refused and why (io-error, full-disk); then the writer stops.
                try? pipe.send(AckLog.errorLine(id, "\(error)"))
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

/// A value several threads update.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }

    var value: Value { lock.withLock { stored } }
}
