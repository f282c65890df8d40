// One error type: every public throwing call of Strata that meets a storage failure throws a
// `Realm.Error` (one `catch let e as Realm.Error` handles it), with the storage layer's own error
// inside (`storageError`: its finer code and the file). Failures are injected through the storage
// layer's test hooks (FileCore's `injected…Errno`): a full disk (ENOSPC) or a failing flush (EIO)
// at the next page write, meta write or flush.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataCorpus
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ErrorSurfacingTests {
    func openWithItems(_ n: Int = 3) throws -> Realm {
        let realm = try Realm(configuration: tempConfig("surface", durability: .full))
        try realm.write {
            for i in 0..<n { realm.add(CorpusMarker(value: [i])) }
        }
        return realm
    }

    /// Runs `body` and returns the `Realm.Error` it threw (recording an issue for anything else).
    func realmError(_ body: () throws -> Void) -> Realm.Error? {
        do {
            try body()
            Issue.record("expected a Realm.Error")
        } catch let e as Realm.Error {
            return e
        } catch {
            Issue.record("not a Realm.Error: \(type(of: error)) \(error)")
        }
        return nil
    }

    @Test func aFullDiskAtWriteIsARealmErrorWithTheStorageCause() throws {
        let realm = try openWithItems()
        realm.core.file.core.injectedWriteErrno = ENOSPC
        let e = realmError { try realm.write { realm.add(CorpusMarker(value: [10])) } }
        #expect(e?.code == .diskFull)
        #expect(e?.storageError?.code == .diskFull)
        #expect(e?.storageError?.path != nil)
        // Nothing of it is visible, and writing resumes once space is back.
        #expect(realm.objects(CorpusMarker.self).count == 3)
        try realm.write { realm.add(CorpusMarker(value: [10])) }
        #expect(realm.objects(CorpusMarker.self).count == 4)
    }

    @Test func aFullDiskAtCommitWriteIsARealmError() throws {
        let realm = try openWithItems()
        realm.beginWrite()
        realm.add(CorpusMarker(value: [11]))
        realm.core.file.core.injectedMetaWriteErrno = ENOSPC
        let e = realmError { try realm.commitWrite() }
        #expect(e?.code == .diskFull)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func aFailedFlushIsARealmErrorAndSoAreTheWritesRefusedAfterIt() throws {
        let realm = try openWithItems()
        realm.core.file.core.injectedFlushErrno = EIO
        let e = realmError { try realm.write { realm.add(CorpusMarker(value: [12])) } }
        #expect(e?.code == .fileAccess)
        #expect(e?.storageError?.code == .io)
        let again = realmError { try realm.write { realm.add(CorpusMarker(value: [13])) } }
        #expect(again != nil)
    }

    @Test func writeAsyncReportsARealmError() throws {
        let realm = try openWithItems()
        realm.core.file.core.injectedWriteErrno = ENOSPC
        var reported: (any Error)?
        realm.writeAsync({ realm.add(CorpusMarker(value: [14])) }, onComplete: { reported = $0 })
        #expect((reported as? Realm.Error)?.code == .diskFull, "\(String(describing: reported))")
    }

    @Test func asyncWriteOnAnActorThrowsARealmError() async throws {
        let writer = MarkerWriter(configuration: tempConfig("surface-async", durability: .full))
        try await writer.add(1)
        try await writer.injectFullDisk()
        do {
            try await writer.add(2)
            Issue.record("expected a Realm.Error")
        } catch let e as Realm.Error {
            #expect(e.code == .diskFull)
            #expect(e.storageError?.code == .diskFull)
        }
        #expect(try await writer.count() == 1)
    }

    @Test func aFullDiskDuringWriteCopyIsARealmErrorAndLeavesNothing() throws {
        let realm = try openWithItems()
        let dir = CorpusFile.directory("surface-copy")
        let destination = dir + "/copy.realm"
        realm.core.file.core.injectedWriteErrno = ENOSPC
        let e = realmError { try realm.writeCopy(toFile: URL(fileURLWithPath: destination)) }
        #expect(e?.code == .diskFull)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // The next copy to the same name works.
        try realm.writeCopy(toFile: URL(fileURLWithPath: destination))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["copy.realm"])
    }

    @Test func copyingOntoAnExistingFileIsARealmError() throws {
        let realm = try openWithItems()
        let dir = CorpusFile.directory("surface-exists")
        let destination = dir + "/copy.realm"
        _ = FileManager.default.createFile(atPath: destination, contents: Data("keep".utf8))
        #expect(realmError { try realm.writeCopy(toFile: URL(fileURLWithPath: destination)) }?.code == .fileExists)
        try realm.write {
            realm.add(CorpusMarker(value: [20]))
            #expect(realmError { try realm.writeCopy(toFile: URL(fileURLWithPath: destination)) }?.code == .fileExists)
        }
        #expect(FileManager.default.contents(atPath: destination) == Data("keep".utf8))
    }

    @Test func openingGarbageOrAWrongKeyIsARealmErrorWithTheStorageCause() throws {
        let dir = CorpusFile.directory("surface-open")
        let garbage = dir + "/garbage.realm"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x5A, count: 64 * 1024))
        let g = realmError { _ = try Realm(configuration: Corpus.configuration(path: garbage, encrypted: false)) }
        #expect(g?.storageError != nil, "\(String(describing: g))")

        let encrypted = dir + "/e.realm"
        do {
            let realm = try Realm(configuration: Corpus.configuration(path: encrypted, encrypted: true))
            try realm.write { realm.add(CorpusMarker(value: [1])) }
        }
        var wrong = Corpus.configuration(path: encrypted, encrypted: true)
        wrong.encryptionKey = Data(repeating: 7, count: 64)
        let w = realmError { _ = try Realm(configuration: wrong) }
        #expect(w?.code == .wrongEncryptionKey)
        #expect(w?.storageError?.code == .wrongKey)
    }

    @Test func deletingAnOpenRealmsFilesIsARealmError() throws {
        let realm = try openWithItems()
        #expect(realmError { _ = try Realm.deleteFiles(for: realm.configuration) }?.code == .alreadyOpen)
    }

    @Test func tooManyVersionsAtFreezeIsARealmError() throws {
        var config = tempConfig("surface-versions")
        config.maximumNumberOfActiveVersions = 2
        let realm = try Realm(configuration: config)
        var frozen: [Realm] = []
        var failure: Realm.Error?
        for i in 0..<6 {
            do {
                try realm.write { realm.add(CorpusMarker(value: [i])) }
                frozen.append(try realm.freezeThrowing())
            } catch let e as Realm.Error {
                failure = e
                break
            }
        }
        #expect(failure?.code == .tooManyActiveVersions)
        #expect(failure?.storageError?.code == .tooManyActiveVersions)
    }
}

/// A realm confined to an actor's queue (QueueExecutor, AsyncWriteActorTests.swift), for asyncWrite.
actor MarkerWriter {
    let executor = QueueExecutor(label: "strata.tests.marker-writer")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let configuration: Realm.Configuration
    private var realm: Realm?

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    private func open() throws -> Realm {
        if let realm { return realm }
        let opened = try Realm(configuration: configuration, queue: executor.queue)
        realm = opened
        return opened
    }

    func add(_ id: Int) async throws {
        let realm = try open()
        try await realm.asyncWrite { realm.add(CorpusMarker(value: [id])) }
    }

    func injectFullDisk() throws { try open().core.file.core.injectedWriteErrno = ENOSPC }
    func count() throws -> Int { try open().objects(CorpusMarker.self).count }
}
