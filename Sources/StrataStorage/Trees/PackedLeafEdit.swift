// Edits of packed keyed leaves (PackedLeaf.swift), for single edits (TreeEditor) and sorted
// batches (TreeSortedBatch).
//
// Most edits move bytes within the leaf's columns: a replacement that keeps the constant planes
// is written over the old value, an insertion that keeps them (and fits the capacity and key
// width) opens a slot, removals close theirs. Anything else rewrites the leaf: its entries are
// decoded, the edit applied, and the result written back as one leaf or, when it no longer
// fits, as two (a split, as for slotted leaves). Each rewritten part becomes packed or slotted
// (`LeafForm`): slotted when it is short and fits (cheap to edit entry by entry), packed
// otherwise, or packed first for the right edge of a tree that packs (where appends go).
//
// Invariants:
// - Removals always fit the page (a subset of a packed leaf never encodes larger).
// - An insertion or replacement whose entries fit no division into two pages (a value unlike its
//   neighbours landing mid-leaf) first splits the leaf at the edit's index without applying it,
//   with `TreeEditResult.retry` set: the caller applies the edit again, and it then lands at the
//   edge of a part, where the new entry alone on one side and untouched entries on the other
//   always fit. So an edit never needs more than one new page per descent.
// - Packed parts are written only for inline values of the leaf's own value length; new packed
//   leaves only for puts with `packing`.

/// One entry of a leaf being rebuilt: its key and its value (inline bytes valid during the
/// rebuild, or an overflow chain).
struct LeafEntry {
    var key: UInt64
    var value: TreeStoredValue
}

extension TreeCells {
    /// The value part of a keyed leaf cell as built by `withLeafCell` (8-byte key first); nil
    /// for a buffer too short to hold one.
    static func keyedValue(ofCell cell: UnsafeRawBufferPointer, ref: PageRef) throws -> TreeStoredValue? {
        guard let base = cell.baseAddress, cell.count >= 8 + TreeLayout.valueHeaderSize else { return nil }
        return try TreeStoredValue.parse(base, at: 8, ref: ref).value
    }
}

/// How a run of entries is stored in one page.
enum LeafForm {
    case packed
    case slotted
}

enum PackedLeafEdit {
    /// Reported as the fill of a leaf that just split (the parent does not merge it then).
    static let packedFill = TreeLayout.usableSize

    /// The fill of the packed leaf just written at `base` (`PackedLeaf.filledBytes`).
    static func fill(_ ref: PageRef, _ base: UnsafeMutableRawPointer) throws -> Int {
        try PackedLeaf(ref: ref, base: UnsafeRawPointer(base)).filledBytes
    }

    /// The entries of `leaf` with their values copied into `storage` (count × valueLength bytes).
    static func decode(_ leaf: PackedLeaf, into storage: UnsafeMutableRawPointer) -> [LeafEntry] {
        var entries: [LeafEntry] = []
        entries.reserveCapacity(leaf.count + 1)
        for i in 0..<leaf.count {
            let value = storage + i * leaf.valueLength
            leaf.copyValue(i, to: value)
            entries.append(LeafEntry(key: leaf.key(i),
                                     value: TreeStoredValue(inline: UnsafeRawPointer(value), length: leaf.valueLength, firstOverflow: .null)))
        }
        return entries
    }

