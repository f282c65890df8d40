// Packed keyed leaves (PackedLeaf.swift): the format round trip (writer, reader, search,
// overwrite, in-place edits, the sizer) and typed errors for corrupt pages, alone and in a tree.

import Foundation
import Testing
@testable import StrataStorage

// MARK: - Format

@Suite("Packed leaves")
struct PackedLeafTests {
    typealias S = PackedTestSupport

    struct FormatCase: CustomStringConvertible {
        var name: String
        var keys: [UInt64]
        var values: [[UInt8]]
        var length: Int
        var description: String { name }
    }

    /// `n` values of `length` bytes equal to one random base value except at `varying` planes.
    static func values(_ n: Int, length: Int, varying: [Int], _ rng: inout SplitMix64) -> [[UInt8]] {
        let base = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return (0..<n).map { _ in
            var v = base
            for j in varying { v[j] = UInt8.random(in: 0...255, using: &rng) }
            return v
        }
    }

    static func formatCases() -> [FormatCase] {
        var rng = SplitMix64(seed: 99)
        var cases: [FormatCase] = []
        cases.append(FormatCase(name: "rows", keys: (0..<300).map { 1000 + 3 * UInt64($0) },
                                values: values(300, length: 25, varying: [1, 2, 9, 10], &rng), length: 25))
        cases.append(FormatCase(name: "empty values", keys: (0..<1000).map { UInt64($0) },
                                values: Array(repeating: [], count: 1000), length: 0))
        // Six: the page also holds the 512-byte template row.
        cases.append(FormatCase(name: "512 bytes, all varying", keys: [10, 11, 13, 20, 40, 60],
                                values: values(6, length: 512, varying: Array(0..<512), &rng), length: 512))
        cases.append(FormatCase(name: "512 bytes, 40 varying", keys: (0..<50).map { 5 + UInt64($0) },
                                values: values(50, length: 512, varying: Array(100..<140), &rng), length: 512))
        cases.append(FormatCase(name: "wide spans", keys: (0..<100).map { 7 + UInt64($0) * 50_000 },
                                values: values(100, length: 25, varying: [3, 4, 5], &rng), length: 25))
        cases.append(FormatCase(name: "huge spans", keys: (1...100).map { UInt64($0) << 40 },
                                values: values(100, length: 16, varying: Array(0..<8), &rng), length: 16))
        cases.append(FormatCase(name: "top of the key space", keys: (0..<5).map { UInt64.max - 4 + UInt64($0) },
                                values: values(5, length: 512, varying: Array(0..<512), &rng), length: 512))
        cases.append(FormatCase(name: "0 and max", keys: [0, UInt64.max], values: values(2, length: 8, varying: [7], &rng), length: 8))
        cases.append(FormatCase(name: "single", keys: [42], values: values(1, length: 25, varying: [], &rng), length: 25))
        cases.append(FormatCase(name: "constant values", keys: (0..<400).map { 1 << 20 + UInt64($0) * 2 },
                                values: values(400, length: 30, varying: [], &rng), length: 30))
        // As many rows as the sizer admits: a full page.
        var sizer = PackedLeafSizer(valueLength: 25)
        var keys: [UInt64] = []
        var rows: [[UInt8]] = []
        var key: UInt64 = 1 << 33
        let candidates = values(5000, length: 25, varying: [0, 7, 13, 24], &rng)
        for v in candidates {
            key += UInt64.random(in: 1...2, using: &rng)
            let added = v.withUnsafeBytes { sizer.add(key: key, value: $0) }
            // The sizer keeps a pointer to its first value; the candidates outlive it.
            if !added { break }
            keys.append(key)
            rows.append(v)
        }
        cases.append(FormatCase(name: "full page", keys: keys, values: rows, length: 25))
        return cases
    }

