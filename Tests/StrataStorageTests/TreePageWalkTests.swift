// TreePages lets the pager account for and compact tree pages without knowing their layout:
// walking from a root reaches exactly the tree's pages; copying them to new numbers and
// rewriting references yields the same tree.

import Testing
@testable import StrataStorage

@Suite struct TreePageWalkTests {
    /// Every page reachable from `root`, each checked to be visited once.
    static func reachable(from root: PageRef, _ pages: TreeTestPages) throws -> [PageRef] {
        var seen = Set<PageRef>()
        var order: [PageRef] = []
        var stack = [root]
        while let ref = stack.popLast() {
            #expect(seen.insert(ref).inserted, "\(ref) reached twice")
            order.append(ref)
            let payload = try pages.readPage(ref)
            #expect(TreePages.isTreePage(kind: payload.load(as: UInt8.self)))
            try TreePages.forEachChild(ofPage: ref, payload: payload) { stack.append($0) }
        }
        return order
    }

    /// Copies the tree densely into fresh pages, renumbering references with `rewriteChildren`.
    static func compact(root: PageRef, from source: TreeTestPages, into destination: TreeTestPages) throws -> PageRef {
        let order = try reachable(from: root, source)
        var map: [PageRef: PageRef] = [:]
        for ref in order {
            let (newRef, payload) = try destination.allocatePage()
            payload.copyMemory(from: try source.readPage(ref), byteCount: PageLayout.payloadSize)
            map[ref] = newRef
        }
        for ref in order {
            let (_, payload) = try destination.writablePage(try #require(map[ref]))
            try TreePages.rewriteChildren(payload: payload) { old in
                guard let new = map[old] else { throw StorageError(.corruptFile, "unmapped \(old)") }
                return new
            }
        }
        return try #require(map[root])
    }

    @Test func walkReachesEveryPageOnceAndCompactionPreservesTheTrees() throws {
        var rng = SplitMix64(seed: 77)
        let pages = TreeTestPages()
        var keyed = KeyedTree()
        var bytes = BytesTree()
        var positional = PositionalTree()
        var keyedModel: [UInt64: [UInt8]] = [:]
        var bytesModel: [[UInt8]: [UInt8]] = [:]
        var positionalModel: [[UInt8]] = []
        for _ in 0..<2500 {
            let value = randomValue(&rng)
            let key = UInt64.random(in: 0..<4000, using: &rng)
            try value.withUnsafeBytes { _ = try keyed.put(key, $0, in: pages) }
            keyedModel[key] = value
            let bytesKey = TreeBytesTests.randomKey(&rng)
            try bytesKey.withUnsafeBytes { k in try value.withUnsafeBytes { _ = try bytes.put(k, $0, in: pages) } }
            bytesModel[bytesKey] = value
            try value.withUnsafeBytes { try positional.append($0, in: pages) }
            positionalModel.append(value)
        }
        pages.commit()
        let counted = try Self.reachable(from: keyed.root, pages).count
            + Self.reachable(from: bytes.root, pages).count
            + Self.reachable(from: positional.root, pages).count
        #expect(counted == pages.livePageCount)
        var walked: [PageRef] = []
        for root in [keyed.root, bytes.root, positional.root] {
            try TreePages.forEachPage(ofTreeAt: root, in: pages) { walked.append($0) }
        }
        #expect(walked.count == pages.livePageCount)
        #expect(Set(walked).count == walked.count)

        let copy = TreeTestPages()
        let keyedCopy = KeyedTree(root: try Self.compact(root: keyed.root, from: pages, into: copy))
        let bytesCopy = BytesTree(root: try Self.compact(root: bytes.root, from: pages, into: copy))
        let positionalCopy = PositionalTree(root: try Self.compact(root: positional.root, from: pages, into: copy))
        #expect(copy.livePageCount == pages.livePageCount)
        try TreeKeyedTests.verify(keyedCopy, keyedModel, copy)
        try TreeBytesTests.verify(bytesCopy, bytesModel, copy)
        try TreePositionalTests.verify(positionalCopy, positionalModel, copy)
        #expect(copy.violations.isEmpty)
    }

    @Test func walkingACyclicTreeThrowsCorrupt() throws {
        let (tree, pages) = try TreeCorruptionTests.keyedTree(count: 2000)
        let root = try #require(pages.rawPage(tree.root))
        let cell = UnsafeRawPointer(root).treeU16(TreeLayout.headerSize)
        let firstChild = UnsafeRawPointer(root).treeU32(cell)
        root.setTreeU32(cell, tree.root.raw)     // the first child is the root itself
        let cycle = #expect(throws: StorageError.self) {
            try TreePages.forEachPage(ofTreeAt: tree.root, in: pages) { _ in }
        }
        #expect(cycle?.code == .corruptFile)
        // Every cell pointing at the same child: shared, not a tree.
        root.setTreeU32(cell, firstChild)
        let secondCell = UnsafeRawPointer(root).treeU16(TreeLayout.headerSize + 2)
        root.setTreeU32(secondCell, firstChild)
        let shared = #expect(throws: StorageError.self) {
            try TreePages.forEachPage(ofTreeAt: tree.root, in: pages) { _ in }
        }
        #expect(shared?.code == .corruptFile)
    }
}
