// Relocation: how the pager finds every tree of a version, including trees whose roots the layer
// above stores inside values (a list's root in its owner's row, table roots in the catalog).
//
// The pager knows tree pages (TreePages: branch children, overflow chains) but not which user
// roots are trees nor which value bytes are page references. The layer above describes that once
// per version with a `RelocationPlan`: the user-root words that hold tree roots, and, per kind of
// tree (`TreeRole`), where page references sit in its leaf values. Dense compaction (renumbering
// pages) and `verify()` (reachability) both walk a version through the plan.
//
// Invariants:
// - A page reference stored in a value is a little-endian UInt32 (`PageRef.raw`); 0 means no tree.
// - `ValueReferences.fixed` offsets apply to every value of the tree long enough to hold them
//   (a shorter value has no reference there — rows read an out-of-bounds slot as 0, too).
// - The walk never trusts the plan's offsets: an offset outside the value is skipped, a reference
//   to a page outside the version or reached twice is `.corruptFile` (found by the walkers).
// - Leaf values may be inline or in an overflow chain; `forEachEmbeddedRoot` reports where each
//   reference sits in either case so that a copier can rewrite it.

/// Which kind of tree a root belongs to, in the vocabulary of the layer that stores it. Opaque
/// to the pager: it only hands roles back to the plan.
public struct TreeRole: Hashable, Sendable, CustomStringConvertible {
    public var kind: UInt32
    public var index: UInt32

    public init(kind: UInt32, index: UInt32 = 0) {
        self.kind = kind
        self.index = index
    }

    public var description: String { "role(\(kind).\(index))" }
}

/// A page reference inside a leaf value: its byte offset in the value and the role of the tree
/// it roots.
public struct EmbeddedRoot: Hashable, Sendable {
    public var offset: Int
    public var role: TreeRole

    public init(offset: Int, role: TreeRole) {
        self.offset = offset
        self.role = role
    }
}

/// Where the leaf values of one kind of tree hold page references.
public enum ValueReferences: Sendable {
    /// No value holds a page reference (the walk never looks at values).
    case none
    /// Every value long enough holds a reference at each of these offsets (e.g. the collection
    /// columns of a row). No call per value.
    case fixed([EmbeddedRoot])
    /// Ask `RelocationPlan.embeddedRoots(inValue:key:role:)` for each value.
    case variable
}

/// The relocation description of one version, made by `PageRelocating.plan(for:in:)`.
/// Used by one copy or walk on one thread.
public protocol RelocationPlan {
    /// The user-root words that hold tree roots (in their low 32 bits) and each tree's role.
    /// Other words are opaque and copied unchanged.
    var rootTrees: [(word: Int, role: TreeRole)] { get }
    /// Page references inside `UserRoots.data`: offset of each little-endian UInt32 root in the
    /// data and the role of its tree (default: none). Offsets outside the data are skipped.
    var rootDataTrees: [EmbeddedRoot] { get }
    /// Where the leaf values of trees of `role` hold page references.
    func valueReferences(for role: TreeRole) -> ValueReferences
    /// For `.variable` roles: the references in `value`, the value of `key` (UInt64 keys as 8
    /// little-endian bytes, byte keys as they are, positional trees: empty).
    /// Throws when the value cannot be understood (the walk then fails with `.corruptFile`).
    func embeddedRoots(inValue value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       role: TreeRole) throws -> [EmbeddedRoot]
}

extension RelocationPlan {
    /// Page references inside `UserRoots.data` (the layer's bytes committed in the meta): the
    /// byte offset of each UInt32 root in the data and its tree's role. None by default.
    public var rootDataTrees: [EmbeddedRoot] { [] }
}

/// Supplied by the layer above (registered with `StorageFile.setRelocator`): describes the trees
/// of a version for dense compaction, dense copies and `verify()`.
public protocol PageRelocating: Sendable {
    /// The plan for the version whose roots are `roots`, readable through `pages` (e.g. to decode
    /// a schema that says which row bytes are references).
    func plan(for roots: UserRoots, in pages: any PageReading) throws -> any RelocationPlan
}

