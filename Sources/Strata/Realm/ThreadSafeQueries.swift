// `ThreadSafeReference` and `@ThreadSafe` for `Results`, `LinkingObjects` and
// `AnyRealmCollection`, as RealmSwift has them: resolved on another thread, they are the same
// query (or the same object's links) in that thread's realm, at the version it reads once the
// reference is resolved (ThreadSafeReference.swift).
//
// Invariants:
// - Results of objects carry their class and query parts, which name no realm (a query drawn
//   from a list or a set reads its keys from whatever realm it is given), so resolving rebuilds
//   them in the destination realm; their order and contents are then those of that version.
// - Results of values (`list.sorted(ascending:)`) cannot be referenced: their handover is nil, so
//   the reference is invalidated at once and resolves to nil, as for an unmanaged value.
// - Links resolve to nil when their object was deleted meanwhile; a wrapped collection resolves
//   to nil when the collection it wraps does.

extension Results: ThreadConfined {
    public var _strataHandover: _Handover? {
        guard valueSource == nil else { return nil }
        let info = self.info, query = self.query
        let rebuild: (Realm) -> Results<Element> = { realm in
            var results = Results(core: realm.core, info: info)
            results.query = query
            return results
        }
        return _Handover(place: .results(rebuild), identity: core.fileIdentity, core: core)
    }

    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> Results<Element>? {
        guard case .results(let payload) = handover.place, let rebuild = payload as? (Realm) -> Results<Element> else { return nil }
        return rebuild(realm)
    }
}

extension LinkingObjects: ThreadConfined {
    public var _strataHandover: _Handover? {
        source.map { _Handover(place: .linkingObjects(table: $0.table, key: $0.key, originProperty: $0.originProperty),
                               identity: $0.core.fileIdentity, core: $0.core) }
    }

    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> LinkingObjects<Element>? {
        guard case .linkingObjects(let table, let key, let originProperty) = handover.place else { return nil }
        let links = LinkingObjects(source: Source(core: realm.core, table: table, key: key, originProperty: originProperty))
        return links.isInvalidated ? nil : links
    }
}

extension AnyRealmCollection: ThreadConfined {
    public var _strataHandover: _Handover? {
        guard let inner = handoverBase() else { return nil }
        return _Handover(place: .wrapped(inner: inner, resolve: resolveBase), identity: inner.identity, core: inner.core)
    }

    public static func _strataResolve(_ handover: _Handover, in realm: Realm) -> AnyRealmCollection<Element>? {
        guard case .wrapped(let inner, let resolve) = handover.place else { return nil }
        return resolve(inner, realm) as? AnyRealmCollection<Element>
    }
}

extension AnyRealmCollection {
    /// How a wrapper over `C` is found again: through `C`'s own handover.
    static func handover<C: RealmCollection>(of base: C) -> (handover: () -> _Handover?, resolve: (_Handover, Realm) -> Any?) where C.Element == Element {
        ({ base._strataHandover }, { inner, realm in
            C._strataResolve(inner, in: realm).map { AnyRealmCollection($0) }
        })
    }
}
