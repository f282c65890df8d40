// Dense compaction of object files: `shouldCompactOnLaunch` and `writeCopy` renumber pages through
// the object layer's relocation (catalog, rows' collection roots, backlinks, primary keys), keep
// every object, list, set, map, backlink and primary key, and leave no free space.
import Foundation
import Testing
@testable import StrataStorage
@testable import Strata
import StrataTestSupport

/// Every value the test models hold, in a canonical order (page numbers never appear).
func dumpObjects(_ realm: Realm) throws -> [String] {
    var out: [String] = []
    for p in realm.objects(Person.self).sorted(by: { $0.name < $1.name }) {
        out.append("person \(p.name) pic=\(p.picture?.count ?? -1) dogs=\(p.dogs.map(\.id)) tags=\(Array(p.tags))")
    }
    for d in realm.objects(Dog.self).sorted(by: { $0.id < $1.id }) {
        out.append("dog \(d.id) \(d.name) \(d.age) owner=\(d.owner?.name ?? "-") pk=\(realm.object(ofType: Dog.self, forPrimaryKey: d.id)?.name ?? "missing")")
    }
    for p in realm.objects(Person.self) where !p.pets.isEmpty {
        out.append("pets of \(p.name): \(p.pets.map(\.id).sorted())")
    }
    for c in realm.objects(Contact.self).sorted(by: { $0.id < $1.id }) {
        out.append("contact \(c.id) \(c.name) \(c.address?.street ?? "-") prev=\(c.previous.map(\.city)) pk=\(realm.object(ofType: Contact.self, forPrimaryKey: c.id) != nil)")
    }
    for p in realm.objects(Profile.self).sorted(by: { $0.name < $1.name }) {
        let best = p.best.keys.map { "\($0)=\(p.best[$0]??.id ?? "nil")" }
        out.append("profile \(p.name) tags=\(Array(p.tags)) scores=\(p.scores.keys.map { "\($0)=\(p.scores[$0] ?? -1)" }) friends=\(p.friends.map(\.id)) best=\(best)")
    }
    return out
}

/// Objects of every kind of tree, most of them then deleted (their lists, sets and maps freed).
func fillAndThin(_ realm: Realm, people: Int = 300) throws {
    try realm.write {
        for i in 0..<people {
            let p = Person()
            p.name = String(format: "p%04d", i)
            p.picture = i % 50 == 0 ? Data(repeating: UInt8(i % 256), count: 6000) : nil  // overflow rows
            for t in 0..<(i % 13) { p.tags.append("tag \(t) of \(i)") }
            realm.add(p)
            // Linked once both are managed (unmanaged objects linking both ways would retain
            // each other, and with them the realm).
            for j in 0..<(i % 9) {
                p.dogs.append(Dog(value: ["id": "d\(i)-\(j)", "name": "dog \(j) of \(i)", "age": j]))
                p.dogs[j].owner = p
            }
            let c = Contact(value: ["id": i, "name": "contact \(i)"])
            c.address = Address(value: ["street": "street \(i)", "city": "city \(i)"])
            for k in 0..<(i % 4) { c.previous.append(Address(value: ["street": "old \(k)", "city": "was \(i).\(k)"])) }
            realm.add(c)
            let pr = Profile()
            pr.name = "profile \(i)"
            for t in 0..<(i % 5) { pr.tags.insert("t\(t)") }
            for s in 0..<(i % 6) { pr.scores["s\(s)"] = i * 10 + s }
            realm.add(pr)
        }
        // A long list (branches in its tree) that survives.
        let keeper = Person()
        keeper.name = "keeper"
        for t in 0..<3000 { keeper.tags.append("long tag \(t)") }
        realm.add(keeper)
    }
    try realm.write {
        // Dogs of people that survive the thinning below.
        let dogs = realm.objects(Dog.self).filter { ($0.owner.flatMap { Int($0.name.dropFirst()) } ?? 1) % 10 == 0 }
        for pr in realm.objects(Profile.self) {
            if let i = Int(pr.name.dropFirst("profile ".count)), i % 10 == 0 {
                for d in dogs.prefix(i % 7) { pr.friends.insert(d) }
                pr.best["first"] = dogs.first
                pr.best["none"] = .some(nil)
            }
        }
    }
    try realm.write {
        // Keep every tenth person, contact and profile: 90% garbage.
        for p in Array(realm.objects(Person.self)) where p.name != "keeper" {
            if let i = Int(p.name.dropFirst()), i % 10 != 0 {
                realm.delete(Array(p.dogs))
                realm.delete(p)
            }
        }
        for c in Array(realm.objects(Contact.self)) where c.id % 10 != 0 { realm.delete(c) }
        for pr in Array(realm.objects(Profile.self)) {
            if let i = Int(pr.name.dropFirst("profile ".count)), i % 10 != 0 { realm.delete(pr) }
        }
    }
}

