// Dense compaction and copies through a relocator: pages renumbered, references inside values
// (inline and in overflow chains, straddling two chain pages) rewritten, no free space left,
// content identical, keys kept/changed/dropped, failures before the rename harmless, bad plans
// and damaged references refused with typed errors.

import Foundation
import Testing
@testable import StrataStorage

/// A toy "object layer": owners (KeyedTree) whose values hold list roots (PositionalTree) at
/// offset 8 and, in values of ≥ 4054 bytes, at offset 4050 (which straddles the first two
/// overflow chunks); a directory (BytesTree) whose "tables" entry is an array of KeyedTree roots.
enum Toy {
    static let owners = TreeRole(kind: 1)
    static let list = TreeRole(kind: 2)
    static let directory = TreeRole(kind: 3)
    static let table = TreeRole(kind: 4)
    static let straddleOffset = TreeOverflow.chunkSize - 2
    static let tablesKey = Array("tables".utf8)
    static let marker: UInt64 = 0x5944_4E45_4D59_4F54

    struct Relocator: PageRelocating {
        func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan { Plan() }
    }

    struct Plan: RelocationPlan {
        var rootTrees: [(word: Int, role: TreeRole)] { [(1, Toy.owners), (2, Toy.directory)] }
        func valueReferences(for role: TreeRole) -> ValueReferences {
            switch role {
            case Toy.owners: .fixed([EmbeddedRoot(offset: 8, role: Toy.list), EmbeddedRoot(offset: Toy.straddleOffset, role: Toy.list)])
            case Toy.directory: .variable
            default: .none
            }
        }
        func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, role: TreeRole) throws -> [EmbeddedRoot] {
            guard key.elementsEqual(Toy.tablesKey) else { return [] }
            return (0..<(value.count / 4)).map { EmbeddedRoot(offset: $0 * 4, role: Toy.table) }
        }
    }

    static func ownerValue(_ i: UInt64, list: PageRef, second: PageRef) -> [UInt8] {
        let large = i % 7 == 3
        var v = [UInt8](repeating: UInt8(truncatingIfNeeded: i &* 31), count: large ? 9000 : 40)
        v.withUnsafeMutableBytes {
            $0.storeBytes(of: i.littleEndian, toByteOffset: 0, as: UInt64.self)
            $0.storeBytes(of: list.raw.littleEndian, toByteOffset: 8, as: UInt32.self)
            if large { $0.storeBytes(of: second.raw.littleEndian, toByteOffset: straddleOffset, as: UInt32.self) }
        }
        return v
    }

    static func makeList(_ n: Int, seed: UInt64, _ w: WriteTransaction) throws -> PageRef {
        var t = PositionalTree()
        for j in 0..<n { try t.appendUInt64(seed &* 1000 &+ UInt64(j), in: w) }
        return t.root
    }

    /// `owners` owners with lists (owner 0's list spans many pages), three tables in the
    /// directory, then all owners but every `keepEvery`-th deleted with their lists.
    static func build(_ file: StorageFile, owners: Int = 600, keepEvery: UInt64 = 10) throws {
        let w = try file.beginWrite()
        var ownerTree = KeyedTree()
        for i in 0..<UInt64(owners) {
            let list = try makeList(i == 0 ? 4000 : Int(i % 40) + 1, seed: i, w)
            let second = i % 7 == 3 ? try makeList(Int(i % 5) + 1, seed: i + 100_000, w) : PageRef.null
            try ownerValue(i, list: list, second: second).withUnsafeBytes { _ = try ownerTree.put(i, $0, in: w) }
        }
        var tableRoots: [UInt32] = []
        for t in 0..<3 {
            var table = KeyedTree()
            for k in 0..<UInt64(300) {
                try withUnsafeBytes(of: (k &* UInt64(t + 1)).littleEndian) { _ = try table.put(k, $0, in: w) }
            }
            tableRoots.append(table.root.raw)
        }
        var directory = BytesTree()
        try Toy.tablesKey.withUnsafeBytes { k in
            try tableRoots.withUnsafeBytes { v in _ = try directory.put(k, v, in: w) }
        }
        try Array("zzz-opaque".utf8).withUnsafeBytes { k in
            try [UInt8](repeating: 0xEE, count: 5000).withUnsafeBytes { v in _ = try directory.put(k, v, in: w) }
        }
        w.roots[0] = marker
        w.roots[1] = UInt64(ownerTree.root.raw)
        w.roots[2] = UInt64(directory.root.raw)
        w.roots[5] = 12345
        try w.commit()

        let d = try file.beginWrite()
        var tree = KeyedTree(root: PageRef(UInt32(d.roots[1])))
        for i in 0..<UInt64(owners) where i % keepEvery != 0 {
            let refs = try tree.withValue(forKey: i, in: d) { v in
                (PageRef(v.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                 v.count > straddleOffset + 4 ? PageRef(v.loadUnaligned(fromByteOffset: straddleOffset, as: UInt32.self)) : .null)
            }
            guard let refs else { continue }
            var a = PositionalTree(root: refs.0)
            try a.destroy(in: d)
            var b = PositionalTree(root: refs.1)
            try b.destroy(in: d)
            _ = try tree.remove(i, in: d)
        }
        d.roots[1] = UInt64(tree.root.raw)
        try d.commit()
    }

    /// Everything the toy layer stores, page numbers left out.
    static func dump(_ file: StorageFile) throws -> [String] {
        let r = try file.beginRead()
        defer { r.end() }
        var out = ["roots \(r.roots[0]) \(r.roots[5])"]
        let owners = KeyedTree(root: PageRef(UInt32(r.roots[1])))
        var lists: [(UInt64, PageRef)] = []
        try owners.forEach(in: r) { key, v in
            var copy = [UInt8](v)
            for b in 8..<12 { copy[b] = 0 }
            lists.append((key, PageRef(v.loadUnaligned(fromByteOffset: 8, as: UInt32.self))))
            if v.count > straddleOffset + 4 {
                lists.append((key + 1_000_000, PageRef(v.loadUnaligned(fromByteOffset: straddleOffset, as: UInt32.self))))
                for b in straddleOffset..<(straddleOffset + 4) { copy[b] = 0 }
            }
            out.append("owner \(key) \(copy.count) \(copy.reduce(0) { $0 &* 31 &+ UInt64($1) })")
            return true
        }
        for (key, root) in lists {
            var elements: [UInt64] = []
            try PositionalTree(root: root).forEach(in: r) { _, e in
                elements.append(e.loadUnaligned(as: UInt64.self))
                return true
            }
            out.append("list \(key) \(elements)")
        }
        let directory = BytesTree(root: PageRef(UInt32(r.roots[2])))
        try directory.forEach(from: nil, in: r) { k, v in
            out.append("dir \(Array(k)) \(v.count)")
            if k.elementsEqual(tablesKey) {
                for t in 0..<(v.count / 4) {
                    var entries: [UInt64] = []
                    try KeyedTree(root: PageRef(v.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))).forEach(in: r) { key, value in
                        entries.append(key &* 7 &+ value.loadUnaligned(as: UInt64.self))
                        return true
                    }
                    out.append("table \(t) \(entries)")
                }
            } else {
                out.append("bytes \(v.reduce(0) { $0 &* 31 &+ UInt64($1) })")
            }
            return true
        }
        return out
    }

    static func open(_ path: String, key: [UInt8]? = nil) throws -> StorageFile {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
        file.setRelocator(Relocator())
        return file
    }
}

