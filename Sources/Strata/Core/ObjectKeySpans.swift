// ObjectKeySpans: whether the object keys an index names exist, without a descent per key when
// a table's keys form one unbroken run.
//
// Why: an indexed query checks that each object its index names exists (QueryIndexPlan.swift).
// At 1M objects that check was a descent of the object tree whose leaf missed the CPU caches, a
// fifth of an indexed equality's time. Object keys are unique integers, so a tree that holds
// `count` keys from `first` to `last` with `last - first + 1 == count` holds every key between
// them (pigeonhole): a key exists exactly when `first <= key <= last`. A class only appended to,
// or trimmed from its oldest end (a time series), stays that way until an object in the middle
// is deleted; any other table is checked key by key, as before.
//
// Invariants:
// - A span is read from the snapshot alone: the tree's count (kept in its root) and its two edge
//   keys.
// - It is kept only while the snapshot cannot change under it: outside a write, in a core that
//   is not frozen (a frozen core is read from several threads), and for one `generation` of the
//   core (bumped at every snapshot move and at every write's begin and end). Otherwise nothing is
//   kept, and the caller checks each key.
import StrataStorage

struct ObjectKeySpans {
    private enum Span {
        case unknown
        /// Every key from `first` through `last` names an object, and no other does.
        case unbroken(first: UInt64, last: UInt64)
        /// Some key between the edges is missing (or the table is empty).
        case broken
    }

    private var spans: [Span] = []
    private var generation: UInt64 = .max

    /// The keys of table `t` when they are one unbroken run, read once per generation; nil when
    /// they are not, or when the span cannot be kept (see the invariants).
    mutating func unbrokenKeys(table t: Int, core: RealmCore, _ pages: some PageReading) throws -> ClosedRange<UInt64>? {
        guard !core.isFrozen, !core.write.isOpen, t >= 0, t < core.snap.metas.count else { return nil }
        if generation != core.generation || spans.count != core.snap.metas.count {
            spans = Array(repeating: .unknown, count: core.snap.metas.count)
            generation = core.generation
        }
        if case .unknown = spans[t] { spans[t] = try Self.read(core.snap.metas[t].objects, pages) }
        guard case .unbroken(let first, let last) = spans[t] else { return nil }
        return first...last
    }

    private static func read(_ objects: KeyedTree, _ pages: some PageReading) throws -> Span {
        let count = try objects.count(in: pages)
        guard count > 0, let first = try objects.firstKey(in: pages), let last = try objects.lastKey(in: pages),
              last >= first, last - first == UInt64(count - 1) else { return .broken }
        return .unbroken(first: first, last: last)
    }
}
