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
        private let links: [UInt64]
        private let target: ObjectTarget?
        private var position = 0
        /// The accessor handed out last.
        private var lent: Object?

        /// Where the linked objects live.
        private struct ObjectTarget {
            let core: RealmCore
            let info: ClassInfo
            let table: Int
        }

        init(_ list: List<Element>) {
            if let ref = list.ref, let target = Self.rebindableTarget(of: ref) {
                var links: [UInt64] = []
                links.reserveCapacity(ref.core.lists.listCount(ref))
                ref.core.lists.listForEach(ref) { _, bytes in
                    // As `Object._strataDecodeElement` reads a link.
                    links.append(bytes.count >= 8 ? UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) : 0)
                    return true
                }
                self.links = links
                self.target = target
                elements = nil
            } else {
                elements = list.elements.makeIterator()
                links = []
                target = nil
            }
        }

        /// The class and table of a list of objects whose accessors can be rebound; nil for every
        /// other list (which then reads its elements as before, reporting any failure there).
        private static func rebindableTarget(of ref: CollectionRef) -> ObjectTarget? {
            guard let type = Element.self as? Object.Type, Element.self != DynamicObject.self,
                  let info = try? ref.core.classInfo(type), info.rebindsAccessors,
                  let table = (try? ref.core.tableIndex(for: info, create: false)) ?? nil else { return nil }
            return ObjectTarget(core: ref.core, info: info, table: table)
        }

        public mutating func next() -> Element? {
            guard let target else { return elements?.next() }
            guard position < links.count else { return nil }
            defer { position += 1 }
            let key = links[position]
            if let object = AccessorRebinding.unreachable(&lent) {
                AccessorRebinding.rebind(object, core: target.core, info: target.info, table: target.table, key: key)
                return unsafeBitCast(object, to: Element.self)  // Element is the object's class (`rebindableTarget`)
            }
            let made = target.core.materializeAny(info: target.info, table: target.table, key: key)
            lent = made
            return unsafeBitCast(made, to: Element.self)
        }
    }
}
