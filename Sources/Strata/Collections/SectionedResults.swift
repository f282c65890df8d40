// Sectioned results: a sorted collection split into sections by a key computed from each element
// (`results.sectioned(by: \.firstLetter)`), as RealmSwift's `SectionedResults` and
// `ResultsSection`. How sections are laid out and how their changes are computed is in
// SectionLayout.swift; the `sectioned` methods that make them are in Sectioning.swift.
//
// Invariants:
// - Live, as the sorted source they read: every access sees the source's current elements. The
//   layout is recomputed only when the realm's version moves (frozen sources: once); sources
//   outside a realm are laid out on every access.
// - A section is found by its key, so a section value follows its key while other sections come
//   and go; a section whose key no longer occurs is empty.
// - Two sectioned results are equal only when one was copied from the other (as in Realm, two
//   calls of `sectioned` give unequal values).
import Foundation

/// What ``SectionedResults`` and ``ResultsSection`` have in common: a live, thread-confined,
/// observable collection.
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined where Index == Int {
    /// The realm of the source collection; `nil` when it is unmanaged.
    var realm: Realm? { get }
    /// Whether the source collection can no longer be read.
    var isInvalidated: Bool { get }
    /// Whether this is a frozen snapshot, readable on any thread and never changing.
    var isFrozen: Bool { get }
    /// A frozen snapshot of the sections, as they are now.
    func freeze() -> Self
    /// The live sections a frozen value was taken from, on the calling thread; a live value
    /// returns itself.
    func thaw() -> Self?
    /// Observes the sections: the handler receives `.initial`, then `.update` after commits that
    /// changed them.
    ///
    /// - Parameters:
    ///   - keyPaths: for elements that are objects, the properties whose changes count as
    ///     modifications; `nil` watches all of them.
    ///   - queue: the dispatch queue the handler runs on; `nil` runs it where the realm lives.
    ///   - block: called with each change.
    /// - Returns: a token that keeps the observation alive until it is invalidated or released.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken
}

extension RealmSectionedResult {
    /// Observes the sections with every property watched, the handler run where the realm lives
    /// (see ``RealmSectionedResult/observe(keyPaths:on:_:)``).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: Object {
    /// Observes the sections, counting changes of the given element properties as modifications.
    public func observe(keyPaths: [PartialKeyPath<Element.Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: queue, block)
    }
}

extension RealmSectionedResult where Element: Object {
    /// Observes the section, counting changes of the given element properties as modifications.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { persistedPropertyName($0, throughLinks: true) }, on: queue, block)
    }
}

/// What an observer of ``SectionedResults`` or of one ``ResultsSection`` receives.
///
/// Deletions and modifications are index paths in the previous sections, insertions index paths
/// in the new ones. An element that moved to another section, or was modified and moved within its
/// section, is a deletion plus an insertion. A removed section is reported in `sectionsToDelete`
/// (its elements' deletions are not listed); a new section in `sectionsToInsert`, with its
/// elements' insertions.
public enum SectionedResultsChange<Collection> {
    /// The first delivery: the sections as they are when observation starts.
    case initial(Collection)
    /// A later delivery after commits that changed the sections.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

/// The sorted source of sectioned results, its key function and its last layout.
final class SectionSource<Key: Hashable, Element: RealmCollectionValue>: @unchecked Sendable {
    // @unchecked: the layout cache is only touched under `lock`; the rest never changes.
    let results: Results<Element>
    let key: (Element) -> Key
    private let lock = NSLock()
    private var cached: (stamp: [UInt64], layout: SectionLayout<Key, Element>)?

    init(results: Results<Element>, key: @escaping (Element) -> Key) {
        self.results = results
        self.key = key
    }

    /// The sections of the source as it is now.
    var layout: SectionLayout<Key, Element> {
        guard let stamp = results.versionStamp else { return SectionLayout(elements: Array(results), key: key) }
        return lock.withLock {
            if let cached, cached.stamp == stamp { return cached.layout }
            let layout = SectionLayout(elements: Array(results), key: key)
            cached = (stamp, layout)
            return layout
        }
    }

