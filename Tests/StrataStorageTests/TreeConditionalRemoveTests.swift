// BytesTree.remove(_:in:if:): one descent that reads a present entry's value and removes the
// entry only when the predicate says so (reference counts stored as values).

import Testing
import StrataStorage

@Suite struct TreeConditionalRemoveTests {
    struct Refused: Error {}

    static func key(_ i: Int) -> [UInt8] { Array("backlink-\(1_000_000 + i)".utf8) }

    /// 3,000 entries (a multi-level tree) whose value is the 4-byte count `i % 3 + 1`.
    static func counters(_ pages: TreeTestPages) throws -> BytesTree {
        var tree = BytesTree()
        for i in 0..<3_000 {
            try key(i).withUnsafeBytes { k in
                try withUnsafeBytes(of: UInt32(i % 3 + 1).littleEndian) { _ = try tree.put(k, $0, in: pages) }
            }
        }
        pages.commit()
        return tree
    }

    @Test func removesOnlyWhenThePredicateAgreesAndSeesTheValue() throws {
        let pages = TreeTestPages()
        var tree = try Self.counters(pages)
        var removed = 0
        for i in 0..<3_000 {
            var seen: UInt32?
            let gone = try Self.key(i).withUnsafeBytes { k in
                try tree.remove(k, in: pages) { value in
                    seen = value.loadUnaligned(as: UInt32.self)
                    return seen == 1
                }
            }
            #expect(seen == UInt32(i % 3 + 1))
            #expect(gone == (i % 3 == 0))
            if gone { removed += 1 }
            if i % 500 == 0 { pages.commit() }
        }
        #expect(removed == 1_000)
        #expect(try tree.count(in: pages) == 2_000)
        for i in 0..<3_000 {
            let present = try Self.key(i).withUnsafeBytes { try tree.contains($0, in: pages) }
            #expect(present == (i % 3 != 0))
        }
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
    }

    @Test func keptOrAbsentEntriesCopyNothing() throws {
        let pages = TreeTestPages()
        var tree = try Self.counters(pages)
        let root = tree.root, copies = pages.copies
        var calls = 0
        let kept = try Self.key(7).withUnsafeBytes { k in try tree.remove(k, in: pages) { _ in calls += 1; return false } }
        let absent = try Array("no-such-key".utf8).withUnsafeBytes { k in
            try tree.remove(k, in: pages) { _ in calls += 1; return true }
        }
        #expect(!kept && !absent)
        #expect(calls == 1)              // the predicate sees present entries only
        #expect(tree.root == root)
        #expect(pages.copies == copies)
        #expect(try tree.count(in: pages) == 3_000)
    }

    @Test func aThrowingPredicateLeavesTheTreeValueUnchanged() throws {
        let pages = TreeTestPages()
        var tree = try Self.counters(pages)
        let root = tree.root
        #expect(throws: Refused.self) {
            try Self.key(11).withUnsafeBytes { k in try tree.remove(k, in: pages) { _ in throw Refused() } }
        }
        #expect(tree.root == root)
        #expect(try Self.key(11).withUnsafeBytes { try tree.contains($0, in: pages) })
    }

    @Test func positionalRemoveHandsOverTheRemovedElement() throws {
        let pages = TreeTestPages()
        var list = PositionalTree()
        for i in 0..<2_000 { try withUnsafeBytes(of: UInt64(i).littleEndian) { try list.append($0, in: pages) } }
        pages.commit()
        var removed: [UInt64] = []
        for index in [0, 0, 500, 1_996] {
            try list.remove(at: index, in: pages) { removed.append($0.loadUnaligned(as: UInt64.self)) }
        }
        #expect(removed == [0, 1, 502, 1_999])
        #expect(try list.count(in: pages) == 1_996)
        #expect(try list.element64(at: 0, in: pages) == 2)
        let outOfRange = #expect(throws: StorageError.self) { try list.remove(at: 1_996, in: pages) { _ in } }
        #expect(outOfRange?.code == .invalidArgument)
        #expect(try TreeShapeCheck.positional(list, pages) == [])
    }
}
