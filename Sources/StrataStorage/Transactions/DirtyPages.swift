// DirtyPages: the pages a write transaction owns, page number → full-page buffer.
//
// Why not a Dictionary: every tree step of a write transaction asks "is this page mine?"
// (`readPage`/`writablePage`), and the Dictionary's hashing and exclusivity-checked access cost
// ~8–9% of a small transaction in profiles. This is an open-addressing table with linear probing
// and backward-shift deletion (no tombstones), keyed by the page number with a multiplicative hash.
//
// Invariants:
// - Key 0 marks an empty slot: page 0 is a meta slot and is never owned by a transaction.
// - `capacity` is a power of two and `count` ≤ capacity × 3/4 (the table grows before that).
// - Every key in the table is reachable from its home slot without crossing an empty slot.
// - Confined to the write transaction's thread (the transaction is not Sendable); the table
//   frees its storage, not the page buffers it points at (the transaction returns those).

final class DirtyPages {
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private var shift: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 64) {
        var c = 16
        while c < capacity { c <<= 1 }
        keys = .allocate(capacity: c)
        keys.initialize(repeating: 0, count: c)
        values = .allocate(capacity: c)
        values.initialize(repeating: nil, count: c)
        mask = c - 1
        shift = 64 - c.trailingZeroBitCount
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func home(_ page: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(page) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The buffer of `page`, or nil when the transaction does not own it.
    @inline(__always)
    subscript(page: UInt32) -> UnsafeMutableRawPointer? {
        var i = home(page)
        while true {
            let k = keys[i]
            if k == page { return values[i] }
            if k == 0 { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// Records `buffer` as the buffer of `page` (page ≠ 0), replacing any previous one.
    func insert(_ page: UInt32, _ buffer: UnsafeMutableRawPointer) {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        var i = home(page)
        while true {
            let k = keys[i]
            if k == page { values[i] = buffer; return }
            if k == 0 {
                keys[i] = page
                values[i] = buffer
                count += 1
                return
            }
            i = (i &+ 1) & mask
        }
    }

    /// Removes `page`; returns its buffer (nil when absent).
    @discardableResult
    func remove(_ page: UInt32) -> UnsafeMutableRawPointer? {
        var i = home(page)
        while true {
            let k = keys[i]
            if k == 0 { return nil }
            if k == page { break }
            i = (i &+ 1) & mask
        }
        let removed = values[i]
        // Backward-shift deletion: move later entries of the probe run into the hole when their
        // home slot does not lie (cyclically) in (hole, their slot].
        var hole = i
        var j = (i &+ 1) & mask
        while keys[j] != 0 {
            let h = home(keys[j])
            let distanceToJ = (j &- h) & mask
            let distanceToHole = (j &- hole) & mask
            if distanceToJ >= distanceToHole {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j &+ 1) & mask
        }
        keys[hole] = 0
        values[hole] = nil
        count -= 1
        return removed
    }

    /// Calls `body` for every entry, in no particular order.
    func forEach(_ body: (UInt32, UnsafeMutableRawPointer) throws -> Void) rethrows {
        for i in 0...mask where keys[i] != 0 {
            if let v = values[i] { try body(keys[i], v) }
        }
    }

    /// The owned page numbers, ascending.
    func sortedPages() -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(count)
        for i in 0...mask where keys[i] != 0 { out.append(keys[i]) }
        out.sort()
        return out
    }

    /// Empties the table for the next transaction's reuse (FileCore.spareDirtyTable), keeping a
    /// capacity that fits the transaction just ended: a table grown past 1,024 slots, or one
    /// whose transaction used under 1/8 of it, shrinks back to 64 slots, so that small
    /// transactions do not scan (forEach, sortedPages) or clear a large one. The second rule
    /// matters for a stream of small transactions after one medium one: the sensors benchmark
    /// fills 10,000 readings in one transaction (a 512-slot table), and every later 14-page
    /// transaction scanned those 512 slots three times — DirtyPages.sortedPages and
    /// WriteTransaction.finish were ~2.8% and ~4% of its profile. A table that the last
    /// transaction filled to ≥ 1/8 stays, so a stream of medium transactions does not
    /// regrow it every time.
    func removeAll() {
        let capacity = mask + 1
        if capacity > DirtyPages.largestKeptCapacity
            || (capacity > DirtyPages.smallestCapacity && count * 8 < capacity) {
            keys.deallocate()
            values.deallocate()
            allocateEmpty(capacity: DirtyPages.smallestCapacity)
            return
        }
        guard count > 0 else { return }
        keys.update(repeating: 0, count: mask + 1)
        values.update(repeating: nil, count: mask + 1)
        count = 0
    }

    static let largestKeptCapacity = 1024
    /// What a shrinking table returns to (room for 48 pages).
    static let smallestCapacity = 64

    /// Slots in the table (tests check the shrink of `removeAll`).
    var capacity: Int { mask + 1 }

    /// Fresh, empty slot arrays of `c` slots (a power of two); the old ones are the caller's.
    private func allocateEmpty(capacity c: Int) {
        keys = .allocate(capacity: c)
        keys.initialize(repeating: 0, count: c)
        values = .allocate(capacity: c)
        values.initialize(repeating: nil, count: c)
        mask = c - 1
        shift = 64 - c.trailingZeroBitCount
        count = 0
    }

    private func grow() {
        let oldKeys = keys, oldValues = values, oldCapacity = mask + 1
        allocateEmpty(capacity: oldCapacity * 2)
        for i in 0..<oldCapacity where oldKeys[i] != 0 {
            if let v = oldValues[i] { insert(oldKeys[i], v) }
        }
        oldKeys.deallocate()
        oldValues.deallocate()
    }
}
