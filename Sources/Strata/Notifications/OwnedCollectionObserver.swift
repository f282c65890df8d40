// Observers of collection properties (`List`, `MutableSet`, `Map` of a managed object): each
// version is read whole and diffed against the one last reported, like Results observers
// (CollectionObservers.swift), so coalesced commits and commits of other processes are correct.
//
// What counts as what:
// - List and MutableSet: elements are compared by encoding (an object by its key, a value by
//   its bytes); the alignment is SequenceDiff's (duplicates allowed). A matched element of a
//   collection of objects is modified when its target's fingerprint changed (the watched key
//   paths of the element class; all its properties by default). In a List of values, a value
//   replaced in place (`list[i] = v`) is a modification of i, as in Realm.
// - Map: deletions, insertions and modifications are KEYS (Realm's `RealmMapChange`); a key is
//   modified when its value's bytes changed or, for objects, its target's fingerprint changed.
// - The owner deleted: one last update reporting every element deleted (nothing when it was
//   empty), then delivery stops — realm-core's ListNotifier does the same.
//
// Invariants: as for every ChangeObserver, the observer is confined to its core's thread or
// queue and keeps no reference to the core (it is passed in, see ObserverHub.swift).
import Dispatch
import StrataStorage

/// What an owned-collection observer reports (turned into the public change type by the caller).
enum OwnedCollectionEvent {
    case initial
    case update(CollectionChangeSet)
    case mapUpdate(deletions: [String], insertions: [String], modifications: [String])
    case error(Swift.Error)
}

/// One version of an observed collection: element encodings in collection order, map keys
/// (maps only, parallel), target fingerprints (collections of objects only, parallel).
struct OwnedCollectionState {
    var elements: [[UInt8]] = []
    var mapKeys: [String] = []
    var prints: [[UInt8]] = []
}

final class OwnedCollectionObserver: ChangeObserver {
    let flag: ObserverFlag
    let table: Int
    let column: _Column
    let owner: UInt64
    let watched: WatchedPaths
    let deliver: (OwnedCollectionEvent, CollectionRef) -> Void
    var state = OwnedCollectionState()
    var version: UInt64 = .max

    init(flag: ObserverFlag, ref: CollectionRef, watched: WatchedPaths,
         deliver: @escaping (OwnedCollectionEvent, CollectionRef) -> Void) {
        self.flag = flag
        self.table = ref.table
        self.column = ref.column
        self.owner = ref.owner
        self.watched = watched
        self.deliver = deliver
    }

    func ref(on core: RealmCore) -> CollectionRef { CollectionRef(core: core, table: table, column: column, owner: owner) }

    /// The collection in the core's current snapshot; nil when the owner no longer exists.
    func read(core: RealmCore) throws -> OwnedCollectionState? {
        let p = try core.pages()
        guard table < core.snap.metas.count,
              try Realm.Error.wrap({ try core.snap.metas[table].objects.contains(owner, in: p) }) else { return nil }
        let root = try core.collectionState(table: table, column: column, owner: owner).root
        var out = OwnedCollectionState()
        guard !root.isNull else { return out }
        try Realm.Error.wrap {
            if column.collection == .map {
                try BytesTree(root: root).forEach(from: nil, in: p) { k, v in
                    out.mapKeys.append(String(decoding: k, as: UTF8.self))
                    out.elements.append(Array(v))
                    return true
                }
            } else {
                try PositionalTree(root: root).forEach(from: 0, in: p) { _, v in
                    out.elements.append(Array(v))
                    return true
                }
            }
        }
        let property = core.snap.schemas[table].allProperties[column.index]
        if column.type == .object, let target = core.targetTable(of: property) {
            var cache: [UInt64: [UInt8]] = [:]
            out.prints.reserveCapacity(out.elements.count)
            for e in out.elements {
                guard let key = Self.linkKey(e) else {
                    out.prints.append([])
                    continue
                }
                if let hit = cache[key] {
                    out.prints.append(hit)
                } else {
                    let print = try core.fingerprints.fingerprint(table: target, key: key, watching: watched, pages: p) ?? []
                    cache[key] = print
                    out.prints.append(print)
                }
            }
        }
        return out
    }

    /// The object key of a link element (8 bytes; a map's [1] + 8 bytes), nil for a nil link.
    static func linkKey(_ e: [UInt8]) -> UInt64? {
        let start: Int
        switch e.count {
        case 8: start = 0
        case 9 where e[0] == 1: start = 1
        default: return nil
        }
        return e.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
    }

    func start(core: RealmCore) {
        do {
            guard let s = try read(core: core) else {
                fail(Realm.Error(.objectInvalidated, "the object owning this collection was deleted or invalidated"), core: core)
                return
            }
            state = s
            version = core.snap.version
            deliver(.initial, ref(on: core))
        } catch {
            fail(error, core: core)
        }
    }

    func advance(core: RealmCore, silently: Bool) {
        guard version != .max, version != core.snap.version else { return }
        do {
            guard let new = try read(core: core) else {
                // The owner was deleted: report every element gone once, then stop.
                flag.set()
                if !silently && !state.elements.isEmpty {
                    if column.collection == .map {
                        deliver(.mapUpdate(deletions: state.mapKeys, insertions: [], modifications: []), ref(on: core))
                    } else {
                        deliver(.update(CollectionChangeSet(deletions: Array(state.elements.indices))), ref(on: core))
                    }
                }
                return
            }
            let old = state
            state = new
            version = core.snap.version
            guard !silently else { return }
            if column.collection == .map {
                let change = Self.mapChange(old: old, new: new)
                if !(change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty) {
                    deliver(.mapUpdate(deletions: change.deletions, insertions: change.insertions,
                                       modifications: change.modifications), ref(on: core))
                }
            } else {
                let change = Self.sequenceChange(old: old, new: new, isList: column.collection == .list,
                                                 ofObjects: column.type == .object)
                if !change.isEmpty { deliver(.update(change), ref(on: core)) }
            }
        } catch {
            fail(error, core: core)
        }
    }

