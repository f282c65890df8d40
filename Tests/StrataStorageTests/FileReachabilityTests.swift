// verify() with a registered reachability walker over real trees: balanced accounting, and typed
// errors for leaked pages and for pages that are reachable yet free.

import Testing
@testable import StrataStorage

/// Walks the keyed tree whose root is user root 0.
let walkRootZero: ReachabilityWalker = { roots, pages, visit in
    try PageWalk.forEachPage(inTree: PageRef(UInt32(truncatingIfNeeded: roots[0])), in: pages, visit)
}

func putValues(_ file: StorageFile, keys: Range<UInt64>, size: Int) throws {
    let txn = try file.beginWrite()
    var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: txn.roots[0])))
    let value = [UInt8](repeating: 0x3C, count: size)
    try value.withUnsafeBytes { raw in
        for key in keys { try tree.put(key, raw, in: txn) }
    }
    txn.roots[0] = UInt64(tree.root.raw)
    try txn.commit()
}

@Suite("File reachability")
struct FileReachabilityTests {
    @Test func walkedAccountingBalancesAcrossCommitsAndReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            file.setReachabilityWalker(walkRootZero)
            try putValues(file, keys: 0..<5_000, size: 40)
            try putValues(file, keys: 100..<200, size: 9_000)  // overflow values
            let reader = try file.beginRead()  // pins a version: its pages become held
            try putValues(file, keys: 0..<2_500, size: 12)
            let accounting = try file.verify()
            #expect(accounting.balances)
            #expect(accounting.heldForReaderPages > 0)
            reader.end()
            file.close()
        }
        let file = try StorageFile.open(StorageOptions(path: path))
        defer { file.close() }
        file.setReachabilityWalker(walkRootZero)
        let accounting = try file.verify()
        #expect(accounting.balances)
        var pages = 0
        let reader = try file.beginRead()
        try PageWalk.forEachPage(inTree: PageRef(UInt32(reader.roots[0])), in: reader) { _ in pages += 1 }
        reader.end()
        #expect(pages > 50)  // 5,000 keys of ~50 bytes need ~60 leaves and a branch
        #expect(accounting.reachablePages == pages + file.core.freeListPages.count + file.core.overflowPages.count)
    }

    @Test func aLeakedPageIsReported() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        file.setReachabilityWalker(walkRootZero)
        try putValues(file, keys: 0..<1_000, size: 40)
        #expect(try file.verify().balances)
        let txn = try file.beginWrite()
        _ = try txn.allocatePage()  // referenced by nothing
        try txn.commit()
        #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
        // Without the walker the derived accounting cannot see the leak.
        file.setReachabilityWalker(nil)
        #expect(try file.verify().balances)
    }

    @Test func aReachablePageThatWasFreedIsReported() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file(), durability: .unsafe))
        defer { file.close() }
        file.setReachabilityWalker(walkRootZero)
        try putValues(file, keys: 0..<1_000, size: 40)
        let txn = try file.beginWrite()
        txn.freePage(PageRef(UInt32(txn.roots[0])))  // the root, still referenced by roots[0]
        try txn.commit()
        // Held (then free) yet reachable: reported while held, and after promotion.
        #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
        try file.beginWrite().commit()
        #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
    }
}
