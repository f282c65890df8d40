// Packed keyed leaves in sorted batches and merges (TreeSortedBatch, TreeEdit.merge): fresh
// packed leaves right of the tree for runs of same-length appends, a batch's entries applied
// in place a leaf at a time (or in one rewrite of the leaf), removals closed up in place, and
// underfull leaves rebuilt with a neighbour when their entries fit one page.
//
// Invariants: those of PackedLeafEdit.swift; a batch descent applies at least one entry or
// splits a packed leaf for it (`TreeEditResult.retry`); a fresh packed leaf starts only for a
// run of `PackedLayout.minimumRun` values of one length (or continues a full packed leaf of
// that length), so a stream of mixed lengths stays slotted.

// MARK: - Sorted batches

extension KeyedFlavor {
    /// Writes the leaf cell `cell` alone as a packed leaf at `base`; false (nothing written)
    /// when its value cannot be packed (an overflow value, or longer than packed values may be).
    static func writePackedLeaf(cell: UnsafeRawBufferPointer, to base: UnsafeMutableRawPointer) throws -> Bool {
        guard let cellBase = cell.baseAddress, let value = try TreeCells.keyedValue(ofCell: cell, ref: .null),
              let inline = value.inline, value.length <= PackedLayout.maxValueLength else { return false }
        let key = cellBase.treeU64(0)
        withUnsafePointer(to: key) { k in
            withUnsafePointer(to: inline) { v in
                _ = PackedLeafWriter.write(keys: UnsafeBufferPointer(start: k, count: 1), values: UnsafeBufferPointer(start: v, count: 1),
                                           valueLength: value.length, to: base)
            }
        }
        return true
    }

    /// The packed right leaf of the append split of the full slotted leaf `full`
    /// (`TreeFlavor.packedRightLeaf`): only when its last `minimumRun` values (or all) have the
    /// new value's length, so that a stream of mixed lengths stays slotted.
    static func packedRightLeaf(cell: UnsafeRawBufferPointer, full: TreeNode, _ pages: any PageWriting) throws -> PageRef? {
        guard let value = try TreeCells.keyedValue(ofCell: cell, ref: full.ref),
              value.inline != nil, value.length <= PackedLayout.maxValueLength else { return nil }
        for i in max(0, full.count - PackedLayout.minimumRun)..<full.count {
            let stored = try full.leafCell(i, KeyedFlavor.self).value
            guard stored.inline != nil, stored.length == value.length else { return nil }
        }
        let (ref, base) = try pages.allocatePage()
        guard try writePackedLeaf(cell: cell, to: base) else {
            pages.freePage(ref)
            return nil
        }
        return ref
    }

    /// A fresh packed leaf right of the tree's last leaf, filled from `keys[from...]` as far as
    /// it fits; nil when the first value cannot be packed (the caller fills a slotted leaf).
    static func freshPackedLeaf(keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                from start: Int, _ pages: any PageWriting) throws -> (ref: PageRef, count: Int)? {
        try freshPackedLeaf(keys: keys, values: values, from: start, continuing: nil, pages)
    }

    static func freshPackedLeaf(keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                from start: Int, continuing: Int?, _ pages: any PageWriting) throws -> (ref: PageRef, count: Int)? {
        // Only for a run of `minimumRun` values of one length (or the rest of the batch when it
        // is shorter but appends to a packed leaf of that length: `continuing`).
        guard start < keys.count else { return nil }
        let length = values[start].count
        let run = min(PackedLayout.minimumRun, keys.count - start)
        guard length <= PackedLayout.maxValueLength, run == PackedLayout.minimumRun || continuing == length,
              (start..<start + run).allSatisfy({ values[$0].count == length }) else { return nil }
        var sizer = PackedLeafSizer(valueLength: length)
        var end = start
        while end < keys.count && sizer.add(key: keys[end], value: values[end]) { end += 1 }
        guard end > start else { return nil }
        let (ref, base) = try pages.allocatePage()
        try write(keys: keys, values: values, start..<end, length: length, to: base)
        return (ref, end - start)
    }

    /// Writes `before` then `keys[range]` with `values[range]` (all `length` bytes) as a packed
    /// leaf at `base`.
    private static func write(keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                              _ range: Range<Int>, length: Int, to base: UnsafeMutableRawPointer,
                              before: [LeafEntry] = []) throws {
        var allKeys: [UInt64] = []
        var pointers: [UnsafeRawPointer] = []
        allKeys.reserveCapacity(before.count + range.count)
        pointers.reserveCapacity(before.count + range.count)
        // A zero-length value has no bytes to point at; any pointer serves (nothing is read).
        let empty = UnsafeRawPointer(bitPattern: 8)!
        for entry in before {
            allKeys.append(entry.key)
            pointers.append(entry.value.inline ?? empty)
        }
        for i in range {
            allKeys.append(keys[i])
            pointers.append(values[i].baseAddress ?? empty)
        }
        allKeys.withUnsafeBufferPointer { k in
            pointers.withUnsafeBufferPointer { v in _ = PackedLeafWriter.write(keys: k, values: v, valueLength: length, to: base) }
        }
    }