    /// Calls `body` with the decoded entries of `leaf` (storage valid during the call).
    static func withEntries<R>(_ leaf: PackedLeaf, _ body: (inout [LeafEntry]) throws -> R) throws -> R {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(leaf.count * leaf.valueLength, 1), alignment: 8)
        defer { storage.deallocate() }
        var entries = decode(leaf, into: storage)
        return try body(&entries)
    }

    @inline(__always)
    static func slottedSize(_ entry: LeafEntry) -> Int {
        8 + (entry.value.inline != nil ? TreeLayout.valueHeaderSize + entry.value.length : TreeLayout.overflowValuePartSize)
            + TreeLayout.slotSize
    }

    /// How `entries[range]` (non-empty) can be stored in one page, nil when it cannot: slotted
    /// when fewer than `PackedLayout.minimumRun` entries fit slotted, else packed when all are
    /// inline values of one length that fit packed, else slotted when they fit.
    static func form(_ entries: [LeafEntry], _ range: Range<Int>, prefersPacked: Bool = false) -> LeafForm? {
        var slotted = 0
        for i in range { slotted += slottedSize(entries[i]) }
        let fitsSlotted = slotted <= TreeLayout.usableSize
        if fitsSlotted && range.count < PackedLayout.minimumRun && !prefersPacked { return .slotted }
        let packedLength = entries[range.lowerBound].value.length
        if packedLength <= PackedLayout.maxValueLength {
            var sizer = PackedLeafSizer(valueLength: packedLength)
            var packable = true
            for i in range {
                let value = entries[i].value
                guard let inline = value.inline,
                      sizer.add(key: entries[i].key, value: UnsafeRawBufferPointer(start: inline, count: value.length)) else {
                    packable = false
                    break
                }
            }
            if packable { return .packed }
        }
        return fitsSlotted ? .slotted : nil
    }

    /// Writes `entries[range]` in `form` into the page payload at (`ref`, `base`).
    static func write(_ entries: [LeafEntry], _ range: Range<Int>, as form: LeafForm,
                      to ref: PageRef, _ base: UnsafeMutableRawPointer) throws -> (count: Int, filledBytes: Int) {
        switch form {
        case .packed:
            let packedLength = entries[range.lowerBound].value.length
            var keys: [UInt64] = []
            var values: [UnsafeRawPointer] = []
            keys.reserveCapacity(range.count)
            values.reserveCapacity(range.count)
            for i in range {
                guard let inline = entries[i].value.inline else { throw TreeError.corrupt(ref, "an overflow value in a packed leaf") }
                keys.append(entries[i].key)
                values.append(inline)
            }
            keys.withUnsafeBufferPointer { k in
                values.withUnsafeBufferPointer { v in
                    _ = PackedLeafWriter.write(keys: k, values: v, valueLength: packedLength, to: base)
                }
            }
            return (range.count, try fill(ref, base))
        case .slotted:
            let leaf = MutableTreeNode.initialize(ref, base, kind: TreePageKind.keyedLeaf)
            try withUnsafeTemporaryAllocation(byteCount: TreeLayout.maxCellSize + 16, alignment: 8) { buffer in
                guard let cell = buffer.baseAddress else { return }
                for i in range {
                    let entry = entries[i]
                    cell.setTreeU64(0, entry.key)
                    let size: Int
                    if let inline = entry.value.inline {
                        size = 8 + TreeLayout.valueHeaderSize + entry.value.length
                        guard size <= TreeLayout.maxCellSize else { throw TreeError.corrupt(ref, "a leaf cell larger than a page allows") }
                        cell.setTreeU32(8, UInt32(entry.value.length))
                        (cell + 8 + TreeLayout.valueHeaderSize).copyMemory(from: inline, byteCount: entry.value.length)
                    } else {
                        size = 8 + TreeLayout.overflowValuePartSize
                        cell.setTreeU32(8, UInt32(entry.value.length) | TreeLayout.overflowFlag)
                        cell.setTreeU32(8 + TreeLayout.valueHeaderSize, entry.value.firstOverflow.raw)
                    }
                    leaf.appendCellContiguous(cell, size: size)
                }
            }
            leaf.total = UInt64(leaf.count)
            return (leaf.count, leaf.filledBytes)
        }
    }

    /// Writes `entries` (ascending, non-empty) into the writable page (`ref`, `base`) and, if
    /// needed, one new right page. `split`: the only division point to try (a split without
    /// an edit); otherwise tried in turn: all in one page, the longest packed prefix, and either
    /// side of the changed entry at `change`. Nil, with nothing written, when none fits.
    static func place(_ entries: [LeafEntry], change: Int, split: Int? = nil,
                      delta: Int, into ref: PageRef, _ base: UnsafeMutableRawPointer,
                      _ pages: any PageWriting) throws -> TreeEditResult? {
        let n = entries.count
        if split == nil, let form = form(entries, 0..<n) {
            let left = try write(entries, 0..<n, as: form, to: ref, base)
            return TreeEditResult(ref: ref, delta: delta, changed: true, split: nil, cellCount: left.count, filledBytes: left.filledBytes)
        }
        var candidates: [Int] = []
        if let split {
            candidates = [split]
        } else {
            var sizer = PackedLeafSizer(valueLength: entries[0].value.length)
            var prefix = 0
            while prefix < n, let inline = entries[prefix].value.inline,
                  sizer.add(key: entries[prefix].key, value: UnsafeRawBufferPointer(start: inline, count: entries[prefix].value.length)) {
                prefix += 1
            }
            candidates = [prefix, change, change + 1]
        }
        for s in candidates where s > 0 && s < n {
            guard let leftForm = form(entries, 0..<s), let rightForm = form(entries, s..<n) else { continue }
            let (rightRef, rightBase) = try pages.allocatePage()
            let right = try write(entries, s..<n, as: rightForm, to: rightRef, rightBase)
            let left = try write(entries, 0..<s, as: leftForm, to: ref, base)
            return TreeEditResult(ref: ref, delta: delta, changed: true,
                                  split: TreeSplit(right: rightRef, leftTotal: UInt64(left.count), rightTotal: UInt64(right.count)),
                                  cellCount: left.count, filledBytes: left.filledBytes)
        }
        return nil
    }

    /// A new leaf holding `cell` alone (packed with `packing` when its value can be, else
    /// slotted) right of the full packed leaf at (`ref`, `base`), which stays as it is. On files
    /// that place full nodes apart (NodeEdit.swift, `splitAppendApart`) the full leaf moves to a
    /// detached page and the new leaf takes its page, at the right edge where appends go.
    static func newRightLeaf(of ref: PageRef, _ base: UnsafeMutableRawPointer, leftCount: Int, cell: UnsafeRawBufferPointer,
                             packing: Bool, _ pages: any PageWriting) throws -> TreeEditResult {
        // Packed again only for a value of the full leaf's length: a stream of mixed lengths
        // goes on in slotted leaves (one packed leaf per length change would be a page per row).
        let length = try PackedLeaf(ref: ref, base: UnsafeRawPointer(base)).valueLength
        let packing = try packing && TreeCells.keyedValue(ofCell: cell, ref: ref)?.length == length
        var leftRef = ref
        var rightRef: PageRef
        var rightBase: UnsafeMutableRawPointer
        if pages.placesFullNodesApart {
            let (detached, detachedBase) = try pages.allocateDetachedPage()
            detachedBase.copyMemory(from: base, byteCount: TreeLayout.payloadSize)
            leftRef = detached
            (rightRef, rightBase) = (ref, base)
        } else {
            (rightRef, rightBase) = try pages.allocatePage()
        }
        let packed = try packing && KeyedFlavor.writePackedLeaf(cell: cell, to: rightBase)
        if !packed {
            guard let bytes = cell.baseAddress else { throw StorageError(.invalidState, "insert without a cell") }
            let right = MutableTreeNode.initialize(rightRef, rightBase, kind: TreePageKind.keyedLeaf)
            right.appendCellContiguous(bytes, size: cell.count)
            right.total = 1
        }
        return TreeEditResult(ref: leftRef, delta: 1, changed: true,
                              split: TreeSplit(right: rightRef, leftTotal: UInt64(leftCount), rightTotal: 1,
                                               movedLeft: leftRef == ref ? nil : leftRef),
                              cellCount: leftCount, filledBytes: packedFill)
    }

    /// Replaces (`found`) or inserts `key` → `value` at `index` without a split: over the old
    /// value or into a free slot when the constants and key width allow it, else with a new
    /// layout of the leaf when the page holds one. False, nothing written, when neither fits.
    /// Returns the leaf's view after the edit, nil when nothing was written.
    @inline(__always)
    static func applyInPlace(_ leaf: PackedLeaf, _ key: UInt64, _ value: UnsafeRawBufferPointer, at index: Int,
                             found: Bool, _ writable: UnsafeMutableRawPointer) throws -> PackedLeaf? {
        if found {
            if leaf.canOverwrite(with: value) {
                leaf.overwrite(index, with: value, in: writable)
                return leaf
            }
        } else if leaf.canInsert(key, value) {
            leaf.insert(key, value, at: index, in: writable)
            return leaf.with(count: leaf.count + 1)
        }
        guard leaf.relaid(key, value, at: index, replacing: found, in: writable) else { return nil }
        return try PackedLeaf(ref: leaf.ref, base: UnsafeRawPointer(writable))
    }

    /// Inserts or replaces `key` with the leaf cell `cell` (key part + value part, as built by
    /// `TreeCells.withLeafCell`) in the packed leaf `node`, already writable at `writable`.
    static func upsert(_ node: TreeNode, _ leaf: PackedLeaf, writable: UnsafeMutableRawPointer, key: UInt64,
                       cell: UnsafeRawBufferPointer, rightmost: Bool, packing: Bool,
                       _ pages: any PageWriting) throws -> TreeEditResult {
        guard let value = try TreeCells.keyedValue(ofCell: cell, ref: node.ref) else {
            throw StorageError(.invalidState, "insert without a cell")
        }
        let (index, found) = leaf.search(key)
        if let inline = value.inline,
           let edited = try applyInPlace(leaf, key, UnsafeRawBufferPointer(start: inline, count: value.length), at: index,
                                         found: found, writable) {
            return TreeEditResult(ref: node.ref, delta: found ? 0 : 1, changed: true, split: nil,
                                  cellCount: edited.count, filledBytes: edited.filledBytes)
        }
        if !found && index == leaf.count && rightmost {
            return try newRightLeaf(of: node.ref, writable, leftCount: leaf.count, cell: cell, packing: packing, pages)
        }
        return try PackedLeafEdit.withEntries(leaf) { entries in
            let entry = LeafEntry(key: key, value: value)
            let original = entries
            if found { entries[index] = entry } else { entries.insert(entry, at: index) }
            if let result = try place(entries, change: index, delta: found ? 0 : 1, into: node.ref, writable, pages) {
                return result
            }
            // No two pages hold the result: split the untouched entries at the edit, then retry.
            guard index > 0 && index < original.count,
                  var result = try place(original, change: index, split: index, delta: 0, into: node.ref, writable, pages) else {
                throw TreeError.corrupt(node.ref, "a packed leaf edit that fits no split (entry \(index) of \(original.count), \(found ? "replacing" : "inserting") \(value.length) bytes into \(leaf.valueLength))")
            }
            result.retry = true
            return result
        }
    }

    /// Removes the entries at `indices` (ascending, non-empty) of the packed leaf `node`:
    /// closed up in place at `writable`, or reported empty (the parent frees the page).
    static func remove(_ node: TreeNode, indices: [Int], writable: () throws -> (PageRef, UnsafeMutableRawPointer),
                       _ pages: any PageWriting) throws -> TreeEditResult {
        let leaf = try node.packed
        if indices.count == leaf.count {
            return TreeEditResult(ref: node.ref, delta: -indices.count, changed: true, split: nil, cellCount: 0, filledBytes: 0)
        }
        let (ref, base) = try writable()
        let view = try PackedLeaf(ref: ref, base: UnsafeRawPointer(base))
        view.remove(indices, in: base)
        return TreeEditResult(ref: ref, delta: -indices.count, changed: true, split: nil,
                              cellCount: leaf.count - indices.count, filledBytes: try fill(ref, base))
    }
}

