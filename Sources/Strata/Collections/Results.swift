// Results: the objects of a class in a realm, lazily.
//
// Invariants:
// - Results are live: every access reads the realm's current snapshot (including uncommitted
//   changes of the current write). `count` asks the tree (O(1)) and loads no object.
// - Index access and iteration use a snapshot of the object keys, rebuilt when the realm's
//   change counter moves; `for … in` iterates the keys taken when the iterator was made.
// - The struct is ready to carry a predicate, sort descriptors and distinct key paths (the query
//   issue): `Query` holds them; with none, the results are every object in key order.
// - A predicate is evaluated on candidates found through an index when it has an `==`/`IN` on
//   an indexed or primary-key property, on every object otherwise; candidates come in key
//   order, so the result (and its order) is the scan's.
// - The predicate is evaluated on the stored row bytes when it compiles to a QueryRowProgram
//   (plain scalar properties only), on materialised objects otherwise; both give the same keys.
import Foundation
import StrataStorage

/// A sort key for ``Results/sorted(by:)``: a property name (or a path through to-one links) and a
/// direction.
public struct SortDescriptor: Sendable, Hashable {
    /// The property to sort by, such as `"age"` or `"owner.name"`.
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// Creates a sort key.
    ///
    /// - Parameters:
    ///   - keyPath: the property to sort by, such as `"age"` or `"owner.name"`.
    ///   - ascending: whether smaller values come first (the default).
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Creates a sort key from a Swift key path to a persisted property (`\Dog.age`).
    ///
    /// - Parameters:
    ///   - keyPath: a persisted property of the class, or a path through links (`\Dog.owner?.name`).
    ///   - ascending: whether smaller values come first (the default).
    public init<Element: Object>(keyPath: PartialKeyPath<Element>, ascending: Bool = true) {
        self.init(keyPath: persistedPropertyName(keyPath, throughLinks: true), ascending: ascending)
    }

    /// The same key in the other direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}

extension SortDescriptor: ExpressibleByStringLiteral {
    /// An ascending sort key written as the property's name (`sorted(by: ["owner.name", "age"])`).
    ///
    /// - Parameter keyPath: the property to sort by.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }
}

extension SortDescriptor: CustomStringConvertible {
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}

/// The objects of one class in a realm, optionally filtered, sorted and made distinct.
///
/// Results are *live* and *lazy*: nothing is read until you ask, and each access reads the realm's
/// current snapshot, including the uncommitted changes of the current write. ``count`` of an
/// unfiltered class loads no object. Results are confined to their realm's thread; use
/// ``freeze()`` to hand a snapshot of them to another one. Each refinement
/// (``filter(_:_:)``, ``where(_:)``, ``sorted(byKeyPath:ascending:)``, ``distinct(by:)``) returns
/// new results and leaves the receiver as it was.
///
/// ```swift
/// let dogs = realm.objects(Dog.self)
/// let puppies = dogs.filter("age < %@", 2).sorted(byKeyPath: "name")
/// let rexes = dogs.where { $0.name == "Rex" && $0.age > 1 }
/// for dog in puppies { print(dog.name) }
/// let meanAge: Double? = dogs.average(ofProperty: "age")
/// ```
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    // Results of objects read the class's table through `core` and `info`; results of values
    // (`list.sorted(ascending:)`, `set.distinct()`) read their source collection through
    // `valueSource` and have neither (ValueResults.swift). Exactly one of the two is set.
    private let objectCore: RealmCore?
    private let objectInfo: ClassInfo?
    let valueSource: ValueResultsSource<Element>?
    /// The keys last read, shared by copies of these results (and by what their observers
    /// deliver, so that `==` holds between them, as RealmSwift's results compare).
    let cache: KeyCache
    /// The realm's `era` when the results were made: `invalidate()` invalidates them.
    private let era: UInt32

    /// The query parts (predicate, sort, distinct, base), the same for every element type.
    typealias QueryParts = ResultsQuery
    var query = QueryParts()

