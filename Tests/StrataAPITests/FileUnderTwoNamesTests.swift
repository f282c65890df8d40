// One file reached under two names — a symbolic link, a hard link, a relative path, a path with
// `..` — is one file to its lock: two processes writing through the two names both commit every
// object, and the file verifies. Two child processes (`strata-probe append`,
// Tests/StrataCrossProcess/NamedAppends.swift) open the file, each through its own name, and
// write only once both have it open.
import Foundation
import Testing
import Strata
import StrataCrossProcess
import StrataTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A started `strata-probe append` child: it has the file open once `waitUntilReady` returns.
private final class AppendingChild {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    private var text = ""

    init(path: String, firstID: Int, count: Int) throws {
        process.executableURL = URL(fileURLWithPath: try StrataProbe.path())
        process.arguments = NamedAppends.arguments(path: path, firstID: firstID, count: count)
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads the child's output until it says it is ready (or ends).
    func waitUntilReady() -> Bool {
        while !text.contains(NamedAppends.readyLine) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return true
    }

    func go() { input.fileHandleForWriting.write(Data("go\n".utf8)) }

    /// Lets the child write without waiting for `go` (its wait for a line ends at end of input),
    /// safe to call when the child may already have exited.
    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for the child to exit; its status and everything it printed.
    func finish() -> (status: Int32, output: String) {
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

@Suite struct FileUnderTwoNamesTests {
    static let perWriter = 400

    /// A realm file holding ProbeItem 0, in a folder of its own; returns its path.
    func makeFile() throws -> String {
        let config = tempConfig("real", durability: .full)
        let path = try #require(config.fileURL?.path)
        let realm = try Realm(configuration: config)
        try realm.write {
            let item = ProbeItem()
            item.id = 0
            realm.add(item)
        }
        return path
    }

    /// The same path written relative to the working directory.
    func relativeForm(of path: String) -> String {
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        return String(repeating: "../", count: depth) + path.dropFirst()
    }

    /// Two children write `perWriter` objects each, one through `path` and one through `other`,
    /// both holding the file open before either writes; returns their outcomes.
    func writeThroughBoth(_ path: String, _ other: String) throws -> [(status: Int32, output: String)] {
        let children = [try AppendingChild(path: path, firstID: 1, count: Self.perWriter),
                        try AppendingChild(path: other, firstID: 1 + Self.perWriter, count: Self.perWriter)]
        let ready = children.map { $0.waitUntilReady() }
        for child in children { child.go() }
        let outcomes = children.map { $0.finish() }
        #expect(ready == [true, true], "\(outcomes)")
        return outcomes
    }

    /// The file holds exactly ProbeItems 0...2 × perWriter and verifies.
    func expectEveryCommit(_ path: String) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
        let ids = Set(realm.objects(ProbeItem.self).map(\.id))
        #expect(ids == Set(0...(2 * Self.perWriter)), "\(ids.count) objects")
        let file = try StrataFile(path: path, verifyingAllPages: true)
        defer { file.close() }
        #expect(file.verify().isEmpty, "\(file.verify())")
    }

    @Test(arguments: ["symlink", "hard link", "relative", "dot-dot", "symlinked folder"])
    func twoProcessesWritingThroughTwoNamesKeepEveryCommit(form: String) throws {
        let path = try makeFile()
        let folder = (path as NSString).deletingLastPathComponent
        let other: String
        switch form {
        case "symlink":
            other = folder + "/link.realm"
            #expect(symlink(path, other) == 0)
        case "hard link":
            other = folder + "/hard.realm"
            #expect(link(path, other) == 0)
        case "relative":
            other = relativeForm(of: path)
        case "dot-dot":
            #expect(mkdir(folder + "/sub", 0o755) == 0)
            other = folder + "/sub/../real.realm"
        default:
            #expect(symlink(folder, folder + "-alias") == 0)
            other = folder + "-alias/real.realm"
        }
        for outcome in try writeThroughBoth(path, other) {
            #expect(outcome.status == 0 && outcome.output.contains(NamedAppends.doneLine(count: Self.perWriter)), "\(outcome.output)")
        }
        try expectEveryCommit(path)
        try expectEveryCommit(other)
        // One lock file for the file: none beside the link's name.
        if form == "symlink" { #expect(!FileManager.default.fileExists(atPath: other + ".lock")) }
        if form == "hard link" { try removeFiles(names: [other, path]) }
    }

    /// Deletes the file through each of its names, the last of which takes the lock file that
    /// all names of a hard-linked file share (in shared memory, outside the test's folder).
    func removeFiles(names: [String]) throws {
        for name in names { try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: name))) }
    }

