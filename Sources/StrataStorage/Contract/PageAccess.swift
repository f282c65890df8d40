// The contract between the page file (pager, transactions) and the trees built on it.
//
// Invariants:
// - A page is `PageLayout.pageSize` bytes on disk. Its first `PageLayout.headerSize` bytes belong
//   to the pager (checksum, encryption nonce and tag); trees see only the payload that follows.
// - A committed page is never modified in place. Tree code changes a page only through
//   `PageWriting.writablePage(_:)` (or `writableNodePage(_:)` for tree nodes, which may skip the
//   node's unused gap), which copies it to a page owned by the current write transaction the
//   first time (copy-on-write) and hands back the new reference.
// - A page whose first payload byte is a tree page kind (`TreePageKind`, 1–8) follows that kind's
//   layout: an encrypted file seals such a page without what the layout calls free (the gap of a
//   slotted node, the unused capacity of a packed leaf; Crypto/CompactPage.swift), and those bytes
//   read back as zeros. Any other page is stored whole.
// - `PageRef.null` (page 0) is never a tree page: pages 0–7 hold the ring of eight meta slots
//   (`MetaLayout.slotCount`; version v is committed into slot v % 8) and page 8 a durability
//   record, so the first page a tree can get is page 9. A reference to a page below 9 read
//   through `PageReading` is reported as `.corruptFile`.

/// The number of a page in the file. Page `n` starts at byte `n * PageLayout.pageSize`.
public struct PageRef: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: UInt32

    @inlinable public init(_ raw: UInt32) { self.raw = raw }

    /// No page: an empty tree, an absent child.
    public static let null = PageRef(0)

    @inlinable public var isNull: Bool { raw == 0 }

    @inlinable public static func < (lhs: PageRef, rhs: PageRef) -> Bool { lhs.raw < rhs.raw }

    public var description: String { "page#\(raw)" }
}

/// Sizes shared by the pager and the trees.
public enum PageLayout {
    /// 4 KiB: the unit of the OS page cache and of one cipher call per page.
    public static let pageSize = 4096
    /// Pager-owned bytes at the start of every page: room for a 12-byte nonce and a 16-byte
    /// authentication tag when encrypted, a checksum and the writing version when not.
    public static let headerSize = 32
    /// Bytes of a page that tree code may use.
    public static let payloadSize = pageSize - headerSize
}

/// Read access to the pages of one version. Implemented by read and write transactions.
///
/// Pointers returned stay valid until the transaction ends. A `PageReading` may be used from
/// several threads at once for reads (a frozen realm does that).
public protocol PageReading: AnyObject {
    /// The payload (`PageLayout.payloadSize` bytes) of page `ref`, verified (checksum or
    /// authentication tag) the first time it is read.
    func readPage(_ ref: PageRef) throws(StorageError) -> UnsafeRawPointer
}

/// Write access within one write transaction. Confined to the thread that holds the
/// write transaction.
public protocol PageWriting: PageReading {
    /// A new zero-filled page owned by this transaction.
    func allocatePage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer)

    /// Copy-on-write. If `ref` was allocated by this transaction, returns it unchanged with its
    /// writable payload. Otherwise copies it into a new page, frees `ref` as of this
    /// transaction, and returns the new page: the caller must store the new reference in the
    /// parent (which it makes writable the same way).
    func writablePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer)

    /// `writablePage` for a page holding a tree node (Trees/NodeLayout.swift), which may leave
    /// out the unused gap between the slot array and the cells: after the call that gap holds
    /// unspecified bytes. Throws `.corruptFile` when the page's node header is inconsistent.
    /// The default is `writablePage`.
    func writableNodePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer)

    /// `ref` is no longer reachable from this transaction's version. If it was allocated by
    /// this transaction it is reusable at once; otherwise it becomes reusable once no reader
    /// can see a version that contains it.
    func freePage(_ ref: PageRef)

    /// Whether `ref` was allocated by this transaction (so writing it needs no copy).
    func isOwned(_ ref: PageRef) -> Bool

    /// Whether a node that an append leaves full (and that later edits rarely touch again)
    /// should move out of the pages this transaction writes together, into
    /// `allocateDetachedPage`. True for files whose commits write their pages as one contiguous
    /// extent (flushed per commit): a cold page left inside an extent splits the run its
    /// neighbours free into pieces too short for the next extents. The default is false.
    var placesFullNodesApart: Bool { get }

    /// A new page (undefined content) for a node that will stay unchanged for long: taken
    /// from scattered free space rather than from the current extent. The default is
    /// `allocatePage`.
    func allocateDetachedPage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer)
}

extension PageWriting {
    public func writableNodePage(_ ref: PageRef) throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try writablePage(ref)
    }

    public var placesFullNodesApart: Bool { false }

    public func allocateDetachedPage() throws(StorageError) -> (ref: PageRef, payload: UnsafeMutableRawPointer) {
        try allocatePage()
    }
}