    /// The same sections over other readings of the source (frozen, thawed, delivered).
    func over(_ other: Results<Element>) -> SectionSource { SectionSource(results: other, key: key) }

    /// Observes the source and turns each of its changes into a change of the sections (of all of
    /// them, or of the one with key `only`); a change that leaves them as they were is not
    /// delivered.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, only: Key?,
                 _ handler: @escaping (SectionSource, SectionDelta?) -> Void) -> NotificationToken {
        let key = self.key
        var last: SectionLayout<Key, Element>?
        return results.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let delivered):
                let source = SectionSource(results: delivered, key: key)
                last = source.layout
                handler(source, nil)
            case .update(let delivered, let deletions, let insertions, let modifications):
                let source = SectionSource(results: delivered, key: key)
                let now = source.layout
                defer { last = now }
                guard let before = last else { return handler(source, nil) }
                let delta = SectionDelta.between(before, now, deletions: deletions, insertions: insertions,
                                                 modifications: modifications, only: only)
                if !delta.isEmpty { handler(source, delta) }
            case .error(let error):
                // Misuse stops before this (ObservationMisuse); what is left is a failure to read
                // the file, which ends the observation. `SectionedResultsChange` has no error case
                // (as in Realm), so the failure goes to the log.
                Logger.log(.error, "Strata: observing sectioned results ended: \(error)")
            }
        }
    }

    /// How to find the same source in another realm of the file, and make of it what `make` makes
    /// (the sectioned results, or one section of them).
    func handover(_ make: @escaping (SectionSource) -> Any) -> _Handover? {
        guard let inner = results._strataHandover else { return nil }
        let key = self.key
        return _Handover(place: .wrapped(inner: inner, resolve: { inner, realm in
            Results<Element>._strataResolve(inner, in: realm).map { make(SectionSource(results: $0, key: key)) }
        }), identity: inner.identity, core: inner.core)
    }

    /// What `handover(_:)` made in `realm`.
    static func resolve<T>(_ handover: _Handover, in realm: Realm, as: T.Type) -> T? {
        guard case .wrapped(let inner, let resolve) = handover.place else { return nil }
        return resolve(inner, realm) as? T
    }
}

/// A collection split into sections by a key computed from each element, sorted so that the
/// primary sort decides the key; each section is a ``ResultsSection``.
///
/// ```swift
/// let byInitial = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
///                                                   sortDescriptors: [SortDescriptor(keyPath: "name")])
/// for section in byInitial {
///     print(section.key, section.map(\.name))
/// }
/// ```
///
/// Sectioned results are live: they follow the collection they were made from.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult {
    public typealias Element = ResultsSection<Key, SectionElement>
    let source: SectionSource<Key, SectionElement>

    init(source: SectionSource<Key, SectionElement>) {
        self.source = source
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { source.layout.keys.count }

    /// The key of every section, in order.
    public var allKeys: [Key] { source.layout.keys }

    /// The section at `index`.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = source.layout.keys
        guard keys.indices.contains(index) else {
            Stop.now("Strata: invalidArgument: section \(index) is out of range 0..<\(keys.count)")
        }
        return ResultsSection(source: source, key: keys[index])
    }

    /// The element at `indexPath`: its `section`, then its `item` within it.
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        self[indexPath.section][indexPath.item]
    }

    /// The realm of the collection sectioned; nil when it is unmanaged.
    public var realm: Realm? { source.results.realm }
    /// Whether the collection sectioned can no longer be read.
    public var isInvalidated: Bool { source.results.isInvalidated }
    /// Whether these are the sections of a frozen snapshot.
    public var isFrozen: Bool { source.results.isFrozen }

    /// The sections of a frozen snapshot of the collection, as they are now.
    public func freeze() -> SectionedResults {
        SectionedResults(source: source.over(source.results.freeze()))
    }

    /// The live sections a frozen value was taken from, on the calling thread; nil when the
    /// collection no longer exists.
    public func thaw() -> SectionedResults? {
        source.results.thaw().map { SectionedResults(source: source.over($0)) }
    }

    /// Observes the sections (see ``RealmSectionedResult/observe(keyPaths:on:_:)``); a commit that
    /// leaves them as they were delivers nothing.
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        source.observe(keyPaths: keyPaths, on: queue, only: nil) { delivered, delta in
            let sections = SectionedResults(source: delivered)
            guard let delta else { return block(.initial(sections)) }
            block(.update(sections, deletions: delta.deletions, insertions: delta.insertions,
                          modifications: delta.modifications, sectionsToInsert: delta.sectionsToInsert,
                          sectionsToDelete: delta.sectionsToDelete))
        }
    }

    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.source === rhs.source }

    public var _strataHandover: _Handover? { source.handover { SectionedResults(source: $0) } }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> SectionedResults? {
        SectionSource<Key, SectionElement>.resolve(handover, in: realm, as: SectionedResults.self)
    }
}

