// Lookups through a `LeafFinger` (Trees/LeafFinger.swift) give what plain lookups give: keys in
// order, each key again and again, at random, absent keys between and beyond the stored ones, on
// slotted and packed leaves, with the finger carried from another tree (whose leaf must not be
// trusted) and from the tree before an edit that the holder forgot to announce only by a new root.
// A key looked up again is answered from the value the finger kept, without reading the leaf, but
// only when that value lies in the leaf's page: never a packed leaf's gathered row or an overflow
// chain's copy, which live only during the call.
import Foundation
import Testing
@testable import StrataStorage

@Suite struct LeafFingerTests {
    static func plain(_ tree: KeyedTree, _ key: UInt64, _ pages: TreeTestPages) throws -> [UInt8]? {
        try tree.withValue(forKey: key, in: pages) { Array($0) }
    }

    static func fingered(_ tree: KeyedTree, _ key: UInt64, _ finger: inout LeafFinger, _ pages: TreeTestPages) throws -> [UInt8]? {
        try tree.withValue(forKey: key, in: pages, finger: &finger) { Array($0) }
    }

    static func tree(_ count: UInt64, packing: Bool, step: UInt64, _ pages: TreeTestPages) throws -> KeyedTree {
        var tree = KeyedTree()
        for i in 0..<count {
            let row = (0..<24).map { UInt8(truncatingIfNeeded: i &* 31 &+ UInt64($0)) }
            try row.withUnsafeBytes { _ = try tree.put(100 + i * step, $0, packing: packing, in: pages) }
        }
        return tree
    }

    @Test(arguments: [false, true])
    func fingeredLookupsEqualPlainOnes(packing: Bool) throws {
        let pages = TreeTestPages()
        let tree = try Self.tree(20_000, packing: packing, step: 3, pages)
        var finger = LeafFinger()
        // In key order (the finger's case), every key and the gaps between them.
        for key in UInt64(0)..<UInt64(100 + 20_000 * 3 + 10) {
            #expect(try Self.fingered(tree, key, &finger, pages) == Self.plain(tree, key, pages), "key \(key)")
        }
        // Each stored key several times in a row (the properties of one object, then the next),
        // which the finger's hint answers without a search.
        for key in stride(from: UInt64(100), to: 100 + 20_000 * 3, by: 3) {
            for _ in 0..<3 { #expect(try Self.fingered(tree, key, &finger, pages) == Self.plain(tree, key, pages), "key \(key)") }
        }
        // At random, and in reverse.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let key = UInt64.random(in: 0..<70_000, using: &random)
            #expect(try Self.fingered(tree, key, &finger, pages) == Self.plain(tree, key, pages), "key \(key)")
        }
        for key in stride(from: UInt64(60_200), through: 0, by: -7) {
            #expect(try Self.fingered(tree, key, &finger, pages) == Self.plain(tree, key, pages), "key \(key)")
        }
    }

    @Test func aFingerFromAnotherTreeIsNotUsed() throws {
        let pages = TreeTestPages()
        let a = try Self.tree(5_000, packing: false, step: 2, pages)
        let b = try Self.tree(5_000, packing: true, step: 5, pages)
        var finger = LeafFinger()
        for key in UInt64(100)..<UInt64(10_000) {
            #expect(try Self.fingered(a, key, &finger, pages) == Self.plain(a, key, pages))
            #expect(try Self.fingered(b, key, &finger, pages) == Self.plain(b, key, pages))
        }
    }

    @Test func aForgottenFingerIsNotUsedAfterAnEdit() throws {
        let pages = TreeTestPages()
        var tree = try Self.tree(3_000, packing: false, step: 1, pages)
        pages.commit()
        var finger = LeafFinger()
        #expect(try Self.fingered(tree, 1_500, &finger, pages) != nil)
        // Copy-on-write gives the edited tree a new root; the holder forgets the finger anyway.
        _ = try tree.remove(1_500, in: pages)
        finger.forget()
        #expect(try Self.fingered(tree, 1_500, &finger, pages) == nil)
        #expect(try Self.fingered(tree, 1_501, &finger, pages) == Self.plain(tree, 1_501, pages))
    }

