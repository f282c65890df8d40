// Two `strata import`s into one file under two names (a symbolic link, a hard link, a path
// with `..`), run at the same time as two processes: one file to the lock, so both imports
// commit all their objects and the file verifies.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Strata
import Testing

@Suite struct ImportUnderTwoNamesTests {
    static let perImport = 20_000

    /// A JSON array of `perImport` ToolPets named after `tag`.
    func pets(_ tag: String) -> Data {
        Data(("[" + (0..<Self.perImport).map { "{\"name\": \"\(tag)\($0)\", \"legs\": 4}" }.joined(separator: ",") + "]").utf8)
    }

    @Test(arguments: ["symlink", "hard link", "dot-dot"])
    func twoImportsThroughTwoNamesBothCommit(form: String) throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let before = try Realm(configuration: ToolFixture.configuration(path)).objects(ToolPet.self).count
        let other: String
        switch form {
        case "symlink": other = dir + "/link.realm"; #expect(symlink(path, other) == 0)
        case "hard link": other = dir + "/hard.realm"; #expect(link(path, other) == 0)
        default: #expect(mkdir(dir + "/sub", 0o755) == 0); other = dir + "/sub/../f.realm"
        }
        let inputs = [(path, pets("a")), (other, pets("b"))]
        let outcomes = LockedOutcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let run = try? StrataCLI.run(["import", inputs[i].0, "--class", "ToolPet"], stdin: inputs[i].1)
            outcomes.set(i, run.map { "\($0.status) \($0.stderr)" } ?? "did not start")
        }
        #expect(outcomes.all == ["0 ", "0 "], "\(outcomes.all)")
        do {
            let realm = try Realm(configuration: ToolFixture.configuration(path))
            #expect(realm.objects(ToolPet.self).count == before + 2 * Self.perImport)
            let file = try StrataFile(path: path, verifyingAllPages: true)
            #expect(file.verify().isEmpty, "\(file.verify())")
            file.close()
        }
        if form == "hard link" {
            // Through both names: the last takes the lock file the names share (outside `dir`).
            for name in [other, path] { try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: name))) }
        }
    }
}

private final class LockedOutcomes: @unchecked Sendable {
    // @unchecked: `values` is touched only under `lock`.
    private let lock = NSLock()
    private var values = ["", ""]
    func set(_ i: Int, _ value: String) { lock.lock(); values[i] = value; lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return values }
}