    final class KeyCache {
        var keys: [UInt64] = []
        var stamp: UInt64 = .max
        var generation: UInt64 = .max
        /// The first keys of the order alone, when only they were read (`leadingKeys`): the
        /// `leadingAsked` best, or every key when the class has fewer.
        var leading: [UInt64] = []
        var leadingAsked = 0
        var leadingStamp: UInt64 = .max
        var leadingGeneration: UInt64 = .max
    }

    init(core: RealmCore, info: ClassInfo, cache: KeyCache = KeyCache()) {
        self.objectCore = core
        self.objectInfo = info
        self.valueSource = nil
        self.era = core.era
        self.cache = cache
    }

    init(values: ValueResultsSource<Element>) {
        self.objectCore = nil
        self.objectInfo = nil
        self.valueSource = values
        self.era = 0
        self.cache = KeyCache()
    }

    /// The realm of results of objects (only their code reads it).
    var core: RealmCore { objectCore! }
    /// The class of results of objects (only their code reads it).
    var info: ClassInfo { objectInfo! }

    /// The realm the results read (for results of values, their source collection's).
    public var realm: Realm? {
        if let valueSource { return valueSource.realm() }
        return Realm(core: core)
    }
    /// Whether these results come from a frozen realm, so they never change and can be read on any
    /// thread.
    public var isFrozen: Bool { valueSource?.isFrozen ?? core.isFrozen }

    /// The object of these results at `key`: `Element` is the class of `info` whenever `core` is
    /// set, so the object made from the class is an `Element` — or a projection of it
    /// (`realm.objects(PersonView.self)`), or `Element` is `DynamicObject`
    /// (`realm.dynamicObjects(_:)`), whose objects are views bound to `info`'s class.
    @inline(__always)
    private func object(table: Int, key: UInt64) -> Element {
        if Element.self == DynamicObject.self {
            return unsafeBitCast(DynamicObject.bound(ObjectBinding(core: core, info: info, table: table, key: key)), to: Element.self)
        }
        return Element._strataFromObject(core.materializeAny(info: info, table: table, key: key))
    }

    /// Whether the realm was invalidated since these results of objects were made.
    var isStale: Bool { objectCore.map { $0.era != era } ?? false }

    /// The table of the class (nil: no object of it was ever added). A failure to read the
    /// catalog stops (RealmCore.readFailed) rather than reading as an empty class. Every read of
    /// results of objects starts here, so here they stop once invalidated, as RealmSwift's do.
    private var table: Int? {
        if isStale { core.misuse(.objectInvalidated, "these '\(info.schema.className)' results were invalidated with their realm") }
        do { return try core.tableIndex(for: info, create: false) } catch { core.readFailed(error) }
    }

    /// What aggregates scan: the whole table, or the matching keys.
    var rowSource: RowSource? {
        guard let t = table else { return nil }
        return query.isEmpty ? .table(t) : .keys(t, keys)
    }

    /// The number of matching objects.
    ///
    /// Without a filter the class's object count is read directly. With one, the query is
    /// evaluated: a comparison of one column is counted over that column without collecting the
    /// matching keys; otherwise the keys are collected (and cached until the realm changes).
    public var count: Int {
        if let valueSource { return valueSource.current().count }
        core.checkThread()
        // A sort alone orders every object of the class: their number is the class's, as Realm
        // counts a sorted query without sorting it.
        if !query.isEmpty && !onlySortsTheClass { return matchCount }
        guard let t = table else { return 0 }
        do { return try core.snap.metas[t].objects.count(in: try core.pages()) } catch {
            core.readFailed(error)
        }
    }

    /// Whether no object matches.
    public var isEmpty: Bool { count == 0 }

    /// The object keys of the current snapshot, in key order.
    var keys: [UInt64] {
        core.checkThread()
        guard let t = table else { return [] }
        if cacheIsCurrent { return cache.keys }
        // Only a count-only evaluation may answer with a count.
        guard case .keys(let out) = evaluateQuery(table: t, countOnly: false) else {
            preconditionFailure("a query evaluated for its keys answered with a count")
        }
        remember(out)
        return out
    }

