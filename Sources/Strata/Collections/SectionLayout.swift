// How sectioned results are laid out and how a change of their sorted source becomes a change of
// sections (SectionedResults.swift).
//
// Invariants:
// - Sections come in the order their first element has in the sorted source, and elements keep
//   the source's order within their section. The primary sort should decide the key, as Realm
//   requires; when it does not, the elements of one key still gather in one section.
// - A layout is computed from one reading of the source and never changes; `SectionSource` keeps
//   the last one while the realm's version (change counter and generation) stays where it was.
// - Index paths of a change are those of the whole sectioned results, also when one section is
//   observed. Deletions and modifications are paths in the old layout, insertions in the new one.
//   An element that moved to another key, or was modified and moved within its section, is a
//   deletion plus an insertion; the deletions of a removed section are not listed (the section's
//   removal says it), the insertions of a new section are.
import Foundation

extension IndexPath {
    /// An index path of an element of sectioned results: its section, then its position in it.
    ///
    /// - Parameters:
    ///   - item: the element's position in its section.
    ///   - section: the section's position in the sectioned results.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section of an index path made with ``init(item:section:)``.
    public var section: Int { self[0] }

    /// The position within its section of an index path made with ``init(item:section:)``.
    public var item: Int { self[1] }
}

/// The sections of one reading of a sorted source.
struct SectionLayout<Key: Hashable, Element> {
    /// The section keys, in order.
    private(set) var keys: [Key] = []
    /// The elements of each section, in the source's order.
    private(set) var members: [[Element]] = []
    /// Each section's position, by key.
    private(set) var sectionOf: [Key: Int] = [:]
    /// For each element of the source, by its source index: its section and position there.
    private(set) var paths: [(section: Int, item: Int)] = []

    init(elements: [Element], key: (Element) -> Key) {
        paths.reserveCapacity(elements.count)
        for element in elements {
            let k = key(element)
            let s: Int
            if let existing = sectionOf[k] {
                s = existing
            } else {
                s = keys.count
                sectionOf[k] = s
                keys.append(k)
                members.append([])
            }
            paths.append((s, members[s].count))
            members[s].append(element)
        }
    }
}

/// One change of sectioned results (the fields of `SectionedResultsChange.update`).
struct SectionDelta {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty
            && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// The change from `old` to `new`, given the source's own change between them (deletions and
    /// modifications as old indices; insertions as new ones). With `only`, the change restricted
    /// to the section of that key.
    static func between<Key: Hashable, Element>(_ old: SectionLayout<Key, Element>, _ new: SectionLayout<Key, Element>,
                                                deletions: [Int], insertions: [Int], modifications: [Int],
                                                only: Key? = nil) -> SectionDelta {
        var delta = SectionDelta()
        func concerns(_ key: Key) -> Bool { only.map { $0 == key } ?? true }
        for (i, key) in old.keys.enumerated() where new.sectionOf[key] == nil && concerns(key) {
            delta.sectionsToDelete.insert(i)
        }
        for (i, key) in new.keys.enumerated() where old.sectionOf[key] == nil && concerns(key) {
            delta.sectionsToInsert.insert(i)
        }
        func deleted(_ oldIndex: Int) {
            let p = old.paths[oldIndex], key = old.keys[p.section]
            guard concerns(key), new.sectionOf[key] != nil else { return }
            delta.deletions.append(IndexPath(item: p.item, section: p.section))
        }
        func inserted(_ newIndex: Int) {
            let p = new.paths[newIndex]
            guard concerns(new.keys[p.section]) else { return }
            delta.insertions.append(IndexPath(item: p.item, section: p.section))
        }
        let deletedSet = Set(deletions), insertedSet = Set(insertions), modifiedSet = Set(modifications)
        let survivorsOld = old.paths.indices.filter { !deletedSet.contains($0) }
        let survivorsNew = new.paths.indices.filter { !insertedSet.contains($0) }
        guard survivorsOld.count == survivorsNew.count else {
            // The source's change does not match the two readings: everything was replaced.
            old.paths.indices.forEach(deleted)
            new.paths.indices.forEach(inserted)
            return delta.sorted()
        }
        deletions.filter { $0 < old.paths.count }.forEach(deleted)
        insertions.filter { $0 < new.paths.count }.forEach(inserted)
        for (o, n) in zip(survivorsOld, survivorsNew) {
            let before = old.paths[o], after = new.paths[n]
            let keyBefore = old.keys[before.section], keyAfter = new.keys[after.section]
            if keyBefore != keyAfter || (modifiedSet.contains(o) && before.item != after.item) {
                deleted(o)
                inserted(n)
            } else if modifiedSet.contains(o), concerns(keyAfter) {
                delta.modifications.append(IndexPath(item: before.item, section: before.section))
            }
        }
        return delta.sorted()
    }

    private func sorted() -> SectionDelta {
        var d = self
        d.deletions.sort()
        d.insertions.sort()
        d.modifications.sort()
        return d
    }
}