    @Test func writerAndReaderRoundTrip() throws {
        var widths = Set<Int>()
        for c in Self.formatCases() {
            let n = c.keys.count
            let page = PackedPage(fill: 0xA5)
            let size = S.write(c.keys, c.values, length: c.length, to: page.base)
            // Nothing of the buffer's previous bytes survives: the page is a function of the entries.
            let clean = PackedPage(fill: 0)
            S.write(c.keys, c.values, length: c.length, to: clean.base)
            #expect(page.bytes == clean.bytes, "\(c): page bytes depend on the buffer's previous contents")

            let leaf = try page.leaf()
            #expect(page.base.load(as: UInt8.self) == TreePageKind.keyedPackedLeaf)
            #expect(leaf.count == n && leaf.valueLength == c.length, "\(c)")
            #expect(leaf.keyBase == c.keys[0], "\(c)")
            #expect([1, 2, 4, 8].contains(leaf.keyWidth), "\(c)")
            #expect(leaf.keyWidth >= PackedLayout.keyWidth(span: c.keys[n - 1] - c.keys[0]), "\(c): key width \(leaf.keyWidth) too narrow")
            widths.insert(leaf.keyWidth)
            #expect(leaf.capacity >= n, "\(c)")
            #expect(size == PackedLayout.size(count: leaf.capacity, valueLength: c.length, storedPlanes: leaf.storedPlanes,
                                              keyWidth: leaf.keyWidth), "\(c)")
            #expect(size <= TreeLayout.payloadSize, "\(c)")
            #expect(UnsafeRawPointer(page.base).treeU64(TreeLayout.totalOffset) == UInt64(n), "\(c)")
            // A plane is stored exactly when the values differ there.
            var stored = 0
            for j in 0..<c.length {
                let varies = c.values.contains { $0[j] != c.values[0][j] }
                #expect(leaf.isStored(plane: j) == varies, "\(c): plane \(j)")
                if varies { stored += 1 }
            }
            #expect(leaf.storedPlanes == stored, "\(c)")
            #expect(S.layoutProblems(leaf) == [], "\(c)")