/// The accounting of a dense file: nothing free, every page meta or reachable.
func expectDense(_ accounting: PageAccounting, livePages: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(accounting.balances, sourceLocation: sourceLocation)
    #expect(accounting.freePages == 0, sourceLocation: sourceLocation)
    #expect(accounting.heldForReaderPages == 0, sourceLocation: sourceLocation)
    #expect(accounting.reachablePages == livePages, sourceLocation: sourceLocation)
    #expect(accounting.totalPages == accounting.metaPages + livePages, sourceLocation: sourceLocation)
}

@Suite("Dense compaction", .serialized)
struct CompactionDenseTests {
    @Test(arguments: [false, true])
    func compactionRenumbersDenselyAndKeepsEverything(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let key: [UInt8]? = encrypted ? testKey : nil
        let file = try Toy.open(path, key: key)
        defer { file.close() }
        try Toy.build(file)
        let before = try Toy.dump(file)
        let accountingBefore = try file.verify()
        // Mostly garbage: free, or held (freed by commits too recent to reuse; FileCore.reuseHorizon).
        #expect(accountingBefore.freePages + accountingBefore.heldForReaderPages > accountingBefore.reachablePages)
        // Live data: the pages the relocation walk reaches (the free list is not live).
        let live = accountingBefore.reachablePages - file.core.freeListPages.count - file.core.overflowPages.count
        let sizeBefore = fileSize(path)

        try file.compact()
        let accounting = try file.verify()
        expectDense(accounting, livePages: live)
        #expect(fileSize(path) == (MetaLayout.headerPages + live) * PageLayout.pageSize)
        #expect(fileSize(path) * 4 < sizeBefore)
        #expect(try Toy.dump(file) == before)
        #expect(access(path + ".compact", F_OK) != 0)

        // The compacted file takes commits and reopens with the same content.
        let w = try file.beginWrite()
        var tree = KeyedTree(root: PageRef(UInt32(w.roots[1])))
        let list = try Toy.makeList(3, seed: 9_998, w)
        try Toy.ownerValue(9_998, list: list, second: .null).withUnsafeBytes { _ = try tree.put(9_998, $0, in: w) }
        w.roots[1] = UInt64(tree.root.raw)
        try w.commit()
        let after = try Toy.dump(file)
        #expect(after.count == before.count + 2)
        file.close()
        let again = try Toy.open(path, key: key)
        defer { again.close() }
        #expect(try Toy.dump(again) == after)
        #expect(try again.verify().balances)
    }