/// Where an embedded reference sits in the stored leaf.
enum EmbeddedLocation {
    /// Inside the leaf page: byte offset in the payload.
    case inline(payloadOffset: Int)
    /// Inside an overflow value: the value's first chain page and the byte offset in the value.
    case overflow(first: PageRef, valueOffset: Int, length: Int)
}

enum RelocationWalk {
    /// Calls `body` with each non-null page reference held in the values of the leaf `payload`
    /// (page `ref`) of a tree of `role`, whose values are described by `references`.
    /// `pages` is used to assemble overflow values. Throws `.corruptFile` on a bad page.
    static func forEachEmbeddedRoot(leaf payload: UnsafeRawPointer, ref: PageRef, role: TreeRole,
                                    references: ValueReferences, plan: any RelocationPlan,
                                    pages: any PageReading,
                                    _ body: (PageRef, TreeRole, EmbeddedLocation) throws -> Void) throws {
        if case .none = references { return }
        switch payload.load(as: UInt8.self) {
        case TreePageKind.keyedLeaf:
            try forEachValue(payload, ref, KeyedFlavor.self, role, references, plan, pages, body)
        case TreePageKind.bytesLeaf:
            try forEachValue(payload, ref, BytesFlavor.self, role, references, plan, pages, body)
        case TreePageKind.positionalLeaf:
            try forEachValue(payload, ref, PositionalFlavor.self, role, references, plan, pages, body)
        case TreePageKind.keyedPackedLeaf:
            // Packed leaves are written only for values without references (PackedLeaf.swift):
            // a reference spread over byte planes could not be rewritten by a copy.
            let leaf = try PackedLeaf(ref: ref, base: payload)
            for i in 0..<leaf.count {
                try leaf.withValue(i) { value in
                    let roots: [EmbeddedRoot]
                    switch references {
                    case .none: return
                    case .fixed(let fixed): roots = fixed
                    case .variable:
                        var key = leaf.key(i).littleEndian
                        roots = try withUnsafeBytes(of: &key) { try plan.embeddedRoots(inValue: value, key: $0, role: role) }
                    }
                    for root in roots where root.offset >= 0 && root.offset + 4 <= value.count
                        && value.loadUnaligned(fromByteOffset: root.offset, as: UInt32.self) != 0 {
                        throw StorageError(.corruptFile, "tree \(ref): a packed leaf holds a page reference (\(role))")
                    }
                }
            }
        default:
            return
        }
    }