    /// Applies the batch's entries that belong to the packed leaf `node` (SortedPutBatch): as
    /// many as fit in place (replacements, insertions, appends, with new layouts as needed);
    /// appends past the tree's last key (with `packing`) that no longer fit go on into a fresh
    /// right leaf. An entry that needs a split is applied alone as a single upsert, first in its
    /// descent (a split without applying it leaves `position` unchanged).
    static func packedBatchPut(_ node: TreeNode, keys: UnsafeBufferPointer<UInt64>,
                               values: UnsafeBufferPointer<UnsafeRawBufferPointer>, position: inout Int,
                               upper: UInt64?, rightmost: Bool, packing: Bool,
                               _ pages: any PageWriting) throws -> TreeEditResult {
        let (ref, base) = try pages.writableNodePage(node.ref)
        var leaf = try PackedLeaf(ref: ref, base: UnsafeRawPointer(base))
        var delta = 0
        var applied = false
        while position < keys.count {
            let key = keys[position], value = values[position]
            if let upper, key >= upper { break }
            let (index, found) = leaf.search(key)
            if let edited = try PackedLeafEdit.applyInPlace(leaf, key, value, at: index, found: found, base) {
                leaf = edited
                position += 1
                if !found { delta += 1 }
                applied = true
                continue
            }
            if packing && rightmost && !found && index == leaf.count {
                // The leaf is full: the following appends fill a fresh right leaf.
                let right = try freshRightLeaf(keys: keys, values: values, position: &position, continuing: leaf.valueLength, pages)
                return TreeEditResult(ref: ref, delta: delta + right.count, changed: true,
                                      split: TreeSplit(right: right.ref, leftTotal: UInt64(leaf.count), rightTotal: UInt64(right.count)),
                                      cellCount: leaf.count, filledBytes: PackedLeafEdit.packedFill)
            }
            if applied { break }
            if let result = try rewriteMerging(leaf, base, keys: keys, values: values, position: &position, upper: upper, pages) {
                return result
            }
            let view = try TreeNode(ref: ref, base: UnsafeRawPointer(base), flavor: KeyedFlavor.self)
            let result = try TreeCells.withLeafCell(.uint64(key), value, pages) { cell in
                let result = try PackedLeafEdit.upsert(view, leaf, writable: base, key: key, cell: cell, rightmost: rightmost,
                                                       packing: packing, pages)
                if result.retry {
                    // Not applied: the value's overflow chain, if any, is written again next time.
                    try TreeCells.keyedValue(ofCell: cell, ref: ref)?.free(pages)
                }
                return result
            }
            if !result.retry { position += 1 }
            return result
        }
        return TreeEditResult(ref: ref, delta: delta, changed: true, split: nil, cellCount: leaf.count,
                              filledBytes: leaf.filledBytes)
    }

    /// Merges the batch's entries from `position` that fall within the leaf's keys (below
    /// `upper`, up to its last key, inline values) into its decoded entries and writes the
    /// result back as one or two leaves: one rewrite for a run of changes the columns cannot
    /// take in place (values of a new length, such as rows whose footer changed). Nil, nothing
    /// written and `position` unchanged, when the result fits no two pages.
    private static func rewriteMerging(_ leaf: PackedLeaf, _ base: UnsafeMutableRawPointer,
                                       keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                       position: inout Int, upper: UInt64?, _ pages: any PageWriting) throws -> TreeEditResult? {
        let empty = UnsafeRawPointer(bitPattern: 8)!
        return try PackedLeafEdit.withEntries(leaf) { entries in
            var merged: [LeafEntry] = []
            merged.reserveCapacity(entries.count + 16)
            var next = position
            var delta = 0
            var firstChange: Int?
            for entry in entries {
                while next < keys.count, keys[next] <= entry.key, upper.map({ keys[next] < $0 }) ?? true,
                      8 + TreeLayout.valueHeaderSize + values[next].count <= TreeLayout.maxCellSize {
                    if firstChange == nil { firstChange = merged.count }
                    let value = TreeStoredValue(inline: values[next].baseAddress ?? empty, length: values[next].count, firstOverflow: .null)
                    if keys[next] < entry.key { delta += 1 }
                    merged.append(LeafEntry(key: keys[next], value: value))
                    next += 1
                    if merged.last?.key == entry.key { break }
                }
                if merged.last?.key != entry.key { merged.append(entry) }
            }
            guard let firstChange, next > position else { return nil }
            guard let result = try PackedLeafEdit.place(merged, change: firstChange, delta: delta, into: leaf.ref, base, pages) else {
                return nil
            }
            position = next
            return result
        }
    }

