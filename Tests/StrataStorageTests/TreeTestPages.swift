// An in-memory `PageWriting` for the tree tests that catches the mistakes trees can make:
//
// - use after free: freed pages are poisoned (0xDB) and reading or writing them is recorded
//   in `violations` and throws;
// - leaks: `livePageCount` counts pages reachable in principle (owned + committed and not
//   freed), so destroying a tree must bring it back to its previous value;
// - copy-on-write: `commit()` freezes every owned page and remembers a hash of its bytes;
//   `writablePage` of a frozen page returns a copy, and `changedCommittedPages()` lists frozen
//   pages whose bytes changed (someone wrote through a `readPage` pointer).
//
// Pages freed while committed stay readable ("retired") until `releaseRetired()`, as the real
// pager keeps them for older readers, so snapshot roots can still be read after a mutation.
// Single-threaded, like a write transaction.

import StrataStorage

final class TreeTestPages: PageWriting {
    enum State { case free, owned, committed, retired }

    // Unchecked exclusivity: single-threaded by contract, and the dynamic checks would
    // dominate the benchmarks that use this double.
    @exclusivity(unchecked) private var memory: [UnsafeMutableRawPointer?] = [nil, nil]  // pages 0 and 1 are meta slots
    @exclusivity(unchecked) private var states: [State] = [.free, .free]
    @exclusivity(unchecked) private var hashes: [UInt64] = [0, 0]
    /// Pages allocated since the last commit, so `commit()` costs O(pages written).
    @exclusivity(unchecked) private var ownedList: [Int] = []
    @exclusivity(unchecked) private var retiredList: [Int] = []
    /// Pages retired since the last commit (restored by `rollback`).
    @exclusivity(unchecked) private var retiredInTransaction: [Int] = []
    @exclusivity(unchecked) private var freeList: [UInt32] = []
    @exclusivity(unchecked) private(set) var violations: [String] = []
    @exclusivity(unchecked) private(set) var livePageCount = 0
    @exclusivity(unchecked) private(set) var copies = 0
    /// Hash committed pages (for `changedCommittedPages`); off for benchmarks.
    var trackCommitted = true
    /// Whether append splits move the full left node to `allocateDetachedPage` (as the pager
    /// does for files written in extents); off by default, like the protocol's default.
    var placesFullNodesApart = false
    /// Pages handed out by `allocateDetachedPage`.
    @exclusivity(unchecked) private(set) var detachedPages: [PageRef] = []

