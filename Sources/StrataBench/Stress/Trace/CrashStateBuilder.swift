// Crash states from a trace, as ALICE and LazyFS build them: choose crash points (each
// acknowledgement, just before each flush, plus random records between acknowledgements), and at
// each a bounded number of variants of what was pending — all lost, all kept, at a flush each
// single omission (growth of a file first), then random keep/drop/tear/reorder mixes — with
// identical disks counted once.

/// Builds crash states from one trace. Every state is reproducible from (trace, `CrashStateID`).
public struct CrashStateBuilder: Sendable {
    public let trace: IOTrace
    /// Whose rules decide when a name is durable (the same trace gives other states on another).
    public let fileSystem: CrashFileSystem

    public init(trace: IOTrace, fileSystem: CrashFileSystem = .posix) {
        self.trace = trace
        self.fileSystem = fileSystem
    }

    /// The acknowledgements sent before crash point `k`, in order.
    public func acknowledgements(before k: Int) -> [[UInt8]] { trace.acknowledgements(before: k) }

    /// Crash points: just after every acknowledgement, just before every flush, the end of the
    /// trace, and `count` distinct random records in each gap between acknowledgements (every one
    /// when the gap is smaller), sorted.
    public func crashPoints(randomBetweenAcks count: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        let fixed = trace.acknowledgementPoints + [trace.records.count]
        var points = Set(fixed).union(trace.flushPoints)
        var previous = 0
        for next in fixed.sorted() {
            // Strictly between two fixed points: 1 + below(gap - 1) lies in previous+1 ..< next.
            // Draws that repeat a point are drawn again, so a gap gets as many points as asked
            // (a large --states needs them all); the gaps are disjoint, so only this gap's count.
            let gap = next - previous
            if gap > 1 {
                var drawn = 0
                while drawn < min(count, gap - 1) {
                    if points.insert(previous + 1 + rng.below(gap - 1)).inserted { drawn += 1 }
                }
            }
            previous = next
        }
        return points.sorted()
    }

    /// Up to `budget` distinct states at crash point `k`: all pending dropped, all kept, then
    /// random mixes (seeds drawn from `seed` and `k`).
    public func states(at k: Int, budget: Int, seed: UInt64) -> [CrashState] {
        var model = CrashModel(trace: trace, fileSystem: fileSystem)
        model.advance(to: k)
        return Self.variants(model, at: k, budget: budget, seed: seed)
    }

    /// The states of every crash point in `points`, one pass over the trace: `body` gets each
    /// state in turn (nothing is kept in memory after it returns).
    public func forEachState(at points: [Int], budget: Int, seed: UInt64,
                             _ body: (CrashState) throws(BenchError) -> Void) throws(BenchError) {
        try forEachState(at: points, budget: { _ in budget }, seed: seed, body)
    }

    /// As above, with each point's budget asked for just before its states are built (`budget`
    /// gets the crash point), so a caller can spread a total over the points as they come.
    public func forEachState(at points: [Int], budget: (Int) -> Int, seed: UInt64,
                             _ body: (CrashState) throws(BenchError) -> Void) throws(BenchError) {
        var model = CrashModel(trace: trace, fileSystem: fileSystem)
        for k in points.sorted() {
            model.advance(to: k)
            for state in Self.variants(model, at: k, budget: budget(k), seed: seed) { try body(state) }
        }
    }

    /// Rebuilds one state from its id.
    public func state(_ id: CrashStateID) -> CrashState {
        var model = CrashModel(trace: trace, fileSystem: fileSystem)
        model.advance(to: id.crashPoint)
        return Self.build(model, id: id)
    }

    /// The single omissions worth building at a flush of file `flushed`, in the order they are
    /// tried: first that file's pending changes that grow it (a commit's meta on disk without the
    /// growth its pages need is a state a file system's fdatasync ordering allows and an engine
    /// must survive), then its other pending changes, in trace order — the writes this flush was
    /// about to make durable — and last those of other files (a lock file's mapped words, never
    /// flushed, pile up there and say little about the flush).
    static func omissionOrder(_ model: CrashModel, flushed: UInt32) -> [Int] {
        var size: [UInt32: Int] = [:]
        var growing: [Int] = []
        var others: [Int] = []
        var elsewhere: [Int] = []
        for (i, change) in model.pending.enumerated() {
            let before = size[change.file] ?? model.durable[change.file]?.count ?? 0
            let after: Int
            switch change.change {
            case .write(let offset, let bytes): after = max(before, offset + bytes.count)
            case .resize(let length): after = length
            case .allocate(let offset, let length, _, let keepSize): after = keepSize ? before : max(before, offset + length)
            }
            size[change.file] = after
            if change.file != flushed { elsewhere.append(i) } else if after > before { growing.append(i) } else { others.append(i) }
        }
        return growing + others + elsewhere
    }