    private static func forEachValue<F: TreeFlavor>(
        _ payload: UnsafeRawPointer, _ ref: PageRef, _ flavor: F.Type, _ role: TreeRole,
        _ references: ValueReferences, _ plan: any RelocationPlan, _ pages: any PageReading,
        _ body: (PageRef, TreeRole, EmbeddedLocation) throws -> Void
    ) throws {
        let node = try TreeNode(ref: ref, base: payload, flavor: F.self)
        for i in 0..<node.count {
            let cell = try node.leafCell(i, F.self)
            let valueStart = cell.offset + cell.size - cell.value.length  // inline: where the bytes start
            if case .fixed(let roots) = references, let inline = cell.value.inline {
                // The common case (rows with collection columns): read straight from the page.
                for root in roots where root.offset >= 0 && root.offset + 4 <= cell.value.length {
                    let raw = inline.treeU32(root.offset)
                    if raw != 0 { try body(PageRef(raw), root.role, .inline(payloadOffset: valueStart + root.offset)) }
                }
                continue
            }
            let key: UnsafeRawBufferPointer
            switch F.leafKind {
            case TreePageKind.keyedLeaf: key = UnsafeRawBufferPointer(start: payload + cell.offset, count: 8)
            case TreePageKind.bytesLeaf: key = UnsafeRawBufferPointer(start: payload + cell.offset + 2, count: cell.keySize - 2)
            default: key = UnsafeRawBufferPointer(start: nil, count: 0)
            }
            try cell.value.withBytes(pages) { value in
                let roots: [EmbeddedRoot]
                switch references {
                case .none: return
                case .fixed(let fixed): roots = fixed
                case .variable: roots = try plan.embeddedRoots(inValue: value, key: key, role: role)
                }
                for root in roots where root.offset >= 0 && root.offset + 4 <= value.count {
                    let raw = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: root.offset, as: UInt32.self))
                    guard raw != 0 else { continue }
                    let location: EmbeddedLocation = cell.value.inline == nil
                        ? .overflow(first: cell.value.firstOverflow, valueOffset: root.offset, length: cell.value.length)
                        : .inline(payloadOffset: valueStart + root.offset)
                    try body(PageRef(raw), root.role, location)
                }
            }
        }
    }

    /// The pages of the overflow chain of a `length`-byte value starting at `first`, in order.
    static func chainPages(first: PageRef, length: Int, pages: any PageReading) throws -> [PageRef] {
        var out: [PageRef] = []
        try TreeOverflow.forEachPage(first: first, length: length, pages) { ref, _, _ in out.append(ref) }
        return out
    }

    /// Where value byte `offset` of an overflow value lives: the chain index and payload offset.
    @inline(__always)
    static func overflowPosition(ofValueByte offset: Int) -> (chainIndex: Int, payloadOffset: Int) {
        (offset / TreeOverflow.chunkSize, TreeOverflow.dataOffset + offset % TreeOverflow.chunkSize)
    }
}

extension PageWalk {
    /// A reachability walker (for `verify()`) that finds every tree of a version through
    /// `relocator`: the root trees of the plan and, recursively, the trees referenced from values.
    /// Every page is read and checked like the trees do.
    public static func reachabilityWalker(using relocator: any PageRelocating) -> ReachabilityWalker {
        { roots, pages, visit in
            let plan = try relocator.plan(for: roots, in: pages)
            var shapes: [TreeRole: ValueReferences] = [:]
            var trees: [(PageRef, TreeRole)] = plan.rootTrees.compactMap { entry in
                let root = PageRef(UInt32(truncatingIfNeeded: roots[entry.word]))
                return root.isNull ? nil : (root, entry.role)
            }
            for entry in plan.rootDataTrees {
                guard let root = roots.dataReference(at: entry.offset), !root.isNull else { continue }
                trees.append((root, entry.role))
            }
            while let (root, role) = trees.popLast() {
                let references: ValueReferences
                if let known = shapes[role] { references = known } else {
                    references = plan.valueReferences(for: role)
                    shapes[role] = references
                }
                var stack = [root]
                while let ref = stack.popLast() {
                    try visit(ref)
                    let payload = try pages.readPage(ref)
                    try TreePages.forEachChild(ofPage: ref, payload: payload) { stack.append($0) }
                    try RelocationWalk.forEachEmbeddedRoot(leaf: payload, ref: ref, role: role, references: references,
                                                           plan: plan, pages: pages) { embedded, embeddedRole, _ in
                        trees.append((embedded, embeddedRole))
                    }
                }
            }
        }
    }
}

extension UserRoots {
    /// The little-endian UInt32 page reference at `offset` in `data`, nil when it does not fit.
    func dataReference(at offset: Int) -> PageRef? {
        guard offset >= 0, offset + 4 <= data.count else { return nil }
        let raw = UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24
        return PageRef(raw)
    }

    /// Stores `ref` at `offset` in `data` (which must hold it).
    mutating func setDataReference(_ ref: UInt32, at offset: Int) {
        data[offset] = UInt8(truncatingIfNeeded: ref)
        data[offset + 1] = UInt8(truncatingIfNeeded: ref >> 8)
        data[offset + 2] = UInt8(truncatingIfNeeded: ref >> 16)
        data[offset + 3] = UInt8(truncatingIfNeeded: ref >> 24)
    }
}