    func allocateDetachedPage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        let page = try allocatePage()
        detachedPages.append(page.ref)
        return page
    }

    /// Pages come from 4 KiB-aligned slabs with the payload at offset `headerSize`, as in the
    /// pager's mapping: one tree page = one OS page (TLB behaviour like the real file).
    private static let slabPages = 256
    @exclusivity(unchecked) private var slabs: [UnsafeMutableRawPointer] = []

    deinit {
        for slab in slabs { slab.deallocate() }
    }

    private func newPagePointer(_ index: Int) -> UnsafeMutableRawPointer {
        let slot = (index - 2) % Self.slabPages
        if slot == 0 {
            slabs.append(UnsafeMutableRawPointer.allocate(byteCount: Self.slabPages * PageLayout.pageSize,
                                                          alignment: PageLayout.pageSize))
        }
        return slabs[slabs.count - 1] + slot * PageLayout.pageSize + PageLayout.headerSize
    }

    private func violation(_ message: String) -> StorageError {
        violations.append(message)
        return StorageError(.invalidState, "test pages: \(message)")
    }

    func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
        let index = Int(ref.raw)
        guard index >= 2, index < memory.count, let pointer = memory[index] else {
            throw violation("read of unknown \(ref)")
        }
        guard states[index] != .free else { throw violation("read of freed \(ref)") }
        return UnsafeRawPointer(pointer)
    }

    func allocatePage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        let index: Int
        if let reused = freeList.popLast() {
            index = Int(reused)
        } else {
            index = memory.count
            memory.append(newPagePointer(index))
            states.append(.free)
            hashes.append(0)
        }
        guard let pointer = memory[index] else { throw violation("lost page \(index)") }
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.payloadSize)
        states[index] = .owned
        ownedList.append(index)
        livePageCount += 1
        return (PageRef(UInt32(index)), pointer)
    }

    func writablePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        let index = Int(ref.raw)
        guard index >= 2, index < memory.count, let pointer = memory[index] else {
            throw violation("writablePage of unknown \(ref)")
        }
        switch states[index] {
        case .owned:
            return (ref, pointer)
        case .committed:
            let copy = try allocatePage()
            copy.payload.copyMemory(from: pointer, byteCount: PageLayout.payloadSize)
            states[index] = .retired
            retiredList.append(index)
            retiredInTransaction.append(index)
            livePageCount -= 1
            copies += 1
            return copy
        case .free, .retired:
            throw violation("writablePage of freed \(ref)")
        }
    }

    func freePage(_ ref: PageRef) {
        let index = Int(ref.raw)
        guard index >= 2, index < memory.count, let pointer = memory[index] else {
            _ = violation("free of unknown \(ref)")
            return
        }
        switch states[index] {
        case .owned:
            pointer.initializeMemory(as: UInt8.self, repeating: 0xDB, count: PageLayout.payloadSize)
            states[index] = .free
            freeList.append(ref.raw)
            livePageCount -= 1
        case .committed:
            states[index] = .retired
            retiredList.append(index)
            retiredInTransaction.append(index)
            livePageCount -= 1
        case .free, .retired:
            _ = violation("double free of \(ref)")
        }
    }

    func isOwned(_ ref: PageRef) -> Bool {
        let index = Int(ref.raw)
        return index < states.count && states[index] == .owned
    }

    /// Ends the "transaction": every owned page becomes committed (immutable).
    func commit() {
        for index in ownedList where states[index] == .owned {
            states[index] = .committed
            if trackCommitted, let pointer = memory[index] { hashes[index] = Self.hash(pointer) }
        }
        ownedList.removeAll(keepingCapacity: true)
        retiredInTransaction.removeAll(keepingCapacity: true)
    }

    /// Abandons the "transaction": pages it allocated are freed (poisoned), pages it retired
    /// are committed again.
    func rollback() {
        for index in ownedList where states[index] == .owned {
            memory[index]?.initializeMemory(as: UInt8.self, repeating: 0xDB, count: PageLayout.payloadSize)
            states[index] = .free
            freeList.append(UInt32(index))
            livePageCount -= 1
        }
        ownedList.removeAll(keepingCapacity: true)
        for index in retiredInTransaction where states[index] == .retired {
            states[index] = .committed
            livePageCount += 1
        }
        retiredInTransaction.removeAll(keepingCapacity: true)
    }

    /// No reader needs retired pages any more: poison and reuse them.
    func releaseRetired() {
        for index in retiredList where states[index] == .retired {
            memory[index]?.initializeMemory(as: UInt8.self, repeating: 0xDB, count: PageLayout.payloadSize)
            states[index] = .free
            freeList.append(UInt32(index))
        }
        retiredList.removeAll(keepingCapacity: true)
    }

    /// Committed or retired pages whose bytes changed since they were committed.
    func changedCommittedPages() -> [Int] {
        guard trackCommitted else { return [] }
        return (2..<states.count).filter { index in
            (states[index] == .committed || states[index] == .retired) && memory[index].map(Self.hash) != hashes[index]
        }
    }

    /// Raw access for corruption tests.
    func rawPage(_ ref: PageRef) -> UnsafeMutableRawPointer? {
        let index = Int(ref.raw)
        return index < memory.count ? memory[index] : nil
    }

    private static func hash(_ pointer: UnsafeMutableRawPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let words = UnsafeRawPointer(pointer)
        var offset = 0
        while offset + 8 <= PageLayout.payloadSize {
            h = (h ^ words.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
            offset += 8
        }
        return h
    }
}

/// A seeded generator so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random bytes of random size: mostly small, sometimes near the inline limit, sometimes
/// large enough for an overflow chain of several pages.
func randomValue(_ rng: inout SplitMix64, overflow: Bool = true) -> [UInt8] {
    let roll = Int.random(in: 0..<100, using: &rng)
    let size: Int
    if overflow && roll < 3 {
        size = Int.random(in: 1300...12_000, using: &rng)
    } else if roll < 10 {
        size = Int.random(in: 200...1340, using: &rng)
    } else {
        size = Int.random(in: 0...40, using: &rng)
    }
    return (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
}