    /// Whether the query is a sort of the whole class and nothing else.
    private var onlySortsTheClass: Bool {
        !query.sort.isEmpty && query.predicate == nil && query.distinct.isEmpty && query.base == nil
    }

    /// Positions below this are read through `leadingKeys`; a read further in sorts the whole class.
    static var leadingLimit: Int { 1_024 }

    /// The first keys in the results' order, through `position` at least when there are that
    /// many, when the query only sorts the whole class by one numeric column and the whole order
    /// is not cached; nil otherwise, and from `leadingLimit` on (Collections/LeadingKeys.swift).
    /// Cached as the keys are; a read further in asks for twice as many. The checks that need
    /// no lookup come first: every subscript of every results passes here.
    private func leadingKeys(through position: Int) -> [UInt64]? {
        guard onlySortsTheClass, position >= 0, position < Self.leadingLimit else { return nil }
        core.checkThread()
        guard !cacheIsCurrent, let t = table else { return nil }
        if cache.leadingStamp == core.changeCounter && cache.leadingGeneration == core.generation,
           position < cache.leading.count || cache.leading.count < cache.leadingAsked {
            return cache.leading
        }
        let asked = Swift.min(Self.leadingLimit, Swift.max(128, 2 * (position + 1)))
        do {
            guard let found = try RowSort.leadingOfTable(t, count: asked, by: query.sort, info: info, core: core) else { return nil }
            cache.leading = found
            cache.leadingAsked = asked
            cache.leadingStamp = core.changeCounter
            cache.leadingGeneration = core.generation
            return found
        } catch {
            core.readFailed(error)
        }
    }

    /// Whether the cached keys are those of the current snapshot.
    private var cacheIsCurrent: Bool { cache.stamp == core.changeCounter && cache.generation == core.generation }

    /// Caches `keys` as the current snapshot's.
    private func remember(_ keys: [UInt64]) {
        cache.keys = keys
        cache.stamp = core.changeCounter
        cache.generation = core.generation
    }

    /// How many objects a query selects. A filter scanned a column at a time is counted without
    /// collecting its keys, as Realm counts a query without building its list: at 90%
    /// selectivity the appends were nearly half the count's time. Otherwise the keys are built
    /// (and cached). Its one caller, `count`, has checked the thread.
    private var matchCount: Int {
        guard let t = table else { return 0 }
        if cacheIsCurrent { return cache.keys.count }
        switch evaluateQuery(table: t, countOnly: true) {
        case .count(let n):
            return n
        case .keys(let out):
            remember(out)
            return out.count
        }
    }

    /// A query's outcome: the matching keys in the results' order, or only how many match.
    private enum QueryOutcome {
        case keys([UInt64])
        case count(Int)
    }

