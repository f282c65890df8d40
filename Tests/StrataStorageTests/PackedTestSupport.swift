// Shared helpers of the packed-leaf tests (PackedLeafTests, PackedLeafTreeTests,
// PackedLeafFileTests): writing and reading packed pages, rows like the sensors' readings,
// and a census of a tree's page kinds.

import Foundation
import Testing
@testable import StrataStorage

// MARK: - Helpers

/// One page payload for format tests, prefilled with `fill`.
final class PackedPage {
    let base: UnsafeMutableRawPointer

    init(fill: UInt8 = 0) {
        base = .allocate(byteCount: TreeLayout.payloadSize, alignment: 8)
        base.initializeMemory(as: UInt8.self, repeating: fill, count: TreeLayout.payloadSize)
    }

    deinit { base.deallocate() }

    var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: TreeLayout.payloadSize)) }

    func leaf() throws -> PackedLeaf { try PackedLeaf(ref: PageRef(77), base: UnsafeRawPointer(base)) }
}

enum PackedTestSupport {
    /// `PackedLeafWriter.write` of `keys` and `values` (each `length` bytes) to `page`.
    @discardableResult
    static func write(_ keys: [UInt64], _ values: [[UInt8]], length: Int, to page: UnsafeMutableRawPointer) -> Int {
        precondition(values.allSatisfy { $0.count == length })
        let flat = values.flatMap { $0 }
        return flat.withUnsafeBytes { raw in
            let start = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!
            let pointers = (0..<values.count).map { start + $0 * length }
            return keys.withUnsafeBufferPointer { k in
                pointers.withUnsafeBufferPointer { v in
                    PackedLeafWriter.write(keys: k, values: v, valueLength: length, to: page)
                }
            }
        }
    }

    static func keys(_ leaf: PackedLeaf) -> [UInt64] { (0..<leaf.count).map { leaf.key($0) } }

    static func value(_ leaf: PackedLeaf, _ i: Int) -> [UInt8] { leaf.withValue(i) { Array($0) } }

    /// Entry `i` through `copyValue` (the other read path).
    static func copiedValue(_ leaf: PackedLeaf, _ i: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: leaf.valueLength + 1)
        out.withUnsafeMutableBytes { leaf.copyValue(i, to: $0.baseAddress!) }
        #expect(out.last == 0xEE, "copyValue wrote past the value")
        return Array(out.dropLast())
    }

    /// The documented invariant the reader does not check: slots count..<capacity of every
    /// column (key offsets, stored planes) are zero.
    static func layoutProblems(_ leaf: PackedLeaf) -> [String] {
        var problems: [String] = []
        for i in leaf.count..<leaf.capacity where leaf.keyOffset(i) != 0 {
            problems.append("\(leaf.ref): key slot \(i) of \(leaf.count)..<\(leaf.capacity) not zero")
            break
        }
        for j in 0..<leaf.valueLength where leaf.isStored(plane: j)
            && leaf.base.load(fromByteOffset: leaf.templateOffset + j, as: UInt8.self) != 0 {
            problems.append("\(leaf.ref): template byte of stored plane \(j) not zero")
            break
        }
        var plane = leaf.planesOffset
        for j in 0..<leaf.valueLength where leaf.isStored(plane: j) {
            for i in leaf.count..<leaf.capacity where leaf.base.load(fromByteOffset: plane + i, as: UInt8.self) != 0 {
                problems.append("\(leaf.ref): plane \(j) slot \(i) of \(leaf.count)..<\(leaf.capacity) not zero")
                break
            }
            plane += leaf.capacity
        }
        return problems
    }

    /// Where `probe` is or would be in `keys` (ascending).
    static func expectedSearch(_ keys: [UInt64], _ probe: UInt64) -> (index: Int, found: Bool) {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < probe { low = mid + 1 } else { high = mid }
        }
        return (low, low < keys.count && keys[low] == probe)
    }

    /// A row of the sensors' kind (25 bytes): a constant flag, a double-ish measurement whose
    /// two low bytes vary, an 8-byte counter and an 8-byte per-batch timestamp.
    static let rowLength = 25

    static func row(counter: UInt64, time: UInt64, noise: UInt16, flag: UInt8 = 1) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: rowLength)
        r[0] = flag
        let measurement: UInt64 = 0x4034_5A00_0000_0000 | UInt64(noise)
        for b in 0..<8 {
            r[1 + b] = UInt8(truncatingIfNeeded: measurement >> (8 * UInt64(b)))
            r[9 + b] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(b)))
            r[17 + b] = UInt8(truncatingIfNeeded: time >> (8 * UInt64(b)))
        }
        return r
    }

    static func noise(_ i: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: (i &* 0x9E37_79B9_7F4A_7C15) >> 48) }

    /// Every page of the tree by kind, and the entries held in packed leaves.
    static func census(_ tree: KeyedTree, _ pages: some PageReading) throws -> (total: Int, kinds: [UInt8: Int], packedEntries: Int) {
        var total = 0, packedEntries = 0
        var kinds: [UInt8: Int] = [:]
        try TreePages.forEachPage(ofTreeAt: tree.root, in: pages) { ref in
            let base = try pages.readPage(ref)
            let kind = base.load(as: UInt8.self)
            total += 1
            kinds[kind, default: 0] += 1
            if kind == TreePageKind.keyedPackedLeaf { packedEntries += try PackedLeaf(ref: ref, base: base).count }
        }
        return (total, kinds, packedEntries)
    }

    /// The packed leaves of the tree (refs), left to right.
    static func packedLeaves(_ tree: KeyedTree, _ pages: some PageReading) throws -> [PageRef] {
        var out: [PageRef] = []
        try TreePages.forEachPage(ofTreeAt: tree.root, in: pages) { ref in
            if try pages.readPage(ref).load(as: UInt8.self) == TreePageKind.keyedPackedLeaf { out.append(ref) }
        }
        return out
    }

    /// `layoutProblems` of every packed leaf of the tree.
    static func packedLayoutProblems(_ tree: KeyedTree, _ pages: some PageReading) throws -> [String] {
        var problems: [String] = []
        for ref in try packedLeaves(tree, pages) {
            problems += layoutProblems(try PackedLeaf(ref: ref, base: try pages.readPage(ref)))
        }
        return problems
    }
}