    /// List/MutableSet change set (see the file header).
    static func sequenceChange(old: OwnedCollectionState, new: OwnedCollectionState, isList: Bool, ofObjects: Bool) -> CollectionChangeSet {
        var matches = SequenceDiff.matches(old: old.elements, new: new.elements)
        var modifications: [Int] = []
        if isList && !ofObjects {
            let folded = SequenceDiff.foldReplacements(oldCount: old.elements.count, newCount: new.elements.count, matches: matches)
            matches = folded.matches
            modifications = folded.replaced
        }
        var change = SequenceDiff.changeSet(oldCount: old.elements.count, newCount: new.elements.count, matches: matches)
        if ofObjects {
            for p in matches where old.prints[p.old] != new.prints[p.new] { modifications.append(p.old) }
        }
        change.modifications = modifications.sorted()
        return change
    }

    /// Map change by keys (both key lists are sorted: memcmp order of the BytesTree).
    static func mapChange(old: OwnedCollectionState, new: OwnedCollectionState)
        -> (deletions: [String], insertions: [String], modifications: [String]) {
        var oldAt: [String: Int] = [:]
        for (i, k) in old.mapKeys.enumerated() { oldAt[k] = i }
        var newKeys = Set<String>()
        var insertions: [String] = [], modifications: [String] = []
        for (j, k) in new.mapKeys.enumerated() {
            newKeys.insert(k)
            guard let i = oldAt[k] else {
                insertions.append(k)
                continue
            }
            let printChanged = !old.prints.isEmpty && !new.prints.isEmpty && old.prints[i] != new.prints[j]
            if old.elements[i] != new.elements[j] || printChanged { modifications.append(k) }
        }
        let deletions = old.mapKeys.filter { !newKeys.contains($0) }
        return (deletions, insertions, modifications)
    }

    private func fail(_ error: Swift.Error, core: RealmCore) {
        flag.set()
        deliver(.error(error), ref(on: core))
    }
}

/// What `observe(keyPaths:on:_:)` of a collection property hands to the observing queue.
struct OwnedCollectionRequest {
    let table: Int
    let column: _Column
    let owner: UInt64
    let noun: String
    let keyPaths: [String]?
    let deliver: (OwnedCollectionEvent, CollectionRef?) -> Void
}

enum OwnedCollectionObservation {
    /// Registers an observer of the collection `ref` (nil: unmanaged) and returns its token.
    /// `deliver` turns events into the public change type; its collection is nil only for
    /// errors raised before the collection could be reached (unmanaged, frozen, the observing
    /// queue's realm failed to open). `noun` names the collection in error messages.
    static func observe(ref: CollectionRef?, noun: String, keyPaths: [String]?, queue: DispatchQueue?,
                        deliver: @escaping (OwnedCollectionEvent, CollectionRef?) -> Void) -> NotificationToken {
        let flag = ObserverFlag()
        guard let ref else {
            ObservationMisuse.stop(.invalidArgument, "only managed collections can be observed; add the object owning this \(noun) to a realm first")
        }
        let core = ref.core
        if core.isFrozen {
            ObservationMisuse.stop(.invalidState, "a frozen \(noun) cannot be observed: it never changes; thaw it first")
        }
        let token = NotificationToken(flag: flag, retaining: core)
        if let queue, core.confinement != .queue(Confinement.queueIdentity(queue)) {
            let request = OwnedCollectionRequest(table: ref.table, column: ref.column, owner: ref.owner, noun: noun,
                                                 keyPaths: keyPaths, deliver: deliver)
            Handover.observe(configuration: core.configuration, queue: queue, token: token,
                             payload: QueueHandoff(value: request)) { realm, payload in
                let r = payload.value
                return observe(ref: CollectionRef(core: realm.core, table: r.table, column: r.column, owner: r.owner),
                               noun: r.noun, keyPaths: r.keyPaths, queue: nil, deliver: r.deliver)
            } onError: { payload, error in payload.value.deliver(.error(error), nil) }
            return token
        }
        core.checkThread()
        let watched = WatchedPaths(keyPaths)
        do {
            _ = try core.pages()
            guard ref.table < core.snap.schemas.count, ref.column.index < core.snap.schemas[ref.table].allProperties.count else {
                throw Realm.Error(.objectInvalidated, "the \(noun)'s class has no table in this version of '\(core.fileIdentity)'")
            }
            if let paths = keyPaths, !paths.isEmpty {
                let property = core.snap.schemas[ref.table].allProperties[ref.column.index]
                guard ref.column.type == .object, let target = core.targetTable(of: property) else {
                    throw Realm.Error(.invalidArgument, "key paths \(paths) given for a \(noun) of values; key paths name properties of the objects of a collection")
                }
                try watched.validate(table: target, core: core)
            }
        } catch {
            ObservationMisuse.stopIfMisuse(error)
            flag.set()
            deliver(.error(error), ref)
            return token
        }
        let observer = OwnedCollectionObserver(flag: flag, ref: ref, watched: watched) { deliver($0, $1) }
        let hub = core.observerHub()
        hub.add(observer, token: token)
        core.startWatchingIfQueueConfined(hub)
        core.deliverInitial(flag: flag) { observer.start(core: $0) }
        return token
    }
}
