// Results of values: `list.sorted(ascending:)`, `set.distinct()` and their chains give a
// `Results<Int>` (or of any value type), as RealmSwift does, read live from the source collection.
//
// Invariants:
// - Live: every read applies the steps (sort, distinct, in the order they were asked for) to the
//   source collection's current elements, so the results follow the source as Realm's do.
// - Values sort in the engine's query order of their stored forms (`PersistedType`): nil first,
//   numbers by value, strings and data by their bytes; the sort is stable. `distinct()` keeps the
//   first of each equal value.
// - Frozen, thawed and observed results are those of the frozen, thawed or observed source; an
//   observer gets the differences between the values it was last given and the new ones
//   (a changed value is a deletion and an insertion).
import Foundation

/// One step applied to a collection of values.
enum ValueResultsStep {
    case sort(ascending: Bool)
    case distinct
    /// Keeps the values that match (ValueQueries.swift).
    case filter((Any) -> Bool)
}

/// Where results of values read from, and how they follow their source (see the file header).
final class ValueResultsSource<Element: RealmCollectionValue> {
    let current: () -> [Element]
    let realm: () -> Realm?
    let isInvalidated: () -> Bool
    let isFrozen: Bool
    let frozen: () -> ValueResultsSource<Element>
    let thawed: () -> ValueResultsSource<Element>?
    /// Observes the source; the handler gets the source as delivered (`initial` true first).
    let observe: (DispatchQueue?, @escaping (Result<ValueResultsSource<Element>, Swift.Error>, Bool) -> Void) -> NotificationToken

    init(current: @escaping () -> [Element], realm: @escaping () -> Realm?, isInvalidated: @escaping () -> Bool,
                 isFrozen: Bool, frozen: @escaping () -> ValueResultsSource<Element>,
                 thawed: @escaping () -> ValueResultsSource<Element>?,
                 observe: @escaping (DispatchQueue?, @escaping (Result<ValueResultsSource<Element>, Swift.Error>, Bool) -> Void) -> NotificationToken) {
        self.current = current
        self.realm = realm
        self.isInvalidated = isInvalidated
        self.isFrozen = isFrozen
        self.frozen = frozen
        self.thawed = thawed
        self.observe = observe
    }

    /// The values of `base` after `steps`.
    static func make<C: RealmCollection>(_ base: C, steps: [ValueResultsStep]) -> ValueResultsSource<Element> where C.Element == Element {
        ValueResultsSource(
            current: { apply(steps, to: Array(base)) },
            realm: { base.realm },
            isInvalidated: { base.isInvalidated },
            isFrozen: base.isFrozen,
            frozen: { make(base.freeze(), steps: steps) },
            thawed: { base.thaw().map { make($0, steps: steps) } },
            observe: { queue, handler in
                base.observe(keyPaths: nil, on: queue) { change in
                    switch change {
                    case .initial(let c): handler(.success(make(c, steps: steps)), true)
                    case .update(let c, _, _, _): handler(.success(make(c, steps: steps)), false)
                    case .error(let error): handler(.failure(error), false)
                    }
                }
            })
    }

    static func apply(_ steps: [ValueResultsStep], to values: [Element]) -> [Element] {
        var out = values
        for step in steps {
            switch step {
            case .sort(let ascending):
                let keys = out.map { Object.queryValue(of: $0._strataPersistedValue) }
                let order = out.indices.sorted { a, b in
                    let c = QueryOrdering.compare(keys[a], keys[b])
                    return c == 0 ? a < b : (ascending ? c < 0 : c > 0)
                }
                out = order.map { out[$0] }
            case .distinct:
                var seen = Set<Element>()
                out = out.filter { seen.insert($0).inserted }
            case .filter(let matches):
                out = out.filter { matches($0) }
            }
        }
        return out
    }
}

extension RealmCollection where Element.PersistedType: SortableType {
    /// The values sorted by themselves, as live results.
    ///
    /// ```swift
    /// let scores = player.scores.sorted(ascending: false)
    /// ```
    ///
    /// - Parameter ascending: whether smaller values come first (nil first when ascending).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        Results(values: ValueResultsSource.make(self, steps: [.sort(ascending: ascending)]))
    }

    /// The distinct values, each where it first occurs, as live results.
    public func distinct() -> Results<Element> {
        Results(values: ValueResultsSource.make(self, steps: [.distinct]))
    }
}

/// What an observer of results of values was last given, to diff the next delivery against.
private final class LastDelivered<Element: Hashable> {
    var values: [Element] = []
}

extension Results {
    /// Observes results of values through their source (see the file header).
    func observeValues(_ source: ValueResultsSource<Element>, on queue: DispatchQueue?,
                       _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        let last = LastDelivered<Element>()
        return source.observe(queue) { result, initial in
            switch result {
            case .failure(let error):
                block(.error(error))
            case .success(let delivered):
                let results = Results(values: delivered)
                let now = delivered.current()
                defer { last.values = now }
                if initial {
                    block(.initial(results))
                    return
                }
                var ids: [Element: Int] = [:]
                func id(_ e: Element) -> Int {
                    if let i = ids[e] { return i }
                    ids[e] = ids.count
                    return ids.count - 1
                }
                let matched = SequenceDiff.matches(last.values.map(id), now.map(id))
                let keptOld = Set(matched.map(\.old)), keptNew = Set(matched.map(\.new))
                block(.update(results,
                              deletions: last.values.indices.filter { !keptOld.contains($0) },
                              insertions: now.indices.filter { !keptNew.contains($0) },
                              modifications: []))
            }
        }
    }
}
