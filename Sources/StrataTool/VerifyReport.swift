// `strata verify`: every check of `StrataFile.verify()`, with the file opened so that every page
// of the newest version is checked before anything is read. Exit 0 when clean, 1 with each
// problem on its own line.
import Foundation
import Strata

public enum VerifyReport {
    /// The report, whether the file is clean, and the cause when it could not even be opened.
    public static func run(path: String, encryptionKey: [UInt8]?) -> (text: String, clean: Bool, openFailure: String?) {
        do throws(ToolError) { try TargetFile.check(path) } catch {
            return (error.message + "\n", false, error.message)
        }
        let file: StrataFile
        do {
            file = try StrataFile(path: path, encryptionKey: encryptionKey, verifyingAllPages: true)
        } catch {
            // Damage found while opening (a page failing its checksum, a commit record, the meta)
            // is a verification result, not a usage error: it is reported the same way.
            let line = "\(path): \(error.code.rawValue): \(error.message)"
            return (line + "\n", false, line)
        }
        defer { file.close() }
        let problems = file.verify()
        guard problems.isEmpty else {
            let lines = problems.map { "\(path): \($0)" }
            return (lines.joined(separator: "\n") + "\n\(problems.count) problem\(problems.count == 1 ? "" : "s") found\n", false, nil)
        }
        var objects = 0
        for schema in file.schema { objects += (try? file.objectCount(of: schema.className)) ?? 0 }
        // One more walk of the pages for the summary line (each `storage()` walks them all).
        let storage = try? file.storage()
        return ("\(path): ok: \(storage?.accounting.totalPages ?? 0) pages, \(file.schema.count) classes, \(objects) objects; every page's "
                + "\(storage?.isEncrypted == true ? "authentication tag" : "checksum"), the page accounting, every row, link, backlink and index checked\n", true, nil)
    }
}