    @Test func denseCopiesKeepTheKeyChangeItOrDropIt() throws {
        let dir = TemporaryDirectory()
        let plainPath = dir.file("plain.strata")
        let source = try Toy.open(plainPath)
        defer { source.close() }
        try Toy.build(source)
        let content = try Toy.dump(source)
        let live = try source.verify().reachablePages - source.core.freeListPages.count - source.core.overflowPages.count
        var newKey = testKey
        newKey[7] ^= 0x5A
        let secret = dir.file("secret.strata")      // plain → encrypted
        let plainAgain = dir.file("plain-again.strata")  // encrypted → plain
        let rekeyed = dir.file("rekeyed.strata")    // encrypted → encrypted (new key)
        try source.writeCopy(toPath: secret, encryptionKey: testKey)
        do {
            let s = try Toy.open(secret, key: testKey)
            defer { s.close() }
            #expect(try Toy.dump(s) == content)
            expectDense(try s.verify(), livePages: live)
            try s.writeCopy(toPath: plainAgain, encryptionKey: nil)
            try s.writeCopy(toPath: rekeyed, encryptionKey: newKey)
        }
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: secret)) } == .wrongKey)
        #expect(storageErrorCode { _ = try StorageFile.open(StorageOptions(path: rekeyed, encryptionKey: testKey)) } == .wrongKey)
        for (path, key) in [(plainAgain, nil), (rekeyed, Optional(newKey))] as [(String, [UInt8]?)] {
            let copy = try Toy.open(path, key: key)
            defer { copy.close() }
            #expect(try Toy.dump(copy) == content)
            expectDense(try copy.verify(), livePages: live)
            #expect(fileSize(path) == (MetaLayout.headerPages + live) * PageLayout.pageSize)
        }
        // No plaintext of the toy data in the encrypted copies.
        let needle = Data(repeating: 0xEE, count: 64)
        for path in [secret, rekeyed] { #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: needle) == nil) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: plainAgain)).range(of: needle) != nil)
        #expect(try Toy.dump(source) == content)
    }

    @Test func aFailedCompactionLeavesTheOriginalIntact() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let content: [String]
        let size: Int
        do {
            // Scoped: a closed handle keeps its core (and the lock file's open marker) until it
            // is released, and compaction would then see the file as open elsewhere.
            let file = try Toy.open(path)
            defer { file.close() }
            try Toy.build(file)
            content = try Toy.dump(file)
            size = fileSize(path)
            try failCompactions(file, path: path, content: content)
        }

        // A reopen sees the original, and compaction then succeeds.
        let again = try Toy.open(path)
        defer { again.close() }
        #expect(try Toy.dump(again) == content)
        try again.compact()
        #expect(fileSize(path) < size)
        #expect(try Toy.dump(again) == content)
    }

    func failCompactions(_ file: StorageFile, path: String, content: [String]) throws {
        let size = fileSize(path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        // The copy's page write fails (EIO), then: the copy is complete and durable but the
        // rename never happens (a crash at that instant leaves the same state on disk).
        file.core.injectedWriteErrno = EIO
        #expect(storageErrorCode { try file.compact() } == .io)
        file.core.injectedCompactionFailureBeforeRename = true
        #expect(storageErrorCode { try file.compact() } == .io)
        for _ in 0..<2 {
            #expect(access(path + ".compact", F_OK) != 0)
            #expect(fileSize(path) == size)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
            #expect(try Toy.dump(file) == content)
            #expect(try file.verify().balances)
            // A disk-full copy fails the same way.
            file.core.injectedWriteErrno = ENOSPC
            #expect(storageErrorCode { try file.compact() } == .diskFull)
        }
    }

    @Test func compactionRefusesWhileInUseAndKeepsTheRelocator() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try Toy.open(path)
        defer { file.close() }
        try Toy.build(file, owners: 60)
        do {
            let other = try StorageFile.open(StorageOptions(path: path))
            #expect(storageErrorCode { try file.compact() } == .fileInUse)
            other.close()
        }
        do {
            // (An ended transaction still holds its core until it is released: scoped.)
            let reader = try file.beginRead()
            #expect(storageErrorCode { try file.compact() } == .fileInUse)
            reader.end()
        }
        try file.compact()
        // The relocator moved with the handle: a second compaction is dense again, and a
        // verify walks through it (a leak would throw).
        let live = try file.verify().reachablePages
        try file.compact()
        expectDense(try file.verify(), livePages: live)
    }

    @Test func randomEditsBetweenRepeatedCompactions() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try Toy.open(path)
        defer { file.close() }
        try Toy.build(file, owners: 200, keepEvery: 3)
        var generator = SplitMix64(seed: 0xC0FFEE)
        var nextKey: UInt64 = 10_000
        for round in 0..<6 {
            // Random edits: new owners (some with overflow values and straddling references),
            // deleted owners with their lists, lists grown in place.
            let w = try file.beginWrite()
            var tree = KeyedTree(root: PageRef(UInt32(w.roots[1])))
            var keys: [UInt64] = []
            try tree.forEach(in: w) { key, _ in keys.append(key); return true }
            for _ in 0..<40 {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let key = nextKey
                    nextKey += 1
                    let list = try Toy.makeList(Int.random(in: 1..<600, using: &generator), seed: key, w)
                    let second = key % 7 == 3 ? try Toy.makeList(3, seed: key + 7, w) : PageRef.null
                    try Toy.ownerValue(key, list: list, second: second).withUnsafeBytes { _ = try tree.put(key, $0, in: w) }
                case 1 where !keys.isEmpty:
                    let key = keys.remove(at: Int.random(in: 0..<keys.count, using: &generator))
                    let roots = try tree.withValue(forKey: key, in: w) { v in
                        (PageRef(v.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                         v.count > Toy.straddleOffset + 4 ? PageRef(v.loadUnaligned(fromByteOffset: Toy.straddleOffset, as: UInt32.self)) : .null)
                    }
                    if let roots {
                        var a = PositionalTree(root: roots.0)
                        try a.destroy(in: w)
                        var b = PositionalTree(root: roots.1)
                        try b.destroy(in: w)
                    }
                    _ = try tree.remove(key, in: w)
                default:
                    guard let key = keys.randomElement(using: &generator) else { continue }
                    guard var value = try tree.withValue(forKey: key, in: w, { Array($0) }) else { continue }
                    var list = PositionalTree(root: PageRef(value.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) }))
                    for j in 0..<Int.random(in: 1..<200, using: &generator) { try list.appendUInt64(UInt64(j), in: w) }
                    value.withUnsafeMutableBytes { $0.storeBytes(of: list.root.raw.littleEndian, toByteOffset: 8, as: UInt32.self) }
                    try value.withUnsafeBytes { _ = try tree.put(key, $0, in: w) }
                }
            }
            w.roots[1] = UInt64(tree.root.raw)
            try w.commit()
            let before = try Toy.dump(file)
            #expect(try file.verify().balances, "round \(round)")
            try file.compact()
            #expect(try Toy.dump(file) == before, "round \(round)")
            let accounting = try file.verify()
            expectDense(accounting, livePages: accounting.reachablePages)
            #expect(fileSize(path) == accounting.totalPages * PageLayout.pageSize)
        }
    }

    @Test func anEmptyVersionCompactsToTheMetaRing() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try Toy.open(path)
        defer { file.close() }
        let w = try file.beginWrite()
        w.roots[5] = 7  // no tree of the plan
        try w.commit()
        try file.compact()
        #expect(fileSize(path) == MetaLayout.headerBytes)
        expectDense(try file.verify(), livePages: 0)
    }
}

