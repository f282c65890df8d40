// Group commit at the object layer (issue target: 8 concurrent writers under `.full` reach at
// least twice the single writer's rate). Each writer is a thread with its own realm (Realm's
// per-thread instances), committing one reading per transaction to its own sensor.
//
// Gated: STRATA_GROUP_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter GroupCommitBenchmarks
// Prints, per writer count, the median over repetitions of transactions/s and commits per flush;
// the writer counts alternate within each repetition so machine noise hits them alike.

import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_GROUP_BENCH"] == "1"), .serialized)
struct GroupCommitBenchmarks {
    /// Runs `writers` threads for `seconds`; returns (transactions/s, commits per flush).
    func run(_ config: Realm.Configuration, writers: Int, seconds: Double) throws -> (Double, Double) {
        let setup = try Realm(configuration: config)
        try setup.write {
            for w in 0..<writers where setup.object(ofType: Sensor.self, forPrimaryKey: "w\(w)") == nil {
                setup.add(try Sensor.make(value: ["symbol": "w\(w)"]))
            }
        }
        let flushesBefore = try flushCount(of: setup)
        let stop = Date().addingTimeInterval(seconds)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: writers)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let box = UncheckedCounts(counts)
        let done = DispatchGroup()
        let started = Date()
        for w in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let realm = try? Realm(configuration: config) else { return }
                var n = 0
                while Date() < stop {
                    try? realm.write {
                        guard let s = realm.object(ofType: Sensor.self, forPrimaryKey: "w\(w)") else { return }
                        let reading = Reading()
                        reading.seq = Int64(n)
                        s.readings.append(reading)
                        if s.readings.count > 1_000 { realm.delete(s.readings[0]) }
                    }
                    n += 1
                }
                box.pointer[w] = n
            }
        }
        done.wait()
        let elapsed = Date().timeIntervalSince(started)
        let total = counts.reduce(0, +)
        let flushes = max(1, try flushCount(of: setup) - flushesBefore)
        return (Double(total) / elapsed, Double(total) / Double(flushes))
    }

    @Test func writersUnderFullDurability() throws {
        let config = tempConfig("group", durability: .full)
        let writerCounts = [1, 2, 4, 8]
        var rates: [Int: [Double]] = [:]
        var perFlush: [Int: [Double]] = [:]
        for repetition in 0..<3 {
            let order = repetition % 2 == 0 ? writerCounts : writerCounts.reversed()
            for writers in order {
                let (rate, grouped) = try run(config, writers: writers, seconds: 3)
                rates[writers, default: []].append(rate)
                perFlush[writers, default: []].append(grouped)
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let single = median(rates[1] ?? [1])
        for writers in writerCounts {
            let rate = median(rates[writers] ?? [0])
            print("BENCH group commit .full: \(writers) writers \(Int(rate)) txn/s (x\(String(format: "%.2f", rate / single)) of 1 writer), \(String(format: "%.1f", median(perFlush[writers] ?? [0]))) commits/flush")
        }
        #expect(single > 0)
    }
}

/// Per-writer counters written by one thread each and read after all joined.
/// `@unchecked Sendable`: each slot is written by exactly one thread, read after `done.wait()`.
struct UncheckedCounts: @unchecked Sendable {
    let pointer: UnsafeMutableBufferPointer<Int>
    init(_ pointer: UnsafeMutableBufferPointer<Int>) { self.pointer = pointer }
}
