// `KeyedTree`'s leaf-at-a-time field scans (Trees/KeyedTreeField.swift) against `forEach` with the field decoded
// from each whole value the way the object layer's row view decodes it: on packed leaves (rows
// like the sensors' readings, appended with packing), slotted leaves, values of mixed lengths
// (short ones whose field or null byte lies past their end), values in overflow pages, and every
// field width and null bit. `KeyedTree.allKeys` (Trees/KeyedTreeKeys.swift) against the keys
// `forEach` visits, on the same trees.
import Foundation
import Testing
@testable import StrataStorage

@Suite struct TreeFieldScanTests {
    /// What the row view reads: nil when the null bit is set (or past the end), 0 when the field
    /// runs past the value's end, else its little-endian bits.
    static func expected(_ value: UnsafeRawBufferPointer, _ f: FixedField) -> UInt64? {
        if f.nullMask != 0 && (f.nullByte >= value.count || value[f.nullByte] & f.nullMask != 0) { return nil }
        guard f.offset + f.width <= value.count else { return 0 }
        var bits: UInt64 = 0
        for b in 0..<f.width { bits |= UInt64(value[f.offset + b]) << (8 * UInt64(b)) }
        return bits
    }

    static func expectSame(_ tree: KeyedTree, _ pages: TreeTestPages, _ what: String) throws {
        var keys: [UInt64] = []
        try tree.forEach(in: pages) { key, _ in
            keys.append(key)
            return true
        }
        #expect(try tree.allKeys(in: pages) == keys, "\(what): every key, in order")
        let fields = [FixedField(offset: 1, width: 8), FixedField(offset: 9, width: 8, nullByte: 0, nullMask: 1),
                      FixedField(offset: 17, width: 4, nullByte: 0, nullMask: 4), FixedField(offset: 3, width: 1),
                      FixedField(offset: 21, width: 8, nullByte: 0, nullMask: 0x80), FixedField(offset: 0, width: 2, nullByte: 40, nullMask: 1),
                      // Null bits in a byte the packed rows hold constant (0x5A): never set, always set.
                      FixedField(offset: 1, width: 8, nullByte: 17, nullMask: 0x01), FixedField(offset: 1, width: 8, nullByte: 17, nullMask: 0x02)]
        for field in fields {
            var want: [String] = []
            try tree.forEach(in: pages) { key, value in
                want.append("\(key) \(expected(value, field).map(String.init) ?? "nil")")
                return true
            }
            // A leaf at a time: the same values in the same order, without keys and nulls.
            var batched: [String] = []
            try tree.forEachFieldValues(field, in: pages) { values in batched += values.map(String.init) }
            let present = want.compactMap { line -> String? in
                let bits = line.split(separator: " ")[1]
                return bits == "nil" ? nil : String(bits)
            }
            #expect(batched == present, "\(what), by leaf: field at \(field.offset) width \(field.width) null byte \(field.nullByte) mask \(field.nullMask)")
            // A leaf at a time with keys and nulls: every entry, as the row view decodes it.
            var leaves: [String] = []
            try tree.forEachFieldLeaf(field, in: pages) { keys, bits, isNull in
                #expect(keys.count == bits.count && keys.count == isNull.count)
                for i in 0..<keys.count { leaves.append("\(keys[i]) \(isNull[i] ? "nil" : String(bits[i]))") }
            }
            #expect(leaves == want, "\(what), by leaf with keys: field at \(field.offset) width \(field.width) null \(field.nullMask)")
        }
    }

