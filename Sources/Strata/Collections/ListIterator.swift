// How a `for` loop reads a list: the elements the list held when the loop started, so that
// appending inside the loop neither extends nor disturbs it, as with RealmSwift.
//
// A managed list of objects whose accessors can be rebound (AccessorRebinding.swift) reads its
// links in one pass and makes each object as the loop reaches it, moving an accessor the loop let
// go of to the next link. Every other list reads its elements in one pass (`List.elements`).

extension List {
    /// Iterates the elements the list held when iteration started.
    public struct Iterator: IteratorProtocol {
        /// The elements read in one pass, for every list but a managed list of rebindable objects.
        private var elements: IndexingIterator<[Element]>?
        /// The linked objects' keys, read in one pass, for a managed list of rebindable objects.
        @usableFromInline let links: [UInt64]
        @usableFromInline var position = 0
        /// Where the linked objects live, and the accessor handed out last, for such a list.
        @usableFromInline var loop: AccessorLoop?

        init(_ list: List<Element>) {
            if let ref = list.ref, let loop = Self.rebindableLoop(of: ref) {
                var links: [UInt64] = []
                links.reserveCapacity(ref.core.lists.listCount(ref))
                ref.core.lists.listForEach(ref) { _, bytes in
                    // As `Object._strataDecodeElement` reads a link.
                    links.append(bytes.count >= 8 ? UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) : 0)
                    return true
                }
                self.links = links
                self.loop = loop
                elements = nil
            } else {
                elements = list.elements.makeIterator()
                links = []
            }
        }

        /// The class and table of a list of objects whose accessors can be rebound; nil for every
        /// other list (which then reads its elements as before, reporting any failure there).
        private static func rebindableLoop(of ref: CollectionRef) -> AccessorLoop? {
            // A list of dynamic objects is turned away before its class is looked up.
            guard let type = Element.self as? Object.Type, type != DynamicObject.self, let info = try? ref.core.classInfo(type),
                  let table = (try? ref.core.tableIndex(for: info, create: false)) ?? nil else { return nil }
            return AccessorLoop(element: Element.self, core: ref.core, info: info, table: table)
        }

        @inlinable
        public mutating func next() -> Element? {
            guard loop != nil else { return nextElement() }
            guard position < links.count else { return nil }
            let key = links[position]
            position += 1
            // Element is the object's class (`rebindableLoop`).
            return unsafeBitCast(loop!.accessor(for: key), to: Element.self)
        }

        /// `next()` of every list but a managed list of rebindable objects.
        @usableFromInline
        mutating func nextElement() -> Element? { elements?.next() }
    }
}