@Suite("Dense compaction: bad plans and damaged references")
struct CompactionDenseBadInputTests {
    struct FixedPlanRelocator: PageRelocating {
        let trees: [(word: Int, role: TreeRole)]
        let references: ValueReferences
        let failure: (any Error & Sendable)?
        init(trees: [(word: Int, role: TreeRole)], references: ValueReferences, failure: (any Error & Sendable)? = nil) {
            self.trees = trees
            self.references = references
            self.failure = failure
        }
        func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan {
            if let failure { throw failure }
            return Plan(rootTrees: trees, references: references)
        }
        struct Plan: RelocationPlan {
            let rootTrees: [(word: Int, role: TreeRole)]
            let references: ValueReferences
            func valueReferences(for role: TreeRole) -> ValueReferences { role == Toy.owners ? references : .none }
            func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, role: TreeRole) throws -> [EmbeddedRoot] {
                [EmbeddedRoot(offset: 0, role: Toy.list)]
            }
        }
    }
    struct PlanFailure: Error {}

    /// A small toy file plus the path of a copy destination.
    func withToyFile(_ body: (StorageFile, String) throws -> Void) throws {
        let dir = TemporaryDirectory()
        let file = try Toy.open(dir.file())
        defer { file.close() }
        try Toy.build(file, owners: 40)
        try body(file, dir.file("copy.strata"))
        #expect(access(dir.file("copy.strata"), F_OK) != 0)  // never left behind
    }

    @Test func aRootWordOutsideTheUserRootsIsAnInvalidArgument() throws {
        try withToyFile { file, copy in
            file.setRelocator(FixedPlanRelocator(trees: [(UserRoots.count, Toy.owners)], references: .none))
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .invalidArgument)
        }
    }

    @Test func aPlanThatFailsIsACorruptFile() throws {
        try withToyFile { file, copy in
            file.setRelocator(FixedPlanRelocator(trees: [], references: .none, failure: PlanFailure()))
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .corruptFile)
            #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
        }
    }

    @Test func aReferenceToGarbageIsACorruptFile() throws {
        try withToyFile { file, copy in
            // Offset 0 of an owner value is its id (0, 10, 20, …): small page numbers that are
            // meta pages, free pages or pages of other trees — never a valid list root.
            file.setRelocator(FixedPlanRelocator(trees: [(1, Toy.owners)],
                                                 references: .fixed([EmbeddedRoot(offset: 0, role: Toy.list)])))
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .corruptFile)
            #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
            // And a root word that is not a tree (the opaque marker) lies outside the file.
            file.setRelocator(FixedPlanRelocator(trees: [(0, Toy.table)], references: .none))
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .corruptFile)
        }
    }

    @Test func aTreeReachedTwiceIsACorruptFile() throws {
        try withToyFile { file, copy in
            file.setRelocator(FixedPlanRelocator(trees: [(1, Toy.owners), (1, Toy.owners)], references: .none))
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .corruptFile)
            #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
        }
    }

    @Test func aPlanThatMissesTreesIsRefused() throws {
        try withToyFile { file, copy in
            // Without the lists and the directory, their pages are neither reachable nor free:
            // verify fails, and a copy refuses instead of silently dropping them.
            file.setRelocator(FixedPlanRelocator(trees: [(1, Toy.owners)], references: .none))
            #expect(storageErrorCode { _ = try file.verify() } == .corruptFile)
            #expect(storageErrorCode { try file.writeCopy(toPath: copy, encryptionKey: nil) } == .corruptFile)
            let content = try Toy.dump(file)
            #expect(storageErrorCode { try file.compact() } == .corruptFile)
            #expect(try Toy.dump(file) == content)
        }
    }
}

