// The data the reads workload stores, and the answers every engine's queries must return.
//
// Model (every engine stores the same objects):
//   ReadSensor { symbol: String (primary key); samples: List<ReadSample> }
//   ReadSample { id: Int (primary key); value: Double; seq: Int (indexed); timestamp: Date }
// Object i (0-based) of N: id = i + 1, owned by sensor i % S (S = the sensors model's symbols,
// appended to its list in id order), seq = i / S + 1 (the k-th reading of its sensor, so an
// equality on seq matches one sample per sensor), timestamp = `epoch` + i seconds, and value =
// (i · P) mod N for a multiplier P coprime with N: the values are a permutation of 0..<N.
//
// Why a permutation: every answer is exact and known without asking an engine. Sums of whole
// numbers below 2^53 are exact in any order, `value > N − k − 0.5` holds for exactly k objects
// (the selectivity is exact), and the top-100 by value has no ties.

import Foundation

/// The generated store of the reads workload: `objects` samples over `SensorModel.symbols`.
public struct ReadDataset: Sendable, Equatable {
    public let objects: Int
    /// The multiplier that scatters values over ids (coprime with `objects`).
    public let multiplier: Int
    public static let sensors = SensorModel.symbols
    /// 2026-01-01T00:00:00Z: sample timestamps count seconds from here.
    public static let epoch = 1_767_225_600.0
    /// How many ids a sorted top-N query returns.
    public static let topCount = 100

    public init(objects: Int) {
        self.objects = objects
        multiplier = Self.coprimeMultiplier(for: objects)
    }

    /// A large prime that does not divide `n`, so that i ↦ i · P mod n is a permutation.
    static func coprimeMultiplier(for n: Int) -> Int {
        for prime in [1_000_003, 999_983, 7_919] where n % prime != 0 { return prime }
        return 1
    }

    /// Sample `index` (0-based).
    public func sample(_ index: Int) -> ReadSample {
        let value = Double(Int((UInt64(index) &* UInt64(multiplier)) % UInt64(objects)))
        return ReadSample(id: Int64(index + 1), sensor: index % Self.sensors.count,
                          value: value, seq: Int64(index / Self.sensors.count + 1),
                          timestamp: Self.epoch + Double(index))
    }

    /// The samples `range` (0-based indices), in id order.
    public func samples(_ range: Range<Int>) -> [ReadSample] { range.map(sample) }

    /// The highest seq any sensor's sample has.
    public var maxSeq: Int64 { Int64((objects - 1) / Self.sensors.count + 1) }

    /// A `value > threshold` filter that keeps `selectivity` of the objects (at least one).
    public func threshold(keeping selectivity: Double) -> (threshold: Double, expected: Int) {
        let keep = Swift.max(1, Swift.min(objects, Int((Double(objects) * selectivity).rounded())))
        return (Double(objects - keep) - 0.5, keep)
    }

    /// The ids the primary-key and equality lookups visit: spread over the store, repeatable.
    public func lookupIds(_ count: Int) -> [Int64] {
        (0..<count).map { Int64((($0 &* 7_919) % objects) + 1) }
    }

    /// Seq values for the indexed equality lookups (each matches one sample per sensor that has it).
    public func lookupSeqs(_ count: Int) -> [Int64] {
        (0..<count).map { Int64(($0 &* 104_729) % Int(maxSeq)) + 1 }
    }

    /// The number of samples with `seq` in `range` (samples exist for seq 1...maxSeq; the last
    /// seq may belong to fewer than all sensors).
    public func seqCount(_ range: ClosedRange<Int64>) -> Int {
        let lower = Swift.max(range.lowerBound, 1)
        let upper = Swift.min(range.upperBound, maxSeq)
        guard lower <= upper else { return 0 }
        // Samples with seq ≤ s: min(objects, s · S).
        let below = { (s: Int64) -> Int in Swift.min(self.objects, Int(s) * Self.sensors.count) }
        return below(upper) - below(lower - 1)
    }

    /// The answers a correct engine returns, computed from the generation rule alone.
    public var answers: ReadAnswers {
        let n = Double(objects)
        // value is a permutation of 0..<N: sum N(N-1)/2, min 0, max N-1.
        let sum = n * (n - 1) / 2
        var topIds: [Int64] = []
        // The top values are N-1, N-2, ...: the sample holding v has index v · P⁻¹ mod N.
        let inverse = Self.inverse(multiplier, modulo: objects)
        for rank in 0..<Swift.min(Self.topCount, objects) {
            let value = objects - 1 - rank
            let index = Int((UInt64(value) &* UInt64(inverse)) % UInt64(objects))
            topIds.append(Int64(index + 1))
        }
        var timestampSum = 0.0
        // Σ (epoch + i) = N·epoch + N(N-1)/2, summed here the way engines add doubles is not
        // exact; the check on timestamps uses a relative tolerance (`ReadAnswers.close`).
        timestampSum = n * Self.epoch + sum
        var perSensor = [Int](repeating: objects / Self.sensors.count, count: Self.sensors.count)
        for extra in 0..<(objects % Self.sensors.count) { perSensor[extra] += 1 }
        return ReadAnswers(objects: objects, sum: sum, average: objects > 0 ? sum / n : nil, min: 0, max: n - 1,
                           seqSum: Double(seqSumTotal()), timestampSum: timestampSum, topIds: topIds,
                           perSensor: perSensor)
    }

    private func seqSumTotal() -> Int {
        // Sensor s holds seq 1...c_s: Σ c_s(c_s + 1)/2.
        var total = 0
        let base = objects / Self.sensors.count
        for sensor in 0..<Self.sensors.count {
            let count = base + (sensor < objects % Self.sensors.count ? 1 : 0)
            total += count * (count + 1) / 2
        }
        return total
    }

    /// x⁻¹ mod m (x coprime with m), by the extended Euclidean algorithm.
    static func inverse(_ x: Int, modulo m: Int) -> Int {
        guard m > 1 else { return 0 }
        var (oldR, r) = (x % m, m)
        var (oldS, s) = (1, 0)
        while r != 0 {
            let q = oldR / r
            (oldR, r) = (r, oldR - q * r)
            (oldS, s) = (s, oldS - q * s)
        }
        return ((oldS % m) + m) % m
    }
}

/// One stored sample of the reads workload.
public struct ReadSample: Sendable, Equatable {
    public var id: Int64
    /// Index into `ReadDataset.sensors` of the sensor whose list holds it.
    public var sensor: Int
    public var value: Double
    public var seq: Int64
    public var timestamp: Double

    public init(id: Int64, sensor: Int, value: Double, seq: Int64, timestamp: Double) {
        self.id = id
        self.sensor = sensor
        self.value = value
        self.seq = seq
        self.timestamp = timestamp
    }
}

/// What the queries of a correctly filled store return.
public struct ReadAnswers: Sendable, Equatable {
    public var objects: Int
    public var sum: Double
    public var average: Double?
    public var min: Double
    public var max: Double
    public var seqSum: Double
    public var timestampSum: Double
    /// Ids of the `ReadDataset.topCount` samples of highest value, highest first.
    public var topIds: [Int64]
    /// Samples in each sensor's list, in `ReadDataset.sensors` order.
    public var perSensor: [Int]

    /// Whether two sums of doubles agree to within rounding (engines add in their own order).
    static func close(_ a: Double, _ b: Double) -> Bool {
        a == b || abs(a - b) <= 1e-9 * Swift.max(abs(a), abs(b))
    }
}
