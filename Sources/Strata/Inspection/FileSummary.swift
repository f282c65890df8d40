// The one-line summary of a Strata file (`strata info`'s first line): what a failure report
// prints about the store it failed on, so whoever reads the failure sees the file's state.
import Foundation
import StrataStorage

extension StrataFile {
    /// "version 57, 1.2 MB (812.0 KB used, 401.4 KB free, 0 B held), 2 classes: Dog 1200, Person 30"
    public func summaryLine() throws(Realm.Error) -> String {
        let s = try storage()
        var classes: [String] = []
        for schema in schema where !schema.isEmbedded {
            classes.append("\(schema.className) \(try objectCount(of: schema.className))")
        }
        return "version \(s.version), \(ByteCount.text(s.totalBytes)) (\(ByteCount.text(s.usedBytes)) used, "
            + "\(ByteCount.text(s.freeBytes)) free, \(ByteCount.text(s.heldBytes)) held), "
            + "\(classes.count) \(classes.count == 1 ? "class" : "classes")\(classes.isEmpty ? "" : ": " + classes.joined(separator: ", "))"
    }

    /// The summary line of the file at `path`, or the error that prevented reading it: never
    /// throws, for failure reports.
    public static func summaryLine(path: String, encryptionKey: [UInt8]? = nil) -> String {
        do {
            let file = try StrataFile(path: path, encryptionKey: encryptionKey)
            defer { file.close() }
            return try file.summaryLine()
        } catch {
            return "cannot read: \(error.code.rawValue): \(error.message)"
        }
    }
}

/// Byte counts for people: B, KB, MB, GB (powers of 1024), one decimal.
public enum ByteCount {
    public static func text(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
