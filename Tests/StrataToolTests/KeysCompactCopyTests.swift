// Encrypted files through the tool (keys from files only), `strata compact` and `strata copy`:
// what they write, and what they refuse.
import Foundation
import Strata
import StrataCorpus
import StrataTool
import Testing

@Suite("strata keys, compact and copy")
struct KeysCompactCopyTests {
    static let key: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    private func keyFiles(_ dir: String) throws -> (raw: String, hex: String) {
        let raw = dir + "/key.bin", hex = dir + "/key.hex"
        try Data(Self.key).write(to: URL(fileURLWithPath: raw))
        try (Self.key.map { String(format: "%02X", $0) }.joined() + "\n").write(toFile: hex, atomically: true, encoding: .utf8)
        return (raw, hex)
    }

    @Test func keyFilesHoldRawBytesOrHex() throws {
        let dir = toolTestDirectory()
        let (raw, hex) = try keyFiles(dir)
        #expect(try KeyFile.read(raw) == Self.key)
        #expect(try KeyFile.read(hex) == Self.key)
        try Data(repeating: 1, count: 63).write(to: URL(fileURLWithPath: dir + "/short"))
        try String(repeating: "g", count: 128).write(toFile: dir + "/nothex", atomically: true, encoding: .utf8)
        #expect(throws: ToolError.self) { try KeyFile.read(dir + "/short") }
        #expect(throws: ToolError.self) { try KeyFile.read(dir + "/nothex") }
        #expect(throws: ToolError.self) { try KeyFile.read(dir + "/missing") }
        do { _ = try KeyFile.read(dir + "/short") } catch { #expect(error.message.contains("holds 63 bytes")) }
        do { _ = try KeyFile.read(dir + "/nothex") } catch { #expect(error.message.contains("character 1 of the key is not a hexadecimal digit")) }
    }

    @Test func anEncryptedFileNeedsItsKey() throws {
        let dir = toolTestDirectory()
        let path = dir + "/e.realm"
        let (raw, hex) = try keyFiles(dir)
        try ToolFixture.write(path, key: Self.key)
        let before = fileBytes(path)
        for verb in ["info", "schema", "stat", "export", "verify"] {
            let none = try StrataCLI.run([verb, path])
            #expect(none.status == 1 && none.stderr.contains("wrongEncryptionKey"), "\(verb): \(none.stderr)")
            var wrong = Self.key
            wrong[0] ^= 1
            try Data(wrong).write(to: URL(fileURLWithPath: dir + "/wrong.bin"))
            let bad = try StrataCLI.run([verb, path, "--key-file", dir + "/wrong.bin"])
            #expect(bad.status == 1 && bad.stderr.contains("wrongEncryptionKey"), "\(verb): \(bad.stderr)")
            for keyFile in [raw, hex] {
                let good = try StrataCLI.run([verb, path, "--key-file", keyFile])
                #expect(good.status == 0, "\(verb): \(good.stderr)")
            }
        }
        #expect(try StrataCLI.run(["info", path, "--key-file", raw]).stdout.contains("encrypted (AES-256-GCM)"))
        #expect(try StrataCLI.run(["export", path, "--key-file", raw]).stdout == ExportImportTests.expected)
        #expect(fileBytes(path) == before)
    }

    @Test func compactShrinksTheFileAndKeepsItsContents() throws {
        let dir = toolTestDirectory()
        let path = dir + "/corpus.realm"
        _ = try Corpus.build(try Realm(configuration: Corpus.configuration(path: path, encrypted: false)))
        let exported = try StrataCLI.run(["export", path]).stdout
        let before = fileBytes(path).count
        let run = try StrataCLI.run(["compact", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(fileBytes(path).count < before / 2)
        #expect(try StrataCLI.run(["export", path]).stdout == exported)
        #expect(try StrataCLI.run(["verify", path]).status == 0)
    }

    @Test func compactAndCopyRefuseWhileAnotherProcessHasTheFileOpen() throws {
        let dir = toolTestDirectory()
        let path = dir + "/corpus.realm"
        _ = try Corpus.build(try Realm(configuration: Corpus.configuration(path: path, encrypted: false)))
        let holder = try HeldByAnotherProcess(corpus: path)
        let before = fileBytes(path)
        let compact = try StrataCLI.run(["compact", path])
        let copy = try StrataCLI.run(["copy", path, dir + "/copy.realm"])
        holder.release()
        #expect(compact.status == 1 && compact.stderr.contains("alreadyOpen"), "\(compact.stderr)")
        #expect(copy.status == 1 && copy.stderr.contains("alreadyOpen") && copy.stderr.contains("process \(holder.processID)"), "\(copy.stderr)")
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: dir + "/copy.realm"))
        #expect(try StrataCLI.run(["compact", path]).status == 0)
    }

    @Test func copyKeepsChangesOrDropsTheKey() throws {
        let dir = toolTestDirectory()
        let path = dir + "/e.realm"
        let (raw, hex) = try keyFiles(dir)
        try ToolFixture.write(path, key: Self.key)
        var other = Self.key
        other.reverse()
        try Data(other).write(to: URL(fileURLWithPath: dir + "/other.bin"))
        #expect(try StrataCLI.run(["copy", path, dir + "/same.realm", "--key-file", raw]).status == 0)
        #expect(try StrataCLI.run(["copy", path, dir + "/rekeyed.realm", "--key-file", hex, "--to-key-file", dir + "/other.bin"]).status == 0)
        #expect(try StrataCLI.run(["copy", path, dir + "/plain.realm", "--key-file", raw, "--no-key"]).status == 0)
        #expect(try StrataCLI.run(["export", dir + "/same.realm", "--key-file", raw]).stdout == ExportImportTests.expected)
        #expect(try StrataCLI.run(["export", dir + "/rekeyed.realm", "--key-file", dir + "/other.bin"]).stdout == ExportImportTests.expected)
        #expect(try StrataCLI.run(["export", dir + "/rekeyed.realm", "--key-file", raw]).status == 1)
        #expect(try StrataCLI.run(["export", dir + "/plain.realm"]).stdout == ExportImportTests.expected)
        let existing = try StrataCLI.run(["copy", path, dir + "/plain.realm", "--key-file", raw])
        #expect(existing.status == 1 && existing.stderr.contains("exists"), "\(existing.stderr)")
        let both = try StrataCLI.run(["copy", path, dir + "/x.realm", "--key-file", raw, "--no-key", "--to-key-file", hex])
        #expect(both.status == 64)
    }

    /// Files the tool cannot read: a typed error, exit 1, the cause named, nothing written.
    @Test func aFileThatIsNotStrataIsRefused() throws {
        let dir = toolTestDirectory()
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: dir + "/text.realm"))
        try Data().write(to: URL(fileURLWithPath: dir + "/empty.realm"))
        try Data(repeating: 0, count: 64 * 1024).write(to: URL(fileURLWithPath: dir + "/zeros.realm"))
        for (name, cause) in [("text.realm", "invalidDatabase"), ("empty.realm", "invalidDatabase"), ("zeros.realm", "invalidDatabase"), ("missing.realm", "fileNotFound")] {
            let path = dir + "/" + name
            let before = fileBytes(path)
            for verb in ["info", "schema", "verify", "stat", "export", "compact"] {
                let run = try StrataCLI.run([verb, path])
                #expect(run.status == 1 && !run.signaled, "\(verb) \(name): \(run.status)")
                #expect(run.stderr.hasPrefix("strata: ") && run.stderr.contains(cause), "\(verb) \(name): \(run.stderr)")
                #expect(fileBytes(path) == before)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/missing.realm"))
    }
}
