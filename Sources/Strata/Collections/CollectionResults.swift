// `Results` drawn from the objects of a list, a set or inverse links: what `list.filter(…)`,
// `set.sorted(…)` or `owners.where {…}` return, as in Realm.
//
// Invariants:
// - Such results read the collection afresh at each evaluation (they are live like every
//   `Results`), through the core they are evaluated on: a frozen copy reads the frozen snapshot.
// - Without a sort they keep the collection's order; a list's duplicates stay.
import Foundation

/// The collection a `Results` draws its objects from (see `Results.QueryParts.base`).
struct ResultsBase {
    /// The keys of the collection's objects, in its order, as `core` (live or frozen) sees them.
    let keys: (RealmCore) throws -> [UInt64]

    /// The objects a list or set of links holds (each element is its target's key).
    static func links(of collection: CollectionRef) -> ResultsBase {
        ResultsBase { core in
            var keys: [UInt64] = []
            let ref = CollectionRef(core: core, table: collection.table, column: collection.column, owner: collection.owner)
            core.lists.listForEach(ref) { _, bytes in
                if bytes.count >= 8 { keys.append(UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))) }
                return true
            }
            return keys
        }
    }
}

extension Results where Element: Object {
    /// Results over the objects of a collection, with its order.
    init(core: RealmCore, base: ResultsBase) {
        let info: ClassInfo
        do { info = try core.classInfo(Element.self) } catch { core.readFailed(error) }
        self.init(core: core, info: info)
        query.base = base
    }
}

extension List where Element: Object {
    /// The list's objects as `Results`, the starting point of its queries. An unmanaged list has
    /// no realm to query: Realm raises there, and this stops with a `Strata:` message.
    var objectResults: Results<Element> {
        guard let ref else { Stop.now("Strata: invalidState: an unmanaged List cannot be queried, sorted or aggregated; add its owner to a realm first") }
        return Results(core: ref.core, base: .links(of: ref))
    }
}

extension MutableSet where Element: Object {
    /// The set's objects as `Results` (see `List.objectResults`).
    var objectResults: Results<Element> {
        guard let ref else { Stop.now("Strata: invalidState: an unmanaged MutableSet cannot be queried, sorted or aggregated; add its owner to a realm first") }
        return Results(core: ref.core, base: .links(of: ref))
    }
}

extension LinkingObjects {
    /// The linking objects as `Results`, one per link, in backlink order.
    var objectResults: Results<Element> {
        guard let source else { Stop.now("Strata: invalidState: an unmanaged LinkingObjects cannot be queried, sorted or aggregated") }
        return Results(core: source.core, base: ResultsBase { core in
            LinkingObjects(source: Source(core: core, table: source.table, key: source.key, originProperty: source.originProperty)).keys
        })
    }
}