/// The number of live pages (reachable from the version, free list excluded) of a realm file,
/// verified through the object layer's relocation walk.
func livePages(_ realm: Realm) throws -> (live: Int, accounting: PageAccounting) {
    let file = realm.core.file
    let accounting = try file.verify()
    return (accounting.reachablePages - file.core.freeListPages.count - file.core.overflowPages.count, accounting)
}

/// `Catalog.allTreeRoots` must name exactly the roots `Catalog.encode(metas:)` writes: relocation
/// finds catalog-held trees only through it.
@Suite struct CatalogTreeRootsTests {
    @Test func allTreeRootsMatchesTheEncodedTableRoots() throws {
        var metas: [TableMeta] = []
        for t in 0..<5 {
            let objects = KeyedTree(root: PageRef(UInt32(100 + t)))
            let primaryKeys = BytesTree(root: PageRef(UInt32(200 + t)))
            var meta = TableMeta(objects: objects, primaryKeys: primaryKeys, nextKey: (UInt64(t) << 40) | 0xFFFF_FFFF)
            // Secondary indexes (in the value's trailer) on the even tables.
            if t % 2 == 0 { meta.indexes = [IndexTree(column: t + 1, tree: BytesTree(root: PageRef(UInt32(300 + t))))] }
            metas.append(meta)
        }
        let encoded = Catalog.encode(metas: metas)
        let roots = try Catalog.tablesKey.withUnsafeBytes { k in
            try encoded.withUnsafeBytes { v in try Catalog.allTreeRoots(inEntry: k, value: v) }
        }
        #expect(roots.count == 13)
        for (offset, tree) in roots {
            let raw = encoded.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
            switch tree {
            case .objects(let t): #expect(raw == UInt32(100 + t) && tree.rowTable == t)
            case .primaryKeys(let t): #expect(raw == UInt32(200 + t) && tree.rowTable == nil)
            case .index(let t, let column): #expect(raw == UInt32(300 + t) && column == t + 1 && tree.rowTable == nil)
            }
        }
        #expect(Set(roots.map { (entry: (offset: Int, tree: CatalogTree)) in entry.offset }).count == 13)
        // Other entries hold no roots; a damaged table-roots value is a typed error.
        let none = try Catalog.schemaKey.withUnsafeBytes { k in
            try encoded.withUnsafeBytes { v in try Catalog.allTreeRoots(inEntry: k, value: v) }
        }
        #expect(none.isEmpty)
        #expect {
            try Catalog.tablesKey.withUnsafeBytes { k in
                try encoded.dropLast().withUnsafeBytes { v in _ = try Catalog.allTreeRoots(inEntry: k, value: v) }
            }
        } throws: { ($0 as? Realm.Error)?.code == .corruptFile }
    }

    @Test func rowsNameTheirCollectionSlots() {
        let layout = RowLayout(properties: Person().objectSchema.properties)
        // Person: name, picture, dogs (list), tags (list), pets (linking objects: no slot).
        #expect(layout.collectionRootOffsets.count == 2)
        for offset in layout.collectionRootOffsets {
            #expect(layout.columns.contains { $0.offset == offset && $0.collection != .none })
        }
    }
}

