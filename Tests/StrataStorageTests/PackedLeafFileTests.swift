// Packed keyed leaves in real files: reopen, verify, dense compaction, encryption, and size
// against the same load unpacked; a relocation plan that claims references in packed values
// is refused.

import Foundation
import Testing
@testable import StrataStorage

// MARK: - Files

/// The plan of the packed file tests: user root 1 is a KeyedTree whose values hold no references.
struct PackedRowsRelocator: PageRelocating {
    struct Plan: RelocationPlan {
        var rootTrees: [(word: Int, role: TreeRole)] { [(1, TreeRole(kind: 21))] }
        func valueReferences(for role: TreeRole) -> ValueReferences { .none }
        func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, role: TreeRole) throws -> [EmbeddedRoot] { [] }
    }

    func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan { Plan() }
}

/// A plan that (wrongly) declares page references in the values of the packed tree.
struct PackedRowsWithReferencesRelocator: PageRelocating {
    let references: ValueReferences
    struct Plan: RelocationPlan {
        let references: ValueReferences
        var rootTrees: [(word: Int, role: TreeRole)] { [(1, TreeRole(kind: 21))] }
        func valueReferences(for role: TreeRole) -> ValueReferences { role.kind == 21 ? references : .none }
        func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, role: TreeRole) throws -> [EmbeddedRoot] {
            [EmbeddedRoot(offset: 9, role: TreeRole(kind: 22))]
        }
    }

    func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan { Plan(references: references) }
}

@Suite("Packed leaves in files", .serialized)
struct PackedLeafFileTests {
    typealias S = PackedTestSupport
    static let rows = 100_000

    static func key(_ i: Int) -> UInt64 { 1 + 2 * UInt64(i) + (i % 3 == 0 ? 1 : 0) }
    static func time(_ i: Int) -> UInt64 { 1_700_000_000_000 + UInt64(i / 1_000) * 1_000 }
    static func row(_ i: Int) -> [UInt8] { S.row(counter: UInt64(i), time: time(i), noise: S.noise(UInt64(i))) }