    /// Evaluates the query on the current snapshot. With `countOnly`, a filter that a field scan
    /// decides alone is only counted; every other plan gives the keys.
    private func evaluateQuery(table t: Int, countOnly: Bool) -> QueryOutcome {
        var out: [UInt64] = []
        var decided = false
        do {
            let p = try core.pages()
            if let base = query.base {
                // The collection's own objects, in its order (duplicates of a list kept).
                out = try evaluate(keys: try base.keys(core), table: t)
            } else {
                // An `==`/`IN` on an indexed or primary-key property narrows the candidates
                // (Query/QueryIndexPlan.swift); otherwise every object is a candidate.
                if let predicate = query.predicate, let found = try core.indexes.indexCandidates(table: t, predicate: predicate) {
                    out = found.keys
                    decided = found.exact
                    if !core.isFrozen { core.indexing.lastPlan = found.plan }
                    // Candidates that still need the predicate: evaluated on their row bytes when it compiles.
                    if !decided, let program = QueryRowProgram.compile(predicate, info: info) {
                        if !core.isFrozen { core.indexing.rowsExamined &+= out.count }
                        var matched: [UInt64] = []
                        var finger = LeafFinger()
                        for k in out {
                            let hit = try core.snap.metas[t].objects.withValue(forKey: k, in: p, finger: &finger) {
                                try program.matches(_RowView(bytes: $0, core: core))
                            }
                            if hit == true { matched.append(k) }
                        }
                        out = matched
                        decided = true
                    }
                } else if let predicate = query.predicate, let program = QueryRowProgram.compile(predicate, info: info) {
                    // A scan evaluated on the stored rows: no object is created (Query/QueryRowProgram.swift).
                    var examined = 0
                    // One comparison of a fixed-width column reads that field alone, leaf by
                    // leaf; otherwise only the bytes the program reads, when it names them
                    // (Core/ColumnScan.swift).
                    var counted: Int?
                    if !ColumnScan.wholeRows, let scan = program.fieldTest {
                        let objects = core.snap.metas[t].objects
                        if countOnly && query.distinct.isEmpty {
                            // A count needs neither keys nor null flags (unless distinct values
                            // must be told apart): the non-null values alone, as the aggregates
                            // read them; the rows they skip are the nulls.
                            var matched = 0
                            var nonNull = 0
                            try objects.forEachFieldValues(scan.field, in: p) { values in
                                nonNull &+= values.count
                                matched &+= scan.test.countMatches(values)
                            }
                            examined = try objects.count(in: p)
                            counted = matched &+ (scan.test.nullMatches ? examined &- nonNull : 0)
                        } else {
                            var collector = FieldMatchKeys()
                            try objects.forEachFieldLeaf(scan.field, in: p) { keys, bits, isNull in
                                examined &+= keys.count
                                scan.test.takeMatches(keys, bits, isNull, into: &collector)
                            }
                            out = collector.keys
                        }
                    } else {
                        try core.snap.metas[t].objects.forEachRow(reading: ColumnScan.bytes(program.readBytes), in: p) { k, row in
                            examined &+= 1
                            if try program.matches(_RowView(bytes: row, core: core)) { out.append(k) }
                            return true
                        }
                    }
                    if !core.isFrozen {
                        core.indexing.rowsExamined &+= examined
                        core.indexing.lastPlan = .scan
                    }
                    if let counted { return .count(counted) }
                    decided = true
                } else if query.predicate == nil, query.distinct.isEmpty,
                          let sorted = try RowSort.sortedTable(t, by: query.sort, info: info, core: core) {
                    // A sort by one numeric column alone reads that column (Collections/ColumnSort.swift).
                    return .keys(sorted)
                } else {
                    out = try core.snap.metas[t].objects.allKeys(in: p)
                    if query.predicate != nil && !core.isFrozen { core.indexing.lastPlan = .scan }
                }
                if !query.isEmpty { out = try evaluate(keys: out, table: t, predicateDecided: decided) }
            }
        } catch {
            core.readFailed(error)
        }
        return .keys(out)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    public subscript(position: Int) -> Element {
        if let valueSource {
            let values = valueSource.current()
            guard position >= 0, position < values.count else {
                Stop.now("Strata: invalidArgument: index \(position) is out of range 0..<\(values.count)")
            }
            return values[position]
        }
        if let leading = leadingKeys(through: position), position < leading.count, let t = table {
            return object(table: t, key: leading[position])
        }
        let k = keys
        guard position >= 0, position < k.count, let t = table else {
            core.misuse(.invalidArgument, "index \(position) is out of range 0..<\(k.count)")
        }
        return object(table: t, key: k[position])
    }

    /// The first object in the results' order, or `nil` when none matches.
    ///
    /// Without a query this is the object with the smallest key, found without building the key list.
    public var first: Element? {
        if let valueSource { return valueSource.current().first }
        core.checkThread()
        guard let t = table else { return nil }
        if !query.isEmpty {
            let leading = leadingKeys(through: 0) ?? keys
            return leading.first.map { object(table: t, key: $0) }
        }
        var key: UInt64?
        do {
            try core.snap.metas[t].objects.forEach(from: 0, in: try core.pages()) { k, _ in
                key = k
                return false
            }
        } catch { core.readFailed(error) }
        return key.map { object(table: t, key: $0) }
    }

    /// The last object in the results' order, or `nil` when none matches.
    public var last: Element? {
        if let valueSource { return valueSource.current().last }
        core.checkThread()
        guard let t = table else { return nil }
        if !query.isEmpty {
            if onlySortsTheClass && !cacheIsCurrent {
                do {
                    // The last of the order in one scan of the column (Collections/LeadingKeys.swift).
                    if let found = try RowSort.lastOfTable(t, by: query.sort, info: info, core: core) {
                        return found.map { object(table: t, key: $0) }
                    }
                } catch {
                    core.readFailed(error)
                }
            }
            return keys.last.map { object(table: t, key: $0) }
        }
        do {
            let k = try core.snap.metas[t].objects.lastKey(in: try core.pages())
            return k.map { object(table: t, key: $0) }
        } catch {
            core.readFailed(error)
        }
    }

    /// Iterates the objects that match when iteration starts; objects added later during the loop are
    /// not visited.
    public func makeIterator() -> Iterator {
        if let valueSource { return Iterator(results: self, keys: [], table: 0, values: valueSource.current()) }
        return Iterator(results: self, keys: keys, table: table ?? 0, values: nil)
    }

    /// Iterates the objects of ``Results`` that matched when the iterator was made.
    public struct Iterator: IteratorProtocol {
        let results: Results<Element>
        @usableFromInline let keys: [UInt64]
        let table: Int
        /// The values of results of values, as they were when iteration started.
        let values: [Element]?
        @usableFromInline var i = 0
        /// Set when the accessor handed out last may become the next one (AccessorRebinding.swift).
        @usableFromInline var loop: AccessorLoop?

        init(results: Results<Element>, keys: [UInt64], table: Int, values: [Element]?) {
            self.results = results
            self.keys = keys
            self.table = table
            self.values = values
            if values == nil {
                loop = AccessorLoop(element: Element.self, core: results.core, info: results.info, table: table)
            }
        }

        @inlinable
        public mutating func next() -> Element? {
            guard loop != nil else { return nextWithoutReuse() }
            guard i < keys.count else { return nil }
            let key = keys[i]
            i += 1
            return Element._strataFromObject(loop!.accessor(for: key))
        }

        /// `next()` for results of values and for objects whose accessors are not reused.
        @usableFromInline
        mutating func nextWithoutReuse() -> Element? {
            if let values {
                guard i < values.count else { return nil }
                defer { i += 1 }
                return values[i]
            }
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return results.object(table: table, key: keys[i])
        }
    }

    /// A frozen copy (immutable, usable anywhere); inside a write transaction, of the objects as
    /// the write found them. A storage failure stops with a `Strata:` message (as Realm).
    ///
    /// ```swift
    /// let frozen = realm.objects(Dog.self).freeze()
    /// Task.detached { print(frozen.count) }
    /// ```
    public func freeze() -> Results<Element> {
        if let valueSource { return Results(values: valueSource.frozen()) }
        var frozen = Results(core: core.frozenCoreOrStop(), info: info)
        frozen.query = query
        return frozen
    }

    /// The elements in RealmSwift's format (`Results<Dog> <0x…> (\n\t[0] Dog {…}\n)`).
    public var description: String { description(depth: RealmDescription.maxDepth) }
}

extension Results where Element: Object {
    /// The position of `object` in these results, or `nil` when it is unmanaged or does not match.
    ///
    /// - Parameter object: a managed object of the results' class.
    public func index(of object: Element) -> Int? {
        guard let b = object._binding else { return nil }
        return keys.firstIndex(of: b.key)
    }
}

/// What a `Results` of objects selects: a predicate, a sort, distinct keys, and the collection it
/// draws from.
struct ResultsQuery {
    var predicate: QueryPredicate?
    var sort: [SortDescriptor] = []
    var distinct: [String] = []
    /// For results drawn from a list, a set, a map or inverse links (`list.filter(…)`): those
    /// objects, in the collection's order, instead of the whole class.
    var base: ResultsBase?
    var isEmpty: Bool { predicate == nil && sort.isEmpty && distinct.isEmpty && base == nil }
}