    /// A fresh leaf right of the tree's last one, filled from `keys[position...]`: packed when
    /// the first value can be, else slotted.
    private static func freshRightLeaf(keys: UnsafeBufferPointer<UInt64>, values: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                                       position: inout Int, continuing length: Int,
                                       _ pages: any PageWriting) throws -> (ref: PageRef, count: Int) {
        if let packed = try freshPackedLeaf(keys: keys, values: values, from: position, continuing: length, pages) {
            position += packed.count
            return packed
        }
        let (slotted, end) = try SortedPutBatch<KeyedFlavor>.freshSlottedLeaf(keys: keys, values: values, from: position, pages)
        position = end
        return (slotted.ref, slotted.count)
    }

    /// Removes the batch's keys that belong to the packed leaf `node` (SortedRemoveBatch);
    /// returns the result and how many were removed.
    static func packedBatchRemove(_ node: TreeNode, keys: UnsafeBufferPointer<UInt64>, position: inout Int,
                                  upper: UInt64?, stopAtAbsent: Bool, stopped: inout Bool,
                                  shouldRemove: (Int, UnsafeRawBufferPointer) throws -> Bool,
                                  _ pages: any PageWriting) throws -> (result: TreeEditResult, removed: Int) {
        let leaf = try node.packed
        var indices: [Int] = []
        while position < keys.count {
            let key = keys[position]
            if let upper, key >= upper { break }
            let (index, found) = leaf.search(key)
            guard found else {
                if stopAtAbsent {
                    stopped = true
                    break
                }
                position += 1
                continue
            }
            let remove = try leaf.withValue(index) { try shouldRemove(position, $0) }
            position += 1
            if remove { indices.append(index) }
        }
        guard !indices.isEmpty else { return (.unchanged(node.ref), 0) }
        let result = try PackedLeafEdit.remove(node, indices: indices, writable: { try pages.writableNodePage(node.ref) }, pages)
        return (result, indices.count)
    }
}

// MARK: - Merges

extension KeyedFlavor {
    /// `TreeFlavor.mergePackedLeaves`: the entries of both leaves, values copied apart (the
    /// left page may be rewritten in place), written into the left leaf's writable copy as one
    /// leaf when they fit (`PackedLeafEdit.form`).
    static func mergePackedLeaves(_ left: TreeNode, _ right: TreeNode, _ pages: any PageWriting) throws -> PageRef? {
        guard left.isLeaf && right.isLeaf else { return nil }
        // Without decoding: packed, the union takes at least the wider key offsets and the
        // stored planes of either per entry; slotted, every cell. Most failed attempts (an
        // underfull leaf next to a full one) end here.
        var widest = 1, planes = 0, fixed = 0, slotted = 0
        for node in [left, right] {
            if node.isPacked {
                let leaf = try node.packed
                widest = max(widest, leaf.keyWidth)
                planes = max(planes, leaf.storedPlanes)
                fixed = PackedLayout.bitmapOffset + PackedLayout.bitmapSize(leaf.valueLength)
                slotted += leaf.count * (8 + TreeLayout.valueHeaderSize + leaf.valueLength + TreeLayout.slotSize)
            } else {
                slotted += node.usedBytes + node.count * TreeLayout.slotSize
            }
        }
        let total = left.count + right.count
        guard fixed + total * (widest + planes) <= TreeLayout.payloadSize || slotted <= TreeLayout.usableSize else { return nil }
        var bytes = 0
        for node in [left, right] {
            if node.isPacked {
                let leaf = try node.packed
                bytes += leaf.count * leaf.valueLength
            } else {
                for i in 0..<node.count {
                    let value = try node.leafCell(i, KeyedFlavor.self).value
                    if value.inline != nil { bytes += value.length }
                }
            }
        }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 8)
        defer { storage.deallocate() }
        var entries: [LeafEntry] = []
        entries.reserveCapacity(left.count + right.count)
        var used = 0
        for node in [left, right] {
            if node.isPacked {
                let leaf = try node.packed
                let decoded = PackedLeafEdit.decode(leaf, into: storage + used)
                used += leaf.count * leaf.valueLength
                entries.append(contentsOf: decoded)
            } else {
                for i in 0..<node.count {
                    var value = try node.leafCell(i, KeyedFlavor.self).value
                    if let inline = value.inline {
                        (storage + used).copyMemory(from: inline, byteCount: value.length)
                        value = TreeStoredValue(inline: UnsafeRawPointer(storage + used), length: value.length, firstOverflow: .null)
                        used += value.length
                    }
                    entries.append(LeafEntry(key: try leafKey(node, i), value: value))
                }
            }
        }
        guard !entries.isEmpty, let form = PackedLeafEdit.form(entries, 0..<entries.count) else { return nil }
        let (ref, base) = try pages.writableNodePage(left.ref)
        _ = try PackedLeafEdit.write(entries, 0..<entries.count, as: form, to: ref, base)
        return ref
    }
}