// MARK: - Single edits

extension KeyedFlavor {
    static func packedLeafEdit(_ node: TreeNode, _ writable: UnsafeMutableRawPointer?, _ key: UInt64,
                               _ operation: TreeEditOperation, cell: UnsafeRawBufferPointer, rightmost: Bool,
                               packing: Bool, _ pages: any PageWriting,
                               _ removeIf: (UnsafeRawBufferPointer) throws -> Bool) throws -> TreeEditResult {
        let leaf = try node.packed
        switch operation {
        case .remove:
            let (index, found) = leaf.search(key)
            guard found else {
                if writable != nil { throw TreeError.corrupt(node.ref, "key to remove not in its leaf") }
                return .unchanged(node.ref)
            }
            guard try leaf.withValue(index, removeIf) else {
                guard writable != nil else { return .unchanged(node.ref) }
                return TreeEditResult(ref: node.ref, delta: 0, changed: true, split: nil,
                                      cellCount: leaf.count, filledBytes: PackedLeafEdit.packedFill)
            }
            return try PackedLeafEdit.remove(node, indices: [index], writable: {
                try writable.map { (node.ref, $0) } ?? pages.writableNodePage(node.ref)
            }, pages)
        case .upsert:
            // Upserts make the path writable on the way down: `node` is the writable copy.
            guard let writable else { throw StorageError(.invalidState, "a packed leaf upsert on a read-only path") }
            return try PackedLeafEdit.upsert(node, leaf, writable: writable, key: key, cell: cell, rightmost: rightmost,
                                             packing: packing, pages)
        case .insert, .replace:
            throw TreeError.corrupt(node.ref, "a positional edit reached a keyed leaf")
        }
    }
}
