// The public batch operations of the three trees (algorithms in TreeBatchEdit.swift,
// TreeSortedBatch.swift and TreePositionalBatch.swift).
//
// Invariants: every argument is checked (order, sizes, range) before any page is touched, so
// a bad batch throws its typed error with the transaction unchanged; a batch equals the same
// sequence of single operations in contents, with at most one descent per leaf touched.

extension KeyedTree {
    /// Puts `values[i]` under `keys[i]` (insert or replace) for every i, keys strictly
    /// ascending: the same result as single `put`s, with one descent per leaf touched; appending
    /// past the last key fills leaves completely. Returns the number of keys that were new.
    /// Throws `.invalidArgument` for unsorted keys or counts that differ, `.tooLarge` for a
    /// value over `maxValueSize`, before changing anything.
    ///
    /// `packing`: appends past the last key may be stored as packed leaves (PackedLeaf.swift),
    /// ~3× denser for short same-length values. Only for values that hold no page references
    /// (a tree whose `ValueReferences` are `.none`); edits of packed entries cost a rewrite of
    /// their leaf (a few µs), except replacements that change only bytes that already vary.
    @discardableResult
    public mutating func putSorted(keys: [UInt64], values: [UnsafeRawBufferPointer], packing: Bool = false,
                                   in pages: some PageWriting) throws -> Int {
        guard keys.count == values.count else {
            throw StorageError(.invalidArgument, "\(keys.count) keys but \(values.count) values")
        }
        let root = self.root
        let (newRoot, delta) = try keys.withUnsafeBufferPointer { k in
            try values.withUnsafeBufferPointer { v in
                try SortedBatchCheck.ascending(k, KeyedFlavor.self)
                try SortedBatchCheck.valueSizes(v, limit: Self.maxValueSize)
                var batch = SortedPutBatch<KeyedFlavor>(keys: k, values: v, packing: packing)
                return try TreeBatchEditor.run(root: root, &batch, pages)
            }
        }
        self.root = newRoot
        return delta
    }

    /// Removes `keys` (strictly ascending) with one descent per leaf touched; returns how
    /// many were present. Absent keys are skipped, or with `stopAtAbsent` end the batch: then
    /// exactly the keys before the first absent one are removed, and the result is its index.
    /// Throws `.invalidArgument` for unsorted keys before changing anything.
    @discardableResult
    public mutating func removeSorted(_ keys: [UInt64], stopAtAbsent: Bool = false,
                                      in pages: some PageWriting) throws -> Int {
        let root = self.root
        let (newRoot, removed) = try keys.withUnsafeBufferPointer { k -> (PageRef, Int) in
            try SortedBatchCheck.ascending(k, KeyedFlavor.self)
            var batch = SortedRemoveBatch<KeyedFlavor>(keys: k, stopAtAbsent: stopAtAbsent) { _, _ in true }
            let (newRoot, _) = try TreeBatchEditor.run(root: root, &batch, pages)
            return (newRoot, batch.removed)
        }
        self.root = newRoot
        return removed
    }
}

extension BytesTree {
    /// Puts `values[i]` under `keys[i]` for every i, keys strictly ascending (memcmp order):
    /// as single `put`s, with one descent per leaf touched. Returns the number of new keys.
    /// Throws `.invalidArgument` (unsorted keys, counts that differ) or `.tooLarge` (a key over
    /// `maxKeySize`, a value over `maxValueSize`) before changing anything.
    @discardableResult
    public mutating func putSorted(keys: [UnsafeRawBufferPointer], values: [UnsafeRawBufferPointer],
                                   in pages: some PageWriting) throws -> Int {
        guard keys.count == values.count else {
            throw StorageError(.invalidArgument, "\(keys.count) keys but \(values.count) values")
        }
        for (i, key) in keys.enumerated() where key.count > Self.maxKeySize {
            throw StorageError(.tooLarge, "key \(i) of \(key.count) bytes exceeds the limit of \(Self.maxKeySize)")
        }
        let root = self.root
        let (newRoot, delta) = try keys.withUnsafeBufferPointer { k in
            try values.withUnsafeBufferPointer { v in
                try SortedBatchCheck.ascending(k, BytesFlavor.self)
                try SortedBatchCheck.valueSizes(v, limit: Self.maxValueSize)
                var batch = SortedPutBatch<BytesFlavor>(keys: k, values: v)
                return try TreeBatchEditor.run(root: root, &batch, pages)
            }
        }
        self.root = newRoot
        return delta
    }

