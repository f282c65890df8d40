// Sequential reads of a PositionalTree by index without a descent per element: a cursor
// remembers the leaf of the last element read and the index of its first element.
//
// Invariants:
// - A cursor is used only for the root it was made from, and only while its leaf still has
//   the element count it had (checked on every use); otherwise the read descends again.
// - It cannot notice a change made in place (a page this transaction owns edited without
//   changing the root): its holder drops it whenever the tree may have changed.

/// The leaf of the element last read by index (see `PositionalTree.withElement(at:in:cursor:_:)`).
public struct PositionalCursor: Sendable, Equatable {
    let root: PageRef
    let leaf: PageRef
    /// Index of the leaf's first element in the tree.
    let start: Int
    let count: Int
}

extension PositionalTree {
    /// `withElement(at:in:_:)`, reading from `cursor`'s leaf when `index` is in it (no descent)
    /// and leaving in `cursor` the leaf of this element. Throws `.invalidArgument` when out
    /// of range. The caller drops the cursor (nil) whenever the tree may have changed.
    public func withElement<R>(at index: Int, in pages: some PageReading, cursor: inout PositionalCursor?,
                               _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if let c = cursor, c.root == root, index >= c.start, index - c.start < c.count {
            let leaf = try TreeNode.read(c.leaf, pages, PositionalFlavor.self)
            if leaf.isLeaf, leaf.count == c.count {
                return try leaf.leafCell(index - c.start, PositionalFlavor.self).value.withBytes(pages, body)
            }
        }
        guard index >= 0, let (leaf, position) = try TreeReader<PositionalFlavor>.find(root, UInt64(index), pages) else {
            cursor = nil
            throw StorageError(.invalidArgument, "index \(index) out of range 0..<\(try count(in: pages))")
        }
        cursor = PositionalCursor(root: root, leaf: leaf.ref, start: index - position, count: leaf.count)
        return try leaf.leafCell(position, PositionalFlavor.self).value.withBytes(pages, body)
    }
}
