// Fuzzes what a file's bytes can do to an open and a full read: the input is a whole realm file
// (the seeds: a small file of the damaged-file corpus's model, plain and AES-GCM encrypted, written
// in three commits, then copied densely), written to a fresh path, opened without and with the corpus's key, and read
// entirely (`Corpus.readAll`: every object, property and list entry, counts, primary-key lookups).
//
// Invariant, the damaged-file corpus's (Tests/StrataTests/DamageCorpusTests.swift): each open
// either throws `Realm.Error`, or reads exactly one of the versions the seeds were written with
// (their digests are computed here by writing the same file). No crash, no trap (a non-throwing
// read that stops the process is damage that should have been found at the open), no hang.
import Foundation
import Strata
import StrataCorpus

public enum FileBytesTarget: FuzzTarget {
    public static let name = "file"
    public static let invariant = "opening the bytes as a realm throws Realm.Error or reads exactly a version the seed files hold"

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        let known = try knownDigests()
        let folder = try FuzzScratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fuzzed.realm"
        guard FileManager.default.createFile(atPath: path, contents: Data(input)) else { throw FuzzFailure("cannot write \(path)") }
        for encrypted in [false, true] {
            let realm: Realm
            do { realm = try Realm(configuration: Corpus.configuration(path: path, encrypted: encrypted)) } catch is Realm.Error {
                continue
            } catch {
                throw FuzzFailure("open (encrypted: \(encrypted)) threw an untyped error \(type(of: error)): \(error)")
            }
            let read = Corpus.readAll(realm)
            guard known.contains(read.digest) else {
                throw FuzzFailure("opened (encrypted: \(encrypted)) and read \(read.items) items, \(read.entries) list entries: not a version the seeds hold")
            }
        }
    }

    /// The digests of every version `write` gives, plain or encrypted (the same objects).
    static func knownDigests() throws(FuzzFailure) -> Set<UInt64> {
        if let digests = knownDigestsOnce { return digests }
        throw FuzzFailure("cannot write the seed file to learn its digests")
    }

    private static let knownDigestsOnce: Set<UInt64>? = {
        guard let folder = try? FuzzScratch.folder() else { return nil }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard let digests = try? write(at: folder + "/seed.realm", encrypted: false) else { return nil }
        // A file with no objects at all (an empty schema's file) also reads consistently.
        return Set(digests)
    }()

    public static func seeds() throws(FuzzFailure) -> [String: [UInt8]] {
        let folder = try FuzzScratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var seeds: [String: [UInt8]] = [:]
        for encrypted in [false, true] {
            let path = folder + (encrypted ? "/encrypted.realm" : "/plain.realm"), dense = path + ".dense"
            do {
                _ = try write(at: path, encrypted: encrypted)
                // A written file is 2 MB (its first allocation), a dense copy of its newest version
                // 64 KB: small enough to commit and for libFuzzer to copy and write per input.
                try Realm(configuration: Corpus.configuration(path: path, encrypted: encrypted))
                    .writeCopy(toFile: URL(fileURLWithPath: dense), encryptionKey: encrypted ? Corpus.key : nil)
                seeds[encrypted ? "encrypted.realm" : "plain.realm"] = Array(try Data(contentsOf: URL(fileURLWithPath: dense)))
            } catch {
                throw FuzzFailure("cannot write the seed \(path): \(error)")
            }
        }
        return seeds
    }

    /// A small file of the corpus's model in three durable commits (the last deletes, so the
    /// newest version keeps pages of every commit); returns the digest after each commit.
    static func write(at path: String, encrypted: Bool) throws -> [UInt64] {
        var digests: [UInt64] = []
        let realm = try Realm(configuration: Corpus.configuration(path: path, encrypted: encrypted))
        digests.append(Corpus.readAll(realm).digest)
        try realm.write {
            var made: [CorpusItem] = []
            for i in 0..<12 {
                let o = CorpusItem()
                o.id = i
                o.name = Corpus.name(i)
                o.score = Double(i) * 1.5
                o.note = i % 4 == 0 ? nil : "note \(i)"
                o.partner = i > 0 ? made[(i * 7) % i] : nil
                made.append(o)
            }
            realm.add(made)
            let owner = CorpusOwner()
            owner.id = 1
            owner.label = "owner 1"
            owner.entries.append(objectsIn: made.prefix(9))
            realm.add(owner)
        }
        digests.append(Corpus.readAll(realm).digest)
        try realm.write {
            for o in realm.objects(CorpusItem.self) where o.id % 3 == 0 { o.score += 0.25 }
        }
        digests.append(Corpus.readAll(realm).digest)
        try realm.write {
            realm.delete(realm.objects(CorpusItem.self).filter { $0.id >= 8 })
        }
        digests.append(Corpus.readAll(realm).digest)
        return digests
    }
}

/// A fresh folder per input under the system's temporary folder, removed by the caller.
enum FuzzScratch {
    static func folder() throws(FuzzFailure) -> String {
        let path = NSTemporaryDirectory() + "/strata-fuzz-\(getpid())-" + UUID().uuidString
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw FuzzFailure("cannot create \(path): \(error)")
        }
        return path
    }
}
