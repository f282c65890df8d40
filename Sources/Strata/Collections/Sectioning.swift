// The `sectioned` methods of collections, which make ``SectionedResults`` (SectionedResults.swift).
//
// Invariants:
// - The collection is sorted first (by the descriptors; values by themselves when the key path is
//   "self"), then split by the key; the sorted source is live, so the sections are.
// - A section key path must be the primary sort key, as Realm requires: sections are contiguous
//   runs of the sort. Breaking that rule stops with a `Strata:` message, as Realm raises.
import Foundation

extension RealmCollection {
    /// Sorts the collection by `sortDescriptors`, then splits it into sections by the key
    /// `keyBlock` gives each element.
    ///
    /// The primary sort should decide the key, so that each section is one run of the sort.
    ///
    /// - Parameters:
    ///   - sortDescriptors: the sort keys, most significant first; `"self"` sorts values by
    ///     themselves. Sorting by a property needs a collection of objects.
    ///   - keyBlock: the section key of an element.
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        SectionedResults(source: SectionSource(results: sortedForSections(sortDescriptors), key: keyBlock))
    }

    /// Sorts the values of the collection by themselves, then splits them into sections by the key
    /// `block` gives each.
    ///
    /// ```swift
    /// let byInitial = person.nicknames.sectioned(by: { String($0.prefix(1)) })
    /// ```
    ///
    /// - Parameters:
    ///   - block: the section key of a value.
    ///   - ascending: whether smaller values come first (the default).
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key,
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }

    /// The collection sorted by `descriptors`, as results (see `sectioned(sortDescriptors:_:)`).
    fileprivate func sortedForSections(_ descriptors: [SortDescriptor]) -> Results<Element> {
        if !descriptors.isEmpty, descriptors.allSatisfy({ $0.keyPath == "self" }) {
            return Results(values: ValueResultsSource.make(self, steps: [.sort(ascending: descriptors[0].ascending)]))
        }
        if let source = self as? ObjectResultsSource, let objects = source.anyObjectResults as? SortableForSections,
           let sorted = objects.sortedForSections(descriptors) as? Results<Element> {
            return sorted
        }
        if descriptors.isEmpty { return Results(values: ValueResultsSource.make(self, steps: [])) }
        Stop.now("Strata: invalidArgument: a collection of \(Element.self) can only be sectioned sorted by \"self\", not by \(descriptors.map(\.keyPath))")
    }
}

/// Results of objects, sorted for sectioning without their element type known statically.
private protocol SortableForSections {
    func sortedForSections(_ descriptors: [SortDescriptor]) -> Any
}

extension Results: SortableForSections where Element: RealmFetchable {
    fileprivate func sortedForSections(_ descriptors: [SortDescriptor]) -> Any {
        descriptors.isEmpty ? self : sorted(by: descriptors)
    }
}

extension RealmCollection where Element: Object {
    /// Sorts the objects by the property `keyPath` reads, then splits them into a section per
    /// value.
    ///
    /// The key path may be a computed property of persisted ones, such as
    /// `var initial: String? { name.first.map(String.init) }`: the objects are sorted by the
    /// persisted property it reads.
    ///
    /// ```swift
    /// let byAge = realm.objects(Dog.self).sectioned(by: \.age)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: the section key of an object.
    ///   - ascending: whether smaller values come first (the default).
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: sectionSortPath(keyPath), ascending: ascending)]) {
            $0[keyPath: keyPath]
        }
    }

    /// Sorts the objects by `sortDescriptors`, whose first must be the property `keyPath` reads,
    /// then splits them into a section per value of `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: the section key of an object.
    ///   - sortDescriptors: the sort keys, most significant first. Empty, or a first key other than
    ///     `keyPath`, stops with a `Strata:` message, as Realm raises.
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else {
            Stop.now("Strata: invalidArgument: sectioned results need at least one sort descriptor")
        }
        let path = sectionSortPath(keyPath)
        if first.keyPath != path {
            Stop.now("Strata: invalidArgument: the section key path '\(path)' must be the primary sort descriptor, not '\(first.keyPath)'")
        }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// Sorts the objects by `sortDescriptors`, then splits them into sections by the key `block`
    /// gives each.
    ///
    /// ```swift
    /// let byInitial = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
    ///                                                   sortDescriptors: [SortDescriptor(keyPath: "name")])
    /// ```
    ///
    /// - Parameters:
    ///   - block: the section key of an object; the first sort key should decide it.
    ///   - sortDescriptors: the sort keys, most significant first.
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

    /// The property path a section key path sorts by: its own, or the persisted properties a
    /// computed one reads. One that reads none stops with a `Strata:` message.
    private func sectionSortPath(_ keyPath: PartialKeyPath<Element>) -> String {
        guard let steps = persistedPath(of: keyPath, strict: false) else {
            Stop.now("Strata: invalidArgument: the section key path \(keyPath) reads no persisted property of \(Element.self) to sort by")
        }
        return steps.map(\.name).joined(separator: ".")
    }
}

extension RealmCollection where Element: ProjectionObservable & RealmFetchable {
    /// Sorts the projections by the root property `keyPath` reads, then splits them into a section
    /// per value (see the same method on collections of objects).
    ///
    /// - Parameters:
    ///   - keyPath: the section key of a projection.
    ///   - ascending: whether smaller values come first (the default).
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: projectionSortPath(keyPath), ascending: ascending)]) {
            $0[keyPath: keyPath]
        }
    }

    /// Sorts the projections by `sortDescriptors` (root properties), whose first must be the root
    /// property `keyPath` reads, then splits them into a section per value of `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: the section key of a projection.
    ///   - sortDescriptors: the sort keys, most significant first; empty, or a first key other
    ///     than `keyPath`'s, stops with a `Strata:` message, as Realm raises.
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else {
            Stop.now("Strata: invalidArgument: sectioned results need at least one sort descriptor")
        }
        let path = projectionSortPath(keyPath)
        if first.keyPath != path {
            Stop.now("Strata: invalidArgument: the section key path '\(path)' must be the primary sort descriptor, not '\(first.keyPath)'")
        }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// Sorts the projections by `sortDescriptors` (root properties), then splits them into
    /// sections by the key `block` gives each.
    ///
    /// - Parameters:
    ///   - block: the section key of a projection; the first sort key should decide it.
    ///   - sortDescriptors: the sort keys, most significant first.
    /// - Returns: live sectioned results.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

    private func projectionSortPath(_ keyPath: AnyKeyPath) -> String {
        let path = Element.originPaths(of: [keyPath])[0]
        if path.isEmpty {
            Stop.now("Strata: invalidArgument: the section key path \(keyPath) reads no persisted property of \(Element.Root.className()) to sort by")
        }
        return path
    }
}