@Suite("Dense copy verification")
struct CompactionCopyVerificationTests {
    /// A dense copy of a toy file, its roots and page count.
    func makeCopy(_ dir: TemporaryDirectory, key: [UInt8]?) throws -> (path: String, roots: UserRoots, pages: Int) {
        let source = try Toy.open(dir.file("source.strata"))
        defer { source.close() }
        try Toy.build(source, owners: 80)
        let path = dir.file("copy.strata")
        try source.writeCopy(toPath: path, encryptionKey: key)
        let copy = try StorageFile.open(StorageOptions(path: path, encryptionKey: key))
        defer { copy.close() }
        let reader = try copy.beginRead()
        defer { reader.end() }
        return (path, reader.roots, fileSize(path) / PageLayout.pageSize)
    }

    func verify(_ path: String, _ roots: UserRoots, _ pages: Int, key: [UInt8]?,
                relocator: any PageRelocating = Toy.Relocator()) -> StorageError.Code? {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let cipher = key.flatMap { try? PageCipher(key: $0, path: path) }
        return storageErrorCode {
            try FileCore.verifyDenseCopy(fd: fd, pageCount: pages, roots: roots, cipher: cipher, relocator: relocator, path: path)
        }
    }

    @Test(arguments: [false, true])
    func aGoodCopyVerifiesAndADamagedOneDoesNot(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let key: [UInt8]? = encrypted ? testKey : nil
        let (path, roots, pages) = try makeCopy(dir, key: key)
        #expect(verify(path, roots, pages, key: key) == nil)
        // A page count that claims one more page: the walk does not reach it.
        #expect(verify(path, roots, pages + 1, key: key) == .corruptFile)
        // A plan that sees a reference where the copy holds data (owner ids): rejected.
        let wrong = CompactionDenseBadInputTests.FixedPlanRelocator(
            trees: [(1, Toy.owners)], references: .fixed([EmbeddedRoot(offset: 0, role: Toy.list)]))
        #expect(verify(path, roots, pages, key: key, relocator: wrong) == .corruptFile)
        // One flipped byte in the last page.
        let fd = open(path, O_RDWR)
        var byte: UInt8 = 0
        let offset = off_t((pages - 1) * PageLayout.pageSize + 2000)
        #expect(pread(fd, &byte, 1, offset) == 1)
        byte ^= 0x10
        #expect(pwrite(fd, &byte, 1, offset) == 1)
        close(fd)
        #expect(verify(path, roots, pages, key: key) == .corruptPage)
    }
}