            #expect(S.keys(leaf) == c.keys, "\(c)")
            for i in 0..<n {
                #expect(S.value(leaf, i) == c.values[i], "\(c): value \(i)")
                #expect(S.copiedValue(leaf, i) == c.values[i], "\(c): copied value \(i)")
            }
            var probes: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1, c.keys[0] / 2]
            for k in c.keys {
                probes += [k, k &- 1, k &+ 1]
            }
            for probe in probes {
                let (index, found) = leaf.search(probe)
                let expected = S.expectedSearch(c.keys, probe)
                #expect(index == expected.index && found == expected.found,
                        "\(c): search(\(probe)) = (\(index), \(found)), expected \(expected)")
            }

            // The node view of the tree code.
            let node = try TreeNode(ref: PageRef(77), base: UnsafeRawPointer(page.base), flavor: KeyedFlavor.self)
            #expect(node.isPacked && node.isLeaf && node.count == n, "\(c)")
            #expect(storageErrorCode { _ = try TreeNode(ref: PageRef(77), base: UnsafeRawPointer(page.base), flavor: BytesFlavor.self) }
                    == .corruptFile, "\(c): a packed page read as a bytes-tree node")
            #expect(storageErrorCode { _ = try TreeNode(ref: PageRef(77), base: UnsafeRawPointer(page.base), flavor: PositionalFlavor.self) }
                    == .corruptFile, "\(c): a packed page read as a positional node")
        }
        #expect(widths == [1, 2, 4, 8], "key widths seen: \(widths.sorted())")
    }

    @Test func overwriteKeepsEverythingElse() throws {
        var rng = SplitMix64(seed: 5)
        for c in Self.formatCases() {
            let page = PackedPage()
            S.write(c.keys, c.values, length: c.length, to: page.base)
            let leaf = try page.leaf()
            var expected = c.values
            let storedPlanes = (0..<c.length).filter { leaf.isStored(plane: $0) }
            let constantPlanes = (0..<c.length).filter { !leaf.isStored(plane: $0) }
            for i in Set([0, c.keys.count / 2, c.keys.count - 1]) {
                // Only stored bytes change: written in place.
                var replacement = expected[i]
                for j in storedPlanes { replacement[j] = UInt8.random(in: 0...255, using: &rng) }
                try replacement.withUnsafeBytes { bytes in
                    #expect(leaf.canOverwrite(with: bytes), "\(c): \(i)")
                    leaf.overwrite(i, with: bytes, in: page.base)
                    expected[i] = replacement
                    let after = try page.leaf()
                    #expect(S.keys(after) == c.keys, "\(c)")
                    #expect((0..<c.keys.count).allSatisfy { S.value(after, $0) == expected[$0] }, "\(c): after overwriting \(i)")
                }
                // A constant byte changes: refused.
                if let j = constantPlanes.randomElement(using: &rng) {
                    var other = expected[i]
                    other[j] ^= 0x01
                    #expect(!other.withUnsafeBytes { leaf.canOverwrite(with: $0) }, "\(c): constant plane \(j) changed")
                }
                // Other lengths: refused.
                let longer = expected[i] + [0]
                #expect(!longer.withUnsafeBytes { leaf.canOverwrite(with: $0) }, "\(c): longer value")
                if c.length > 0 {
                    let shorter = Array(expected[i].dropLast())
                    #expect(!shorter.withUnsafeBytes { leaf.canOverwrite(with: $0) }, "\(c): shorter value")
                }
            }
            #expect(S.layoutProblems(try page.leaf()) == [], "\(c)")
        }
    }

    /// insert / remove / relaid (new layouts: inserts below the base, replacements, appends,
    /// constants that become stored, wider keys) on a page against an array model: entries,
    /// refusals only when the page cannot hold the result, zeroed free slots.
    @Test(arguments: [UInt64(1), 2, 3])
    func inPlaceEditsMatchAModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let length = 12
        var keys: [UInt64] = (0..<40).map { 1_000 + UInt64($0) * 4 }
        var values = Self.values(40, length: length, varying: [2, 3], &rng)
        let page = PackedPage()
        S.write(keys, values, length: length, to: page.base)
        var inserted = 0, removed = 0, relaid = 0, refused = 0
        for step in 0..<4000 {
            let leaf = try page.leaf()
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 40 {
                // Insert into a gap a value like its neighbours: in place when there is room.
                let key = UInt64.random(in: leaf.keyBase...(keys.last! + 50), using: &rng)
                let (index, found) = leaf.search(key)
                #expect(index == S.expectedSearch(keys, key).index && found == keys.contains(key), "step \(step): search(\(key))")
                guard !found else { continue }
                var value = values[Int.random(in: 0..<values.count, using: &rng)]
                for j in 0..<length where leaf.isStored(plane: j) { value[j] = UInt8.random(in: 0...255, using: &rng) }
                let can = value.withUnsafeBytes { leaf.canInsert(key, $0) }
                let expectCan = leaf.count < leaf.capacity && PackedLayout.keyWidth(span: key - leaf.keyBase) <= leaf.keyWidth
                #expect(can == expectCan, "step \(step): canInsert(\(key)) = \(can)")
                guard can else { continue }
                value.withUnsafeBytes { leaf.insert(key, $0, at: index, in: page.base) }
                keys.insert(key, at: index)
                values.insert(value, at: index)
                inserted += 1
            } else if roll < 60 {
                // Remove a random subset (never all).
                guard keys.count > 1 else { continue }
                let n = min(keys.count - 1, Int.random(in: 1...3, using: &rng))
                let indices = Array(Set((0..<n).map { _ in Int.random(in: 0..<keys.count, using: &rng) })).sorted()
                leaf.remove(indices, in: page.base)
                for i in indices.reversed() {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
                removed += indices.count
            } else {
                // A new layout: an insert anywhere (below the base too, far past the end), or a
                // replacement; sometimes a constant plane changes.
                let replacing = Int.random(in: 0..<3, using: &rng) == 0
                var key: UInt64
                var index: Int
                if replacing {
                    index = Int.random(in: 0..<keys.count, using: &rng)
                    key = keys[index]
                } else {
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: key = keys[0] - min(keys[0], UInt64.random(in: 1...40, using: &rng))
                    case 1: key = keys.last! + UInt64.random(in: 1...6, using: &rng)
                    case 2: key = keys.last! + UInt64.random(in: 300...100_000, using: &rng)
                    default: key = UInt64.random(in: keys[0]...keys.last! + 3, using: &rng)
                    }
                    let (i, found) = S.expectedSearch(keys, key)
                    guard !found else { continue }
                    index = i
                }
                var value = values[min(index, values.count - 1)]
                value[2] = UInt8.random(in: 0...255, using: &rng)
                if Int.random(in: 0..<6, using: &rng) == 0 { value[Int.random(in: 0..<length, using: &rng)] ^= 0x40 }
                let ok = value.withUnsafeBytes { leaf.relaid(key, $0, at: index, replacing: replacing, in: page.base) }
                var result = keys, resultValues = values
                if replacing { resultValues[index] = value } else {
                    result.insert(key, at: index)
                    resultValues.insert(value, at: index)
                }
                // The page cannot hold the result exactly when its narrowest encoding exceeds it.
                let stored = (0..<length).filter { j in leaf.isStored(plane: j) || resultValues.contains { $0[j] != resultValues[0][j] } }.count
                let need = PackedLayout.size(count: result.count, valueLength: length, storedPlanes: stored,
                                             keyWidth: PackedLayout.keyWidth(span: result.last! - min(result[0], leaf.keyBase)))
                #expect(ok == (need <= TreeLayout.payloadSize), "step \(step): relaid = \(ok), narrowest encoding \(need) bytes")
                if ok {
                    keys = result
                    values = resultValues
                    relaid += 1
                } else {
                    refused += 1
                    // Start over with a fresh leaf of the current entries' tail.
                    let keep = max(1, keys.count / 4)
                    keys = Array(keys.suffix(keep))
                    values = Array(values.suffix(keep))
                    S.write(keys, values, length: length, to: page.base)
                }
            }
            let after = try page.leaf()
            #expect(S.keys(after) == keys, "step \(step)")
            #expect((0..<keys.count).allSatisfy { S.value(after, $0) == values[$0] }, "step \(step)")
            #expect(UnsafeRawPointer(page.base).treeU64(TreeLayout.totalOffset) == UInt64(keys.count))
            #expect(S.layoutProblems(after) == [], "step \(step)")
            if keys.count < 3 {
                keys = (0..<40).map { keys[0] + 1 + UInt64($0) * 4 }
                values = Self.values(40, length: length, varying: [2, 3], &rng)
                S.write(keys, values, length: length, to: page.base)
            }
        }
        #expect(inserted > 100 && removed > 100 && relaid > 100 && refused > 0,
                "\(inserted) inserts, \(removed) removals, \(relaid) new layouts, \(refused) refused")
    }

    @Test func sizerAdmitsExactlyWhatFitsAPage() throws {
        var rng = SplitMix64(seed: 11)
        // Empty values, dense keys: width 1 up to a span of 255, then 2; the page holds
        // (payload − 24) / 2 two-byte offsets.
        var empty = PackedLeafSizer(valueLength: 0)
        var key: UInt64 = 0
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        while empty.add(key: key, value: none) { key += 1 }
        #expect(empty.count == (TreeLayout.payloadSize - PackedLayout.bitmapOffset) / 2)
        #expect(empty.size <= TreeLayout.payloadSize)

        // Rows with four varying planes: the last admitted entry fits, the next does not.
        let rows = Self.values(3000, length: 25, varying: [1, 2, 9, 10], &rng)
        var sizer = PackedLeafSizer(valueLength: 25)
        var keys: [UInt64] = []
        key = 500
        /// Planes where rows[0..<n] differ from the first.
        func varying(_ n: Int) -> Int { (0..<25).filter { j in rows[0..<n].contains { $0[j] != rows[0][j] } }.count }
        for r in rows {
            let next = key + UInt64.random(in: 1...3, using: &rng)
            let before = (sizer.count, sizer.size, sizer.storedPlanes)
            if !r.withUnsafeBytes({ sizer.add(key: next, value: $0) }) {
                #expect(before == (sizer.count, sizer.size, sizer.storedPlanes), "a refused add changed the sizer")
                let need = PackedLayout.size(count: keys.count + 1, valueLength: 25, storedPlanes: varying(keys.count + 1),
                                             keyWidth: PackedLayout.keyWidth(span: next - keys[0]))
                #expect(need > TreeLayout.payloadSize, "refused an entry that fits (\(need) bytes)")
                break
            }
            key = next
            keys.append(key)
            #expect(sizer.storedPlanes == varying(keys.count))
            #expect(sizer.size == PackedLayout.size(count: keys.count, valueLength: 25, storedPlanes: varying(keys.count),
                                                    keyWidth: PackedLayout.keyWidth(span: key - keys[0])))
            #expect(sizer.size <= TreeLayout.payloadSize)
        }
        #expect(keys.count > 300 && keys.count < rows.count)
        // The writer takes what the sizer admitted.
        let page = PackedPage()
        S.write(keys, Array(rows.prefix(keys.count)), length: 25, to: page.base)
        let leaf = try page.leaf()
        #expect(S.keys(leaf) == keys)
        #expect(S.value(leaf, keys.count - 1) == rows[keys.count - 1])

        // Near full: an entry that would store 21 more planes is refused, a like one still fits.
        var near = PackedLeafSizer(valueLength: 25)
        for i in 0..<(keys.count - 5) { _ = rows[i].withUnsafeBytes { near.add(key: keys[i], value: $0) } }
        var unlike = rows[0]
        for j in 0..<25 { unlike[j] ^= 0xFF }
        let count = near.count
        #expect(!unlike.withUnsafeBytes { near.add(key: keys.last! + 10, value: $0) })
        #expect(near.count == count && near.storedPlanes == varying(count))
        #expect(rows[1].withUnsafeBytes { near.add(key: keys.last! + 10, value: $0) })

        // Keys must ascend; lengths must match; values longer than packed values may be are refused.
        var order = PackedLeafSizer(valueLength: 25)
        #expect(rows[0].withUnsafeBytes { order.add(key: 100, value: $0) })
        #expect(rows[1].withUnsafeBytes { order.add(key: 200, value: $0) })
        #expect(!rows[2].withUnsafeBytes { order.add(key: 200, value: $0) })
        #expect(!rows[2].withUnsafeBytes { order.add(key: 150, value: $0) })
        #expect(!rows[2].withUnsafeBytes { order.add(key: 0, value: $0) })
        #expect(!Array(rows[2].dropLast()).withUnsafeBytes { order.add(key: 300, value: $0) })
        #expect(!(rows[2] + [9]).withUnsafeBytes { order.add(key: 300, value: $0) })
        #expect(order.count == 2 && order.lastKey == 200)
        var wrongFirst = PackedLeafSizer(valueLength: 25)
        #expect(![UInt8](repeating: 1, count: 24).withUnsafeBytes { wrongFirst.add(key: 1, value: $0) })
        #expect(wrongFirst.count == 0)
        var tooLong = PackedLeafSizer(valueLength: PackedLayout.maxValueLength + 1)
        #expect(![UInt8](repeating: 1, count: PackedLayout.maxValueLength + 1).withUnsafeBytes { tooLong.add(key: 1, value: $0) })
        var longest = PackedLeafSizer(valueLength: PackedLayout.maxValueLength)
        #expect([UInt8](repeating: 1, count: PackedLayout.maxValueLength).withUnsafeBytes { longest.add(key: 1, value: $0) })

        // The key width follows the span: a jump past 2^32 makes every offset 8 bytes.
        var wide = PackedLeafSizer(valueLength: 0)
        #expect(wide.add(key: 5, value: none) && wide.add(key: 6, value: none))
        #expect(wide.size == PackedLayout.size(count: 2, valueLength: 0, storedPlanes: 0, keyWidth: 1))
        let farAdded = wide.add(key: 6 + (1 << 33), value: none)
        #expect(farAdded)
        #expect(wide.size == PackedLayout.size(count: 3, valueLength: 0, storedPlanes: 0, keyWidth: 8))
    }

    // MARK: Corruption

    /// Header corruptions of a valid packed page (header fields at their documented offsets).
    static func corruptions(capacity: Int, count: Int, length: Int, storedPlanes: Int, keyWidth: Int)
        -> [(name: String, apply: (UnsafeMutableRawPointer) -> Void)] {
        // The smallest capacity whose columns no longer fit the page.
        var overCapacity = capacity
        while PackedLayout.size(count: overCapacity, valueLength: length, storedPlanes: storedPlanes, keyWidth: keyWidth)
                <= TreeLayout.payloadSize { overCapacity += 1 }
        var list: [(name: String, apply: (UnsafeMutableRawPointer) -> Void)] = [
            ("key width 3", { $0.storeBytes(of: 3, toByteOffset: 1, as: UInt8.self) }),
            ("key width 0", { $0.storeBytes(of: 0, toByteOffset: 1, as: UInt8.self) }),
            ("key width 16", { $0.storeBytes(of: 16, toByteOffset: 1, as: UInt8.self) }),
            ("count 0", { $0.setTreeU16(2, 0); $0.setTreeU64(8, 0) }),
            ("count above capacity", { $0.setTreeU16(2, capacity + 1); $0.setTreeU64(8, UInt64(capacity + 1)) }),
            ("value length 513", { $0.setTreeU16(4, PackedLayout.maxValueLength + 1) }),
            ("value length 65535", { $0.setTreeU16(4, 0xFFFF) }),
            ("capacity past the page", { $0.setTreeU16(6, overCapacity) }),
            ("capacity 65535", { $0.setTreeU16(6, 0xFFFF) }),
            ("total above count", { $0.setTreeU64(8, UInt64(count + 1)) }),
            ("total below count", { $0.setTreeU64(8, UInt64(count - 1)) }),
            ("total 2^40", { $0.setTreeU64(8, 1 << 40) }),
        ]
        if length % 8 != 0 {
            let last = PackedLayout.bitmapOffset + PackedLayout.bitmapSize(length) - 1
            let firstBeyond = UInt8(length % 8)
            list.append(("plane bit \(length) past the value length", { p in
                p.storeBytes(of: p.load(fromByteOffset: last, as: UInt8.self) | (1 << firstBeyond), toByteOffset: last, as: UInt8.self)
            }))
            list.append(("plane bit 7 of the last bitmap byte", { p in
                p.storeBytes(of: p.load(fromByteOffset: last, as: UInt8.self) | 0x80, toByteOffset: last, as: UInt8.self)
            }))
        }
        return list
    }

    @Test func corruptPagesThrowCorruptFile() throws {
        var rng = SplitMix64(seed: 3)
        let keys = (0..<300).map { 1000 + 3 * UInt64($0) }
        let values = Self.values(300, length: 25, varying: [1, 2, 9, 10], &rng)
        let page = PackedPage()
        S.write(keys, values, length: 25, to: page.base)
        let leaf = try page.leaf()
        let original = page.bytes
        func restore() { original.withUnsafeBytes { page.base.copyMemory(from: $0.baseAddress!, byteCount: original.count) } }
        for (name, apply) in Self.corruptions(capacity: leaf.capacity, count: leaf.count, length: 25,
                                              storedPlanes: leaf.storedPlanes, keyWidth: leaf.keyWidth) {
            restore()
            apply(page.base)
            #expect(storageErrorCode { _ = try page.leaf() } == .corruptFile, "\(name)")
            #expect(storageErrorCode { _ = try TreeNode(ref: PageRef(77), base: UnsafeRawPointer(page.base), flavor: KeyedFlavor.self) }
                    == .corruptFile, "\(name): node view")
            #expect(storageErrorCode { try TreePages.forEachChild(ofPage: PageRef(77), payload: UnsafeRawPointer(page.base)) { _ in } }
                    == .corruptFile, "\(name): page walk")
        }
        // The largest capacity that still fits is accepted (the boundary of the size check).
        restore()
        var fitting = leaf.capacity
        while PackedLayout.size(count: fitting + 1, valueLength: 25, storedPlanes: leaf.storedPlanes, keyWidth: leaf.keyWidth)
                <= TreeLayout.payloadSize { fitting += 1 }
        page.base.setTreeU16(6, fitting)
        #expect(storageErrorCode { _ = try page.leaf() } == nil)
        // The wrong page kind.
        restore()
        page.base.storeBytes(of: TreePageKind.keyedLeaf, as: UInt8.self)
        #expect(storageErrorCode { _ = try page.leaf() } == .corruptFile)
    }

    /// A packed leaf of a tree corrupted in place: every read and edit that reaches it throws
    /// `.corruptFile`, and random damage never crashes a read.
    @Test func corruptPackedLeafInATree() throws {
        let pages = TreeTestPages()
        var tree = KeyedTree()
        let keys = (0..<3000).map { 10 + 2 * UInt64($0) }
        let rows = keys.map { S.row(counter: $0, time: 1_700_000_000_000, noise: S.noise($0)) }
        _ = try TreeBatchTests.withBuffers(rows) { try tree.putSorted(keys: keys, values: $0, packing: true, in: pages) }
        pages.commit()
        let packed = try S.packedLeaves(tree, pages)
        #expect(packed.count >= 3)
        let target = try #require(packed.dropFirst().first)
        let raw = try #require(pages.rawPage(target))
        let leaf = try PackedLeaf(ref: target, base: UnsafeRawPointer(raw))
        let key = leaf.key(leaf.count / 2)
        let position = try tree.rank(of: key, in: pages)
        let expected = rows[keys.firstIndex(of: key)!]
        let original = Array(UnsafeRawBufferPointer(start: raw, count: TreeLayout.payloadSize))
        func restore() { original.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: original.count) } }

        for (name, apply) in Self.corruptions(capacity: leaf.capacity, count: leaf.count, length: leaf.valueLength,
                                              storedPlanes: leaf.storedPlanes, keyWidth: leaf.keyWidth) {
            restore()
            apply(raw)
            #expect(storageErrorCode { _ = try tree.withValue(forKey: key, in: pages) { Array($0) } } == .corruptFile, "\(name): withValue")
            #expect(storageErrorCode { _ = try tree.contains(key, in: pages) } == .corruptFile, "\(name): contains")
            #expect(storageErrorCode { try tree.forEach(in: pages) { _, _ in true } } == .corruptFile, "\(name): forEach")
            #expect(storageErrorCode { try tree.forEachReversed(in: pages) { _, _ in true } } == .corruptFile, "\(name): forEachReversed")
            #expect(storageErrorCode { _ = try tree.withEntry(at: position, in: pages) { k, _ in k } } == .corruptFile, "\(name): withEntry")
            #expect(storageErrorCode { _ = try tree.rank(of: key, in: pages) } == .corruptFile, "\(name): rank")
            #expect(storageErrorCode { try TreePages.forEachPage(ofTreeAt: tree.root, in: pages) { _ in } } == .corruptFile, "\(name): page walk")
            var copy = tree
            #expect(storageErrorCode { _ = try expected.withUnsafeBytes { try copy.put(key, $0, in: pages) } } == .corruptFile, "\(name): put")
            pages.rollback()
            copy = tree
            #expect(storageErrorCode { _ = try copy.remove(key, in: pages) } == .corruptFile, "\(name): remove")
            pages.rollback()
            copy = tree
            #expect(storageErrorCode { _ = try copy.removeSorted([key], in: pages) } == .corruptFile, "\(name): removeSorted")
            pages.rollback()
            copy = tree
            #expect(storageErrorCode {
                _ = try TreeBatchTests.withBuffers([expected]) { try copy.putSorted(keys: [key], values: $0, packing: true, in: pages) }
            } == .corruptFile, "\(name): putSorted")
            pages.rollback()
        }
        restore()
        #expect(try tree.withValue(forKey: key, in: pages) { Array($0) } == expected)

        // Random damage past the kind byte: reads succeed or throw .corruptFile, never crash.
        var rng = SplitMix64(seed: 17)
        var thrown = 0
        for _ in 0..<400 {
            restore()
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 1..<32, using: &rng)
                    : Int.random(in: 1..<TreeLayout.payloadSize, using: &rng)
                raw.storeBytes(of: UInt8.random(in: 0...255, using: &rng), toByteOffset: at, as: UInt8.self)
            }
            for read in [
                { _ = try tree.withValue(forKey: key, in: pages) { Array($0) } },
                { try tree.forEach(in: pages) { _, v in v.count < 100_000 } },
                { try tree.forEachReversed(through: key, in: pages) { _, _ in true } },
                { _ = try tree.withEntry(at: position, in: pages) { k, _ in k } },
                { _ = try tree.rank(of: key &+ 1, in: pages) },
            ] as [() throws -> Void] {
                let code = storageErrorCode(read)
                #expect(code == nil || code == .corruptFile)
                if code != nil { thrown += 1 }
            }
        }
        #expect(thrown > 0)
        restore()
    }
}