    @Test func packedRowsAppendedWithPacking() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var random = SystemRandomNumberGenerator()
        for i in 0..<UInt64(6_000) {
            var row = [UInt8](repeating: 0, count: 29)
            // Null bits that vary, a counter, a constant and a noisy value: stored and constant planes.
            row[0] = UInt8(i % 7 == 0 ? 1 : 0) | UInt8(i % 5 == 0 ? 4 : 0)
            withUnsafeBytes(of: i.littleEndian) { for b in 0..<8 { row[1 + b] = $0[b] } }
            withUnsafeBytes(of: UInt64.random(in: 0..<1_000, using: &random).littleEndian) { for b in 0..<8 { row[9 + b] = $0[b] } }
            row[17] = 0x5A
            try row.withUnsafeBytes { _ = try tree.put(10 + i * 3, $0, packing: true, in: pages) }
        }
        let census = try PackedTestSupport.census(tree, pages)
        #expect((census.kinds[TreePageKind.keyedPackedLeaf] ?? 0) > 10, "the rows reached packed leaves")
        try Self.expectSame(tree, pages, "packed")
    }

    @Test func slottedRowsOfMixedLengthsAndOverflowValues() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        var random = SystemRandomNumberGenerator()
        for i in 0..<UInt64(3_000) {
            // Lengths from empty to past a page: short values end before the fields.
            let length = i % 97 == 0 ? 6_000 : Int(i % 40)
            let row = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            try row.withUnsafeBytes { _ = try tree.put(i * 11, $0, in: pages) }
        }
        try Self.expectSame(tree, pages, "slotted")
        let empty = KeyedTree()
        var none = 0
        try empty.forEachFieldValues(FixedField(offset: 0, width: 8), in: pages) { values in none += 1 + values.count }
        try empty.forEachFieldLeaf(FixedField(offset: 0, width: 8), in: pages) { keys, _, _ in none += 1 + keys.count }
        #expect(none == 0)
        #expect(try empty.allKeys(in: pages) == [])
        try tree.destroy(in: pages)
        _ = empty
    }

    @Test func aDamagedLeafThrows() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        for i in 0..<UInt64(400) { try [UInt8](repeating: 1, count: 20).withUnsafeBytes { _ = try tree.put(i, $0, in: pages) } }
        pages.commit()
        // The root's page kind overwritten: the scan throws corruptFile, it does not read on.
        let root = try #require(pages.rawPage(tree.root))
        root.storeBytes(of: 0xDB, as: UInt8.self)
        let error = #expect(throws: StorageError.self) { try tree.forEachFieldValues(FixedField(offset: 0, width: 8), in: pages) { _ in } }
        #expect(error?.code == .corruptFile)
        let leafError = #expect(throws: StorageError.self) { try tree.forEachFieldLeaf(FixedField(offset: 0, width: 8), in: pages) { _, _, _ in } }
        #expect(leafError?.code == .corruptFile)
        let keysError = #expect(throws: StorageError.self) { _ = try tree.allKeys(in: pages) }
        #expect(keysError?.code == .corruptFile)
    }

    /// A slotted leaf's own loop checks each cell as the general parser does: a slot that points
    /// outside the cell area, or an inline value longer than the rest of the page, is a damaged
    /// page (corruptFile), not bytes read from past the cell or the page.
    @Test func aSlottedLeafWithADamagedCellThrows() throws {
        for damage in ["slot before the cell area", "slot past the page", "inline length past the page"] {
            let pages = TreeTestPages()
            var tree = KeyedTree()
            for i in 0..<UInt64(10) { try [UInt8](repeating: 1, count: 20).withUnsafeBytes { _ = try tree.put(i, $0, in: pages) } }
            pages.commit()
            let leaf = try #require(pages.rawPage(tree.root))
            let slot = TreeLayout.headerSize + 4 * TreeLayout.slotSize
            let cell = Int(UInt16(littleEndian: leaf.loadUnaligned(fromByteOffset: slot, as: UInt16.self)))
            switch damage {
            case "slot before the cell area":
                // Into the free gap below the cells, where an empty value's header is written: a
                // scan that did not check the slot against the cell area would read it as a row.
                let gap = Int(UInt16(littleEndian: leaf.loadUnaligned(fromByteOffset: TreeLayout.cellStartOffset, as: UInt16.self))) - 16
                #expect(gap >= TreeLayout.headerSize + 10 * TreeLayout.slotSize)
                leaf.storeBytes(of: UInt32(0), toByteOffset: gap + 8, as: UInt32.self)
                leaf.storeBytes(of: UInt16(gap).littleEndian, toByteOffset: slot, as: UInt16.self)
            case "slot past the page": leaf.storeBytes(of: UInt16(TreeLayout.payloadSize - 4).littleEndian, toByteOffset: slot, as: UInt16.self)
            default: leaf.storeBytes(of: UInt32(TreeLayout.payloadSize).littleEndian, toByteOffset: cell + 8, as: UInt32.self)
            }
            for field in [FixedField(offset: 0, width: 8), FixedField(offset: 2, width: 4, nullByte: 0, nullMask: 1)] {
                let error = #expect(throws: StorageError.self, "\(damage), width \(field.width)") {
                    try tree.forEachFieldValues(field, in: pages) { _ in }
                }
                #expect(error?.code == .corruptFile, "\(damage)")
            }
        }
    }
}