/// One section of ``SectionedResults``: the elements whose key is ``key``, in the source's order.
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable {
    public typealias Element = T
    let source: SectionSource<Key, T>
    /// The key every element of the section has.
    public let key: Key

    init(source: SectionSource<Key, T>, key: Key) {
        self.source = source
        self.key = key
    }

    /// The section's identity: its key.
    public var id: Key { key }

    private var members: [T] {
        let layout = source.layout
        return layout.sectionOf[key].map { layout.members[$0] } ?? []
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }

    /// The element at `index` of the section.
    public subscript(_ index: Int) -> T {
        let members = self.members
        guard members.indices.contains(index) else {
            Stop.now("Strata: invalidArgument: index \(index) is out of range 0..<\(members.count) of section \(key)")
        }
        return members[index]
    }

    /// The realm of the collection sectioned; nil when it is unmanaged.
    public var realm: Realm? { source.results.realm }
    /// Whether the collection sectioned can no longer be read.
    public var isInvalidated: Bool { source.results.isInvalidated }
    /// Whether this is a section of a frozen snapshot.
    public var isFrozen: Bool { source.results.isFrozen }

    /// The section, with the same key, of a frozen snapshot of the collection.
    public func freeze() -> ResultsSection {
        ResultsSection(source: source.over(source.results.freeze()), key: key)
    }

    /// The live section a frozen one was taken from, on the calling thread; nil when the
    /// collection no longer exists.
    public func thaw() -> ResultsSection? {
        source.results.thaw().map { ResultsSection(source: source.over($0), key: key) }
    }

    /// Observes this section: only commits that change it are delivered, with index paths of the
    /// whole sectioned results (see ``SectionedResultsChange``).
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        return source.observe(keyPaths: keyPaths, on: queue, only: key) { delivered, delta in
            let section = ResultsSection(source: delivered, key: key)
            guard let delta else { return block(.initial(section)) }
            block(.update(section, deletions: delta.deletions, insertions: delta.insertions,
                          modifications: delta.modifications, sectionsToInsert: delta.sectionsToInsert,
                          sectionsToDelete: delta.sectionsToDelete))
        }
    }

    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.source === rhs.source && lhs.key == rhs.key
    }

    public var _strataHandover: _Handover? {
        let key = self.key
        return source.handover { ResultsSection(source: $0, key: key) }
    }
    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> ResultsSection? {
        SectionSource<Key, T>.resolve(handover, in: realm, as: ResultsSection.self)
    }
}

extension Results {
    /// What identifies the version the results read: nil when they read something outside a realm
    /// (whose changes are not counted).
    var versionStamp: [UInt64]? {
        if let valueSource {
            guard let core = valueSource.realm()?.core else { return nil }
            return [core.changeCounter, core.generation, valueSource.isFrozen ? 1 : 0]
        }
        return [core.changeCounter, core.generation]
    }
}