    static func variants(_ model: CrashModel, at k: Int, budget: Int, seed: UInt64) -> [CrashState] {
        var seeds = SplitMix64(seed: seed ^ (UInt64(k) &* 0x9E37_79B9_7F4A_7C15))
        var ids: [CrashStateID.Variant] = [.dropped, .kept]
        if model.trace.isFlushPoint(k), model.pending.count > 1 {
            ids += omissionOrder(model, flushed: model.trace.records[k].file).map { CrashStateID.Variant.omit(index: $0) }
        }
        var states: [CrashState] = []
        var seen: Set<UInt64> = []
        var attempts = 0
        // Random draws often repeat a disk already built: try a few times the budget, no more.
        while states.count < budget && attempts < 4 * max(budget, 1) + ids.count {
            let variant = attempts < ids.count ? ids[attempts] : .random(seed: seeds.next())
            attempts += 1
            let state = build(model, id: CrashStateID(crashPoint: k, variant: variant))
            if seen.insert(state.contentHash).inserted { states.append(state) }
            if model.pending.isEmpty && model.pendingNames.isEmpty { break }
        }
        return states
    }

    static func build(_ model: CrashModel, id: CrashStateID) -> CrashState {
        let pending = model.pending
        var outcomes = [PendingDecision.Outcome](repeating: .kept, count: pending.count)
        var order = Array(pending.indices)
        var namesApplied = model.pendingNames.count
        switch id.variant {
        case .kept:
            break
        case .dropped:
            outcomes = outcomes.map { _ in .dropped }
            namesApplied = 0
        case .omit(let index):
            if outcomes.indices.contains(index) { outcomes[index] = .dropped }
        case .random(let seed):
            var rng = SplitMix64(seed: seed)
            for (i, change) in pending.enumerated() {
                switch rng.below(3) {
                case 0: outcomes[i] = .kept
                case 1: outcomes[i] = .dropped
                default:
                    let points = change.tearPoints
                    outcomes[i] = points.isEmpty ? .kept : .torn(bytes: points[rng.below(points.count)])
                }
            }
            order = shuffledWrites(pending, &rng)
            namesApplied = rng.below(model.pendingNames.count + 1)
        }

        var contents = model.durable
        var decisions: [PendingDecision] = []
        for i in order {
            let change = pending[i]
            switch outcomes[i] {
            case .kept: change.apply(to: &contents[change.file, default: []])
            case .torn(let bytes): change.apply(to: &contents[change.file, default: []], prefix: bytes)
            case .dropped: break
            }
            decisions.append(PendingDecision(record: change.record, outcome: outcomes[i]))
        }
        var names = model.names
        for name in model.pendingNames.prefix(namesApplied) { name.apply(to: &names) }
        var files: [String: [UInt8]] = [:]
        for (path, file) in names { files[path] = contents[file] ?? [] }
        return CrashState(id: id, files: files, acknowledgements: model.trace.acknowledgements(before: id.crashPoint),
                          decisions: decisions, namesApplied: namesApplied,
                          pendingNames: model.pendingNames.map(\.summary))
    }

    /// Pending indices with each run of consecutive writes shuffled: writes between two flushes
    /// may reach the disk in any order, while a size change stays where it was among them.
    static func shuffledWrites(_ pending: [PendingChange], _ rng: inout SplitMix64) -> [Int] {
        var order: [Int] = []
        var run: [Int] = []
        func flushRun() {
            // Fisher–Yates with the seeded generator (`shuffle(using:)` may change its algorithm).
            if run.count > 1 {
                for i in stride(from: run.count - 1, to: 0, by: -1) { run.swapAt(i, rng.below(i + 1)) }
            }
            order += run
            run.removeAll()
        }
        for (i, change) in pending.enumerated() {
            if change.isWrite { run.append(i) } else { flushRun(); order.append(i) }
        }
        flushRun()
        return order
    }
}