    @Test func anOpenThroughANewHardLinkWhileTheFileIsOpenIsRefusedAndLosesNothing() throws {
        let path = try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        // Open (one name, so the lock file beside it) and written while a link appears.
        let realm = try Realm(configuration: config)
        let hard = (path as NSString).deletingLastPathComponent + "/late.realm"
        #expect(link(path, hard) == 0)
        let child = try AppendingChild(path: hard, firstID: 1, count: 1)
        child.closeInput()
        let outcome = child.finish()
        // The child's open fails with a typed error instead of running beside this process's lock.
        #expect(outcome.status == 2, "\(outcome.output)")
        #expect(outcome.output.contains("another name"), "\(outcome.output)")
        try realm.write {
            let item = ProbeItem()
            item.id = 7
            realm.add(item)
        }
        #expect(Set(realm.objects(ProbeItem.self).map(\.id)) == [0, 7])
        _ = consume realm
        try removeFiles(names: [hard, path])
    }

    @Test func oneProcessOpeningTwoNamesSharesOneFile() throws {
        let path = try makeFile()
        let folder = (path as NSString).deletingLastPathComponent
        #expect(symlink(path, folder + "/link.realm") == 0)
        #expect(link(path, folder + "/hard.realm") == 0)
        let names = [path, folder + "/link.realm", folder + "/hard.realm"]
        let group = DispatchGroup()
        let failures = FailureLog()
        for (n, name) in names.enumerated() {
            DispatchQueue.global().async(group: group) {
                do {
                    let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: name)))
                    for k in 0..<100 {
                        try realm.write {
                            let item = ProbeItem()
                            item.id = 1 + n * 100 + k
                            realm.add(item)
                        }
                    }
                } catch {
                    failures.add("\(name): \(error)")
                }
            }
        }
        group.wait()
        #expect(failures.entries.isEmpty, "\(failures.entries)")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
            #expect(realm.objects(ProbeItem.self).count == 301)
        }
        try removeFiles(names: [folder + "/hard.realm", path])
    }

    @Test func compactingThroughASymlinkCompactsTheFileAndKeepsTheLink() throws {
        let path = try makeFile()
        let link = (path as NSString).deletingLastPathComponent + "/link.realm"
        #expect(symlink(path, link) == 0)
        _ = try StrataFile.compact(path: link, encryptionKey: nil)
        #expect(FilePath.isSymbolicLink(link))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == path)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: link)))
        #expect(realm.objects(ProbeItem.self).count == 1)
    }

    @Test func compactingAHardLinkedFileIsRefusedAndChangesNothing() throws {
        let path = try makeFile()
        let hard = (path as NSString).deletingLastPathComponent + "/hard.realm"
        #expect(link(path, hard) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: Realm.Error.self) { _ = try StrataFile.compact(path: hard, encryptionKey: nil) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        var a = stat(), b = stat()
        #expect(stat(path, &a) == 0 && stat(hard, &b) == 0 && a.st_ino == b.st_ino)
        try removeFiles(names: [hard, path])
    }

    @Test func deletingThroughAnotherNameWhileOpenIsRefused() throws {
        let path = try makeFile()
        let folder = (path as NSString).deletingLastPathComponent
        #expect(symlink(path, folder + "/link.realm") == 0)
        #expect(link(path, folder + "/hard.realm") == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
        for name in [folder + "/link.realm", folder + "/hard.realm", folder + "/sub/../real.realm"] {
            #expect(throws: Realm.Error.self, "\(name)") {
                try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: name)))
            }
        }
        #expect(realm.objects(ProbeItem.self).count == 1)
        _ = consume realm
        try removeFiles(names: [folder + "/hard.realm", path])
    }

    @Test func deletingThroughASymlinkRemovesTheFileItNames() throws {
        let path = try makeFile()
        let link = (path as NSString).deletingLastPathComponent + "/link.realm"
        #expect(symlink(path, link) == 0)
        #expect(try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: link))))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        #expect(!FilePath.isSymbolicLink(link))
    }
}

private enum FilePath {
    static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }
}

private final class FailureLog: @unchecked Sendable {
    // @unchecked: `entries` is touched only under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ entry: String) { lock.lock(); stored.append(entry); lock.unlock() }
    var entries: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}
