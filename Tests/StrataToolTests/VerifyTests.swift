// `strata verify`: clean files pass; each kind of inconsistency — written into an otherwise valid
// file with the engine's own internals, so every page still has a valid checksum — is found and
// named, with exit status 1, and the file is never written.
import Foundation
import StrataStorage
@testable import Strata
import StrataTool
import Testing

@Suite("strata verify")
struct VerifyTests {
    @Test func aCleanFilePasses() throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let run = try StrataCLI.run(["verify", path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ok: ") && run.stdout.contains("3 classes, 7 objects"))
    }

    /// Writes the fixture, then lets `tamper` change it inside a write of the engine.
    private func tampered(_ tamper: (RealmCore, WriteTransaction) throws -> Void) throws -> String {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let realm = try Realm(configuration: ToolFixture.configuration(path))
        realm.beginWrite()
        let writing = try #require(realm.core.writeTxn)
        try tamper(realm.core, writing)
        realm.core.snap.metasDirty = true
        try realm.commitWrite()
        return path
    }

    private func expectProblem(_ path: String, _ fragment: String, atOpen: Bool = false) throws {
        let before = fileBytes(path)
        let run = try StrataCLI.run(["verify", path])
        #expect(run.status == 1)
        #expect(run.stdout.contains(fragment), "\(run.stdout)")
        // Damage met while opening is the error itself; anything later is a list of problems.
        #expect(run.stderr.contains(atOpen ? fragment : "verification failed"), "\(run.stderr)")
        #expect(fileBytes(path) == before)
    }

    private func table(_ core: RealmCore, _ name: String) throws -> Int { try #require(core.snap.tableByName[name]) }

    private func column(_ core: RealmCore, _ table: Int, _ name: String) throws -> Int {
        try #require(core.snap.schemas[table].properties.firstIndex { $0.name == name })
    }

    /// Rewrites one 8-byte link slot of an owner's row.
    private func setLinkSlot(_ core: RealmCore, _ w: WriteTransaction, owner: UInt64, property: String, to key: UInt64) throws {
        let t = try table(core, "ToolOwner")
        let c = core.layout(ofTable: t).columns[try column(core, t, property)]
        var row = try #require(try core.snap.metas[t].objects.withValue(forKey: owner, in: w) { Array($0) })
        row.withUnsafeMutableBytes { $0.storeBytes(of: key.littleEndian, toByteOffset: c.offset, as: UInt64.self) }
        row[c.index / 8] &= ~(1 << UInt8(c.index % 8))
        _ = try row.withUnsafeBytes { try core.snap.metas[t].objects.put(owner, $0, in: w) }
    }

    @Test func aLinkToNothingIsFound() throws {
        let path = try tampered { core, w in try setLinkSlot(core, w, owner: 2, property: "pet", to: 99) }
        try expectProblem(path, "ToolOwner object 2: pet links to ToolPet object 99, which does not exist")
    }

    @Test func aBacklinkWithoutItsLinkIsFound() throws {
        let path = try tampered { core, _ in
            let pets = try table(core, "ToolPet"), owners = try table(core, "ToolOwner")
            try core.backlinkStore.addTreeBacklink(target: pets, targetKey: 1, source: owners, column: try column(core, owners, "pets"),
                                     sourceKey: 2, by: 1, fresh: false, try #require(core.writeTxn))
        }
        try expectProblem(path, "backlinks: ToolPet object 1: 1 backlink(s) recorded from ToolOwner.pets of object 2, which holds 0 link(s) to it")
    }

    @Test func aLinkWithoutItsBacklinkIsFound() throws {
        // Bo's pet slot now names Rex, but the backlinks still say Kit.
        let path = try tampered { core, w in try setLinkSlot(core, w, owner: 2, property: "pet", to: 1) }
        try expectProblem(path, "ToolPet object 1: 0 backlink(s) recorded from ToolOwner.pet of object 2, which holds 1 link(s) to it")
        try expectProblem(path, "ToolPet object 4: 1 backlink(s) recorded from ToolOwner.pet of object 2, which holds 0 link(s) to it")
    }

    @Test func anEmbeddedObjectWithTwoOwnersIsFound() throws {
        let path = try tampered { core, w in
            let owners = try table(core, "ToolOwner"), addresses = try table(core, "ToolAddress")
            let c = try column(core, owners, "address")
            let adaAddress = try #require(try core.snap.metas[owners].objects.withValue(forKey: 1, in: w) {
                UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: core.layout(ofTable: owners).columns[c].offset, as: UInt64.self))
            })
            try setLinkSlot(core, w, owner: 2, property: "address", to: adaAddress)
            try core.backlinkStore.addBacklink(target: addresses, targetKey: adaAddress, source: owners, column: c, sourceKey: 2)
        }
        try expectProblem(path, "an embedded object with 2 owners (it must have exactly one)")
    }

    @Test func anIndexMissingAnEntryIsFound() throws {
        let path = try tampered { core, w in
            let owners = try table(core, "ToolOwner")
            var first: [UInt8] = []
            try core.snap.metas[owners].indexes[0].tree.forEach(from: nil, in: w) { k, _ in first = Array(k); return false }
            _ = try first.withUnsafeBytes { try core.snap.metas[owners].indexes[0].tree.remove($0, in: w) }
        }
        try expectProblem(path, "indexes: ToolOwner.name: index has 1 entries, the rows give 2 (1 missing, 0 extra)")
    }

    @Test func aPrimaryKeyTreeMissingAnEntryIsFound() throws {
        let path = try tampered { core, w in
            let owners = try table(core, "ToolOwner")
            var first: [UInt8] = []
            try core.snap.metas[owners].primaryKeys.forEach(from: nil, in: w) { k, _ in first = Array(k); return false }
            _ = try first.withUnsafeBytes { try core.snap.metas[owners].primaryKeys.remove($0, in: w) }
        }
        try expectProblem(path, "ToolOwner: primary-key tree has 1 entries for 2 objects")
    }

    @Test func aStringThatIsNotUTF8IsFound() throws {
        let path = try tampered { core, w in
            let pets = try table(core, "ToolPet")
            let c = core.layout(ofTable: pets).columns[try column(core, pets, "name")]
            var row = try #require(try core.snap.metas[pets].objects.withValue(forKey: 1, in: w) { Array($0) })
            let offset = Int(row.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: c.offset, as: UInt32.self) })
            row[offset] = 0xFF  // "Rex" → "\u{FF}ex": not UTF-8
            _ = try row.withUnsafeBytes { try core.snap.metas[pets].objects.put(1, $0, in: w) }
        }
        try expectProblem(path, "ToolPet objects: ToolPet.name of object 1: a string that is not valid UTF-8")
    }

    @Test func aPageFailingItsChecksumIsFound() throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        // The first data page (page 9) holds a tree page of the newest version; flip one bit.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 9 * 4096 + 100)
        let byte = try #require(try handle.read(upToCount: 1))
        try handle.seek(toOffset: 9 * 4096 + 100)
        try handle.write(contentsOf: Data([byte[0] ^ 0x10]))
        try handle.close()
        try expectProblem(path, "corruptFile: page 9 fails its checksum", atOpen: true)
    }
}