    /// `extents`: transactions allocate extents, so append splits place full nodes apart
    /// (`WriteTransaction.placesFullNodesApart`, as files flushed per commit do).
    static func open(_ path: String, key: [UInt8]?, extents: Bool = false) throws -> StorageFile {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe, encryptionKey: key))
        file.core.allocatesExtents = extents
        file.setRelocator(PackedRowsRelocator())
        return file
    }

    /// 100,000 rows in transactions of 10,000 (batches of 1,000 sharing a timestamp).
    static func load(_ path: String, key: [UInt8]?, packing: Bool, extents: Bool) throws {
        let file = try open(path, key: key, extents: extents)
        defer { file.close() }
        for t in 0..<(rows / 10_000) {
            let w = try file.beginWrite()
            var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: w.roots[1])))
            for b in 0..<10 {
                let first = t * 10_000 + b * 1_000
                let keys = (first..<first + 1_000).map(Self.key)
                let values = (first..<first + 1_000).map(Self.row)
                let added = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: keys, values: $0, packing: packing, in: w) }
                #expect(added == 1_000)
            }
            w.roots[1] = UInt64(tree.root.raw)
            try w.commit()
        }
    }

    /// Every row (by scan and by lookup), the count, and balanced accounting.
    static func check(_ file: StorageFile, _ model: [UInt64: [UInt8]], packed: Bool, _ context: String) throws {
        let reader = try file.beginRead()
        let tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: reader.roots[1])))
        #expect(try tree.count(in: reader) == model.count, "\(context)")
        var seen = 0, wrong = 0
        var previous: UInt64?
        try tree.forEach(in: reader) { k, v in
            if model[k] != Array(v) { wrong += 1 }
            if let previous, previous >= k { wrong += 1 }
            previous = k
            seen += 1
            return true
        }
        #expect(seen == model.count && wrong == 0, "\(context): \(seen) seen, \(wrong) wrong")
        var lookups = 0
        for (k, v) in model where k % 7 == 0 {
            if try tree.withValue(forKey: k, in: reader, { Array($0) }) != v { wrong += 1 }
            lookups += 1
        }
        #expect(wrong == 0 && lookups >= model.count / 10, "\(context): lookups")
        #expect(try TreeShapeCheck.keyed(tree, reader) == [], "\(context)")
        let census = try S.census(tree, reader)
        if packed {
            #expect((census.kinds[TreePageKind.keyedPackedLeaf] ?? 0) >= model.count / 2_000, "\(context): \(census.kinds)")
            #expect(census.packedEntries * 100 >= model.count * 95, "\(context): \(census.packedEntries) packed entries")
        } else {
            #expect(census.kinds[TreePageKind.keyedPackedLeaf] == nil, "\(context): packed leaves without packing")
        }
        #expect(try S.packedLayoutProblems(tree, reader) == [], "\(context)")
        reader.end()
        let accounting = try file.verify()
        #expect(accounting.balances, "\(context): \(accounting)")
    }

    /// Packed leaves never hold page references: a plan that says the tree's values do is
    /// refused with `.corruptFile` by verify and compaction, and the file stays as it was.
    @Test func aPlanWithReferencesInPackedValuesIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var model: [UInt64: [UInt8]] = [:]
        do {
            let file = try Self.open(path, key: nil)
            defer { file.close() }
            let w = try file.beginWrite()
            var tree = KeyedTree()
            let keys = (0..<5_000).map(Self.key)
            let values = (0..<5_000).map(Self.row)
            _ = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: keys, values: $0, packing: true, in: w) }
            for (k, v) in zip(keys, values) { model[k] = v }
            w.roots[1] = UInt64(tree.root.raw)
            try w.commit()
        }
        let size = fileSize(path)
        for references in [ValueReferences.fixed([EmbeddedRoot(offset: 9, role: TreeRole(kind: 22))]), .variable] {
            let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe))
            file.setRelocator(PackedRowsWithReferencesRelocator(references: references))
            #expect(storageErrorCode { _ = try file.verify() } == .corruptFile, "\(references): verify")
            #expect(storageErrorCode { try file.compact() } == .corruptFile, "\(references): compact")
            file.close()
            #expect(fileSize(path) == size)
        }
        let file = try Self.open(path, key: nil)
        defer { file.close() }
        try Self.check(file, model, packed: true, "after the refused compactions")
    }

    @Test(arguments: [false, true], [false, true])
    func aPackedFileReopensCompactsAndStaysSmall(encrypted: Bool, extents: Bool) throws {
        let dir = TemporaryDirectory()
        let key: [UInt8]? = encrypted ? testKey : nil
        let packedPath = dir.file("packed.strata")
        let plainPath = dir.file("slotted.strata")
        var model: [UInt64: [UInt8]] = [:]
        for i in 0..<Self.rows { model[Self.key(i)] = Self.row(i) }

        try Self.load(packedPath, key: key, packing: true, extents: extents)
        try Self.load(plainPath, key: key, packing: false, extents: extents)
        /// Reopens, checks, compacts and checks again; the used bytes before compaction.
        func reopenAndCompact(_ path: String, packed: Bool) throws -> Int {
            let name = packed ? "packed" : "slotted"
            let file = try Self.open(path, key: key)
            defer { file.close() }
            try Self.check(file, model, packed: packed, "\(name), reopened")
            let used = try file.sizes().usedBytes
            try file.compact()
            try Self.check(file, model, packed: packed, "\(name), compacted")
            return used
        }
        let loadedPacked = try reopenAndCompact(packedPath, packed: true)
        let loadedPlain = try reopenAndCompact(plainPath, packed: false)
        let packedSize = fileSize(packedPath), plainSize = fileSize(plainPath)
        #expect(Double(packedSize) <= 0.6 * Double(plainSize),
                "compacted files: packed \(packedSize) bytes, slotted \(plainSize)")
        #expect(Double(loadedPacked) <= 0.6 * Double(loadedPlain), "used bytes as loaded: packed \(loadedPacked), slotted \(loadedPlain)")

        // Edits of the compacted packed file (packed pages copied by the transaction), then a
        // reopen: replacements of varying and constant bytes, removals, appends.
        do {
            let file = try Self.open(packedPath, key: key, extents: extents)
            defer { file.close() }
            let w = try file.beginWrite()
            var tree = KeyedTree(root: PageRef(UInt32(truncatingIfNeeded: w.roots[1])))
            var rng = SplitMix64(seed: encrypted ? 8 : 9)
            for _ in 0..<300 {
                let i = Int.random(in: 0..<Self.rows, using: &rng)
                var value = Self.row(i)
                value[1] ^= 0x5A
                if Bool.random(using: &rng) { value[0] = 7 }
                _ = try value.withUnsafeBytes { try tree.put(Self.key(i), $0, in: w) }
                model[Self.key(i)] = value
            }
            let drop = (40_000..<42_500).map(Self.key)
            #expect(try tree.removeSorted(drop, in: w) == drop.count)
            for k in drop { model[k] = nil }
            let appended = (Self.rows..<Self.rows + 3_000).map(Self.key)
            let values = (Self.rows..<Self.rows + 3_000).map(Self.row)
            _ = try TreeBatchTests.withBuffers(values) { try tree.putSorted(keys: appended, values: $0, packing: true, in: w) }
            for (k, v) in zip(appended, values) { model[k] = v }
            w.roots[1] = UInt64(tree.root.raw)
            try w.commit()
            try Self.check(file, model, packed: true, "packed, edited")
        }
        let file = try Self.open(packedPath, key: key)
        defer { file.close() }
        try Self.check(file, model, packed: true, "packed, edited and reopened")
        try file.compact()
        try Self.check(file, model, packed: true, "packed, edited and compacted")
    }
}