@Suite(.serialized)
struct CompactionObjectTests {
    @Test(arguments: [false, true])
    func compactOnLaunchIsDenseAndKeepsEverything(encrypted: Bool) throws {
        var config = tempConfig()
        if encrypted { config.encryptionKey = Data((0..<64).map { UInt8(($0 * 7) & 0xFF) }) }
        let path = config.fileURL!.path
        let content: [String]
        let live: Int
        do {
            let realm = try Realm(configuration: config)
            try fillAndThin(realm)
            content = try dumpObjects(realm)
            // The dump covers every kind of tree (not vacuous).
            for needle in ["dogs=[\"d", "tags=[\"tag", "prev=[\"was", "friends=[\"d", "best=[\"first=d", "scores=[\"s0=", "pets of", "pic=6000", "keeper"] {
                #expect(content.contains { $0.contains(needle) }, "no \(needle) in the dump")
            }
            let before = try livePages(realm)
            live = before.live
            // Mostly garbage: free, or held (freed too recently to reuse; FileCore.reuseHorizon).
            #expect(before.accounting.freePages + before.accounting.heldForReaderPages > 2 * live)
        }
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(InstanceCache.shared.liveCores(identity: path).isEmpty)
        #expect(!CoreRegistry.shared.isOpen(path: path), "still open in this process")
        #expect(!LockFile.isOpenByAnotherProcess(lockPath: path + ".lock"), "still marked open in the lock file")
        var compacting = config
        let asked = LockedBox<(Int, Int)?>(nil)
        compacting.shouldCompactOnLaunch = { total, used in asked.set((total, used)); return true }
        let realm = try Realm(configuration: compacting)
        let sizes = try #require(asked.get())
        #expect(sizes.0 == sizeBefore && sizes.1 < sizes.0 / 2)
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(sizeAfter == (MetaLayout.headerPages + live) * PageLayout.pageSize)
        #expect(sizeAfter * 3 < sizeBefore)
        let after = try livePages(realm)
        #expect(after.live == live)
        #expect(after.accounting.freePages == 0 && after.accounting.balances)
        #expect(after.accounting.totalPages == after.accounting.metaPages + live)
        #expect(try dumpObjects(realm) == content)
        // The compacted file takes writes (lists, links, deletes) and stays consistent.
        try realm.write {
            let p = Person()
            p.name = "after"
            p.dogs.append(Dog(value: ["id": "after-dog", "name": "new"]))
            realm.add(p)
            if let c = realm.object(ofType: Contact.self, forPrimaryKey: 0) { realm.delete(c) }
        }
        #expect(try realm.core.file.verify().balances)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: "after-dog")?.name == "new")
    }

    @Test func writeCopyIsDenseForEveryKeyChange() throws {
        let config = tempConfig()
        let dir = config.fileURL!.deletingLastPathComponent()
        let key = Data((0..<64).map { UInt8(255 - $0) })
        let realm = try Realm(configuration: config)
        try fillAndThin(realm, people: 150)
        let content = try dumpObjects(realm)
        let live = try livePages(realm).live
        let secret = dir.appendingPathComponent("secret.realm")
        try realm.writeCopy(toFile: secret, encryptionKey: key)  // plain → encrypted
        var secretConfig = config
        secretConfig.fileURL = secret
        secretConfig.encryptionKey = key
        let plainAgain = dir.appendingPathComponent("plain-again.realm")
        let rekeyed = dir.appendingPathComponent("rekeyed.realm")
        let newKey = Data((0..<64).map { UInt8($0 ^ 0x3C) })
        do {
            let s = try Realm(configuration: secretConfig)
            #expect(try dumpObjects(s) == content)
            try s.writeCopy(toFile: plainAgain)                       // encrypted → plain
            try s.writeCopy(toFile: rekeyed, encryptionKey: newKey)   // encrypted → encrypted
        }
        for (url, k) in [(secret, Optional(key)), (plainAgain, nil), (rekeyed, Optional(newKey))] {
            var c = config
            c.fileURL = url
            c.encryptionKey = k
            let copy = try Realm(configuration: c)
            #expect(try dumpObjects(copy) == content)
            let accounting = try livePages(copy)
            #expect(accounting.live == live && accounting.accounting.freePages == 0 && accounting.accounting.balances)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            #expect(size == (MetaLayout.headerPages + live) * PageLayout.pageSize)
        }
        var wrong = config
        wrong.fileURL = rekeyed
        wrong.encryptionKey = key
        #expect { try Realm(configuration: wrong) } throws: { ($0 as? Realm.Error)?.code == .wrongEncryptionKey }
    }

    @Test func compactOnLaunchIsSkippedWhileTheFileIsOpen() throws {
        let config = tempConfig()
        let realm = try Realm(configuration: config)
        try fillAndThin(realm, people: 60)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as? Int)
        let asked = LockedBox<Bool>(false)
        var compacting = config
        compacting.shouldCompactOnLaunch = { _, _ in asked.set(true); return true }
        let second = try Realm(configuration: compacting)
        #expect(!asked.get())  // open in this process: not even asked
        #expect(try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as? Int == size)
        #expect(try dumpObjects(second) == (try dumpObjects(realm)))
    }
}