    /// Counts the pages a lookup reads.
    final class CountingPages: PageReading {
        let pages: TreeTestPages
        var reads = 0
        init(_ pages: TreeTestPages) { self.pages = pages }
        func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
            reads += 1
            return try pages.readPage(ref)
        }
    }

    @Test func aKeyLookedUpAgainIsReadFromTheKeptValue() throws {
        let pages = TreeTestPages()
        let tree = try Self.tree(2_000, packing: false, step: 1, pages)
        let counting = CountingPages(pages)
        var finger = LeafFinger()
        for key in UInt64(100)..<UInt64(2_100) {
            let first = try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) }
            let readsAfterFirst = counting.reads
            #expect(first == (try Self.plain(tree, key, pages)))
            for _ in 0..<3 {
                #expect(try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) } == first)
            }
            #expect(counting.reads == readsAfterFirst, "key \(key): the kept value answers without a page read")
        }
        // Another key in between: each answer is its own key's.
        for key in stride(from: UInt64(2_099), through: 100, by: -1) {
            #expect(try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) } == (try Self.plain(tree, key, pages)))
            #expect(try tree.withValue(forKey: key - 1, in: counting, finger: &finger) { Array($0) } == (try Self.plain(tree, key - 1, pages)))
            #expect(try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) } == (try Self.plain(tree, key, pages)))
        }
    }

    @Test func valuesOutsideTheLeafPageAreNotKept() throws {
        let pages = TreeTestPages()
        // A packed leaf's row is gathered from its planes into a temporary buffer.
        let packed = try Self.tree(500, packing: true, step: 1, pages)
        // A value too large for a cell lives in an overflow chain, copied out for each call.
        var overflowing = KeyedTree()
        let large = (0..<9_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let small = [UInt8](repeating: 5, count: 16)
        try large.withUnsafeBytes { _ = try overflowing.put(7, $0, packing: false, in: pages) }
        try small.withUnsafeBytes { _ = try overflowing.put(8, $0, packing: false, in: pages) }
        let counting = CountingPages(pages)
        for (tree, key, expected) in [(packed, UInt64(300), try Self.plain(packed, 300, pages)), (overflowing, 7, large)] {
            var finger = LeafFinger()
            #expect(try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) } == expected)
            #expect(finger.lastValueAddress == 0)
            let before = counting.reads
            #expect(try tree.withValue(forKey: key, in: counting, finger: &finger) { Array($0) } == expected)
            #expect(counting.reads > before, "key \(key) is read from its page again")
        }
        var finger = LeafFinger()
        #expect(try overflowing.withValue(forKey: 8, in: counting, finger: &finger) { Array($0) } == small)
        #expect(finger.lastValueAddress != 0)
    }

    /// Reads through `inner`, recording each page asked for, and failing for `damaged` as a page
    /// whose checksum does not match fails.
    final class RecordingPages: PageReading {
        let inner: TreeTestPages
        var damaged = PageRef.null
        var reads: [PageRef] = []
        init(_ inner: TreeTestPages) { self.inner = inner }
        func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer {
            reads.append(ref)
            if ref == damaged { throw StorageError(.corruptPage, "page \(ref) damaged") }
            return try inner.readPage(ref)
        }
    }

    @Test func aWalkInKeyOrderReadsTheNextLeafAheadAndLeavesItsDamageToTheLookupThatNeedsIt() throws {
        let pages = TreeTestPages()
        let tree = try Self.tree(6_000, packing: false, step: 1, pages)
        let recording = RecordingPages(pages)
        // Which leaf holds each key, and whether a leaf was read before the walk reached it.
        var leaves: [PageRef] = []
        var firstKey: [UInt64] = []
        var readAhead = 0
        var finger = LeafFinger()
        for key in UInt64(100)..<UInt64(100 + 6_000) {
            let before = recording.reads.count
            #expect(try tree.withValue(forKey: key, in: recording, finger: &finger) { Array($0) } == Self.plain(tree, key, pages))
            if leaves.last != finger.leaf {
                if leaves.count >= 2, recording.reads[..<before].contains(finger.leaf) { readAhead += 1 }
                leaves.append(finger.leaf)
                firstKey.append(key)
            }
        }
        #expect(leaves.count >= 6, "a tree of several leaves")
        #expect(readAhead == leaves.count - 2, "every leaf after the second was read before the walk reached it")
        // The fourth leaf damaged: the walk reads the first three, and only a key of the
        // fourth reports the damage, though the fourth was asked for ahead of it.
        recording.damaged = leaves[3]
        finger = LeafFinger()
        for key in UInt64(100)..<firstKey[3] {
            #expect(try tree.withValue(forKey: key, in: recording, finger: &finger) { Array($0) } == Self.plain(tree, key, pages), "key \(key)")
        }
        #expect(recording.reads.contains(leaves[3]), "the damaged leaf was asked for ahead")
        let error = #expect(throws: StorageError.self) {
            _ = try tree.withValue(forKey: firstKey[3], in: recording, finger: &finger) { Array($0) }
        }
        #expect(error?.code == .corruptPage)
    }
}