    /// Removes the present `keys` (strictly ascending) for which `shouldRemove(i, value)`
    /// returns true (`i` indexes `keys`; the value is valid only during the call), with one
    /// descent per leaf touched; returns how many were removed. Throws `.invalidArgument` for
    /// unsorted keys and `.tooLarge` for a key over `maxKeySize`, before changing anything.
    @discardableResult
    public mutating func removeSorted(_ keys: [UnsafeRawBufferPointer], in pages: some PageWriting,
                                      if shouldRemove: (Int, UnsafeRawBufferPointer) throws -> Bool = { _, _ in true }) throws -> Int {
        for (i, key) in keys.enumerated() where key.count > Self.maxKeySize {
            throw StorageError(.tooLarge, "key \(i) of \(key.count) bytes exceeds the limit of \(Self.maxKeySize)")
        }
        let root = self.root
        let (newRoot, removed) = try withoutActuallyEscaping(shouldRemove) { decide in
            try keys.withUnsafeBufferPointer { k -> (PageRef, Int) in
                try SortedBatchCheck.ascending(k, BytesFlavor.self)
                var batch = SortedRemoveBatch<BytesFlavor>(keys: k, stopAtAbsent: false, shouldRemove: decide)
                let (newRoot, _) = try TreeBatchEditor.run(root: root, &batch, pages)
                return (newRoot, batch.removed)
            }
        }
        self.root = newRoot
        return removed
    }
}

extension PositionalTree {
    /// Appends `elements` in order: one descent per leaf filled, leaves filled completely.
    /// An element over `maxElementSize` throws `.tooLarge` before anything changes.
    public mutating func append(contentsOf elements: [UnsafeRawBufferPointer], in pages: some PageWriting) throws {
        for (i, element) in elements.enumerated() where element.count > Self.maxElementSize {
            throw StorageError(.tooLarge, "element \(i) of \(element.count) bytes exceeds the limit of \(Self.maxElementSize)")
        }
        guard !elements.isEmpty else { return }
        let start = UInt64(try count(in: pages))
        let root = self.root
        self.root = try elements.withUnsafeBufferPointer { e in
            var batch = PositionalAppendBatch(elements: e, start: start)
            return try TreeBatchEditor.run(root: root, &batch, pages).root
        }
    }

    /// Appends each of `values` as an 8-byte little-endian element (a list of links).
    public mutating func appendUInt64s(_ values: [UInt64], in pages: some PageWriting) throws {
        guard !values.isEmpty else { return }
        let little = values.map { $0.littleEndian }
        try little.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let elements = (0..<little.count).map { UnsafeRawBufferPointer(start: base + $0 * 8, count: 8) }
            try append(contentsOf: elements, in: pages)
        }
    }

    /// Removes the first `n` elements (0...count; else `.invalidArgument`, nothing removed),
    /// calling `body` with each in order first (valid only during the call): whole leaves are
    /// freed without being copied, one leaf is trimmed, one descent per leaf.
    public mutating func removeFirst(_ n: Int, in pages: some PageWriting,
                                     removing body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let total = try count(in: pages)
        guard n >= 0, n <= total else {
            throw StorageError(.invalidArgument, "index \(n) out of range 0..<\(total + 1)")
        }
        guard n > 0 else { return }
        let root = self.root
        let (newRoot, delta) = try withoutActuallyEscaping(body) { visit in
            var batch = PositionalRemoveFrontBatch(count: n, body: visit)
            return try TreeBatchEditor.run(root: root, &batch, pages)
        }
        guard delta == -n else { throw TreeError.corrupt(root, "removed \(-delta) of the first \(n) elements; subtree counts are wrong") }
        self.root = newRoot
    }
}
