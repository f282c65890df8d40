// `Realm.Error.fileURL`: an error about a file names it, so a caller can report or remove it; its
// `localizedDescription` is its message, as RealmSwift's is.
import Foundation
import Strata
import Testing

final class Ledger: Object {
    @Persisted var entry = ""
}

@Suite("Realm.Error.fileURL")
struct ErrorFileURLTests {
    private func scratchDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("error-file-url-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func caught(_ body: () throws -> Void) -> Realm.Error? {
        do { try body() } catch let error as Realm.Error { return error } catch { return nil }
        return nil
    }

    @Test func aCopyOntoAnExistingFileNamesTheDestination() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let realm = try Realm(configuration: .init(fileURL: dir.appendingPathComponent("ledger.realm"), objectTypes: [Ledger.self]))
        let taken = dir.appendingPathComponent("taken.realm")
        #expect(FileManager.default.createFile(atPath: taken.path, contents: Data("x".utf8)))

        let outside = caught { try realm.writeCopy(toFile: taken) }
        #expect(outside?.code == .fileExists)
        #expect(outside?.fileURL?.standardizedFileURL.path == taken.standardizedFileURL.path)

        realm.beginWrite()
        let inside = caught { try realm.writeCopy(toFile: taken) }
        realm.cancelWrite()
        #expect(inside?.code == .fileExists)
        #expect(inside?.fileURL?.standardizedFileURL.path == taken.standardizedFileURL.path)
    }

    @Test func aFileOfANewerSchemaVersionIsNamed() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("versioned.realm")
        try onAnotherThread {
            _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 3, objectTypes: [Ledger.self]))
        }
        let error = try onAnotherThread { () -> Realm.Error? in
            do { _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, objectTypes: [Ledger.self])) } catch let e as Realm.Error { return e }
            return nil
        }
        #expect(error?.code == .invalidSchemaVersion)
        #expect(error?.fileURL?.standardizedFileURL.path == url.standardizedFileURL.path)
    }

    @Test func theLocalizedDescriptionIsTheMessage() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.realm")
        var configuration = Realm.Configuration(fileURL: missing, objectTypes: [Ledger.self])
        configuration.readOnly = true
        let error: Swift.Error? = {
            do { _ = try Realm(configuration: configuration); return nil } catch { return error }
        }()
        let realmError = try #require(error as? Realm.Error)
        #expect(realmError.code == .fileNotFound)
        #expect(error?.localizedDescription == realmError.message)
        #expect(error?.localizedDescription.contains("missing.realm") == true)
    }

    @Test func anErrorAboutNoFileNamesNone() {
        #expect(Realm.Error(.invalidArgument, "not about a file").fileURL == nil)
    }
}
