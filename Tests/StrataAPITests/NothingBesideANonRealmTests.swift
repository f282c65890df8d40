// Opening something that is not a realm — a text file, a folder, a device, a FIFO, an empty
// file read-only — is a typed error and leaves nothing beside it: no `.lock` appears.
import Foundation
import Testing
import Strata
import StrataTestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct NothingBesideANonRealmTests {
    func folder() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-realm-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `open` fails with a Realm.Error and no `<path>.lock` exists afterwards.
    func expectRefusedWithoutLockFile(_ path: String, _ open: (String) throws -> Void) {
        let before = FileManager.default.fileExists(atPath: path + ".lock")
        #expect(throws: Realm.Error.self, "\(path)") { try open(path) }
        #expect(FileManager.default.fileExists(atPath: path + ".lock") == before, "\(path).lock was created")
    }

    @Test func readingNonRealmsCreatesNoLockFile() throws {
        let dir = folder()
        let text = dir + "/notes.txt"
        try Data("hello, not a realm\n".utf8).write(to: URL(fileURLWithPath: text))
        let empty = dir + "/empty.realm"
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let fifo = dir + "/pipe.realm"
        #expect(mkfifo(fifo, 0o600) == 0)
        let inspect: (String) throws -> Void = { path in _ = try StrataFile(path: path) }
        let readOnly: (String) throws -> Void = { path in
            var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            config.readOnly = true
            _ = try Realm(configuration: config)
        }
        for path in [text, empty, dir, fifo] {
            expectRefusedWithoutLockFile(path, inspect)
            expectRefusedWithoutLockFile(path, readOnly)
        }
        // A device: /dev/null must not gain a /dev/null.lock.
        expectRefusedWithoutLockFile("/dev/null", inspect)
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == Data("hello, not a realm\n".utf8))
    }

    @Test func writingOpensOfNonRealmsCreateNothingEither() throws {
        let dir = folder()
        let text = dir + "/notes.realm"
        try Data("hello, not a realm\n".utf8).write(to: URL(fileURLWithPath: text))
        let fifo = dir + "/pipe.realm"
        #expect(mkfifo(fifo, 0o600) == 0)
        let open: (String) throws -> Void = { path in _ = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path))) }
        for path in [text, fifo, dir] { expectRefusedWithoutLockFile(path, open) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == Data("hello, not a realm\n".utf8))
    }
}
