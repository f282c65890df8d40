// `strata info`: what a file is and how its space is used, in a dozen lines.
import Foundation
import Strata

public enum InfoReport {
    /// The same facts as `text(_:)`, as one JSON object (for scripts).
    public static func json(_ file: StrataFile) throws(ToolError) -> String {
        let s: StrataFile.Storage
        do { s = try file.storage() } catch { throw ToolError(error, path: file.path) }
        var classes: [JSONValue] = []
        for schema in file.schema {
            let count: Int
            do { count = try file.objectCount(of: schema.className) } catch { throw ToolError(error, path: file.path) }
            classes.append(.object([("name", .string(schema.className)), ("objects", .number(String(count))), ("embedded", .bool(schema.isEmbedded))]))
        }
        func number(_ n: some BinaryInteger) -> JSONValue { .number(String(n)) }
        let readers = s.readers.map { reader in
            JSONValue.object([("processID", number(reader.processID)),
                              ("versions", .array(reader.versions.map { .array([number($0.lowerBound), number($0.upperBound)]) }))])
        }
        return JSONValue.object([
            ("file", .string(file.path)),
            ("pageFileFormat", number(s.formatVersion)),
            ("objectFormat", number(file.objectFormatVersion)),
            ("pageSize", number(s.pageSize)),
            ("encrypted", .bool(s.isEncrypted)),
            ("version", number(s.version)),
            ("durableVersion", number(s.durableVersion)),
            ("schemaVersion", number(file.schemaVersion)),
            ("totalBytes", number(s.totalBytes)),
            ("usedBytes", number(s.usedBytes)),
            ("freeBytes", number(s.freeBytes)),
            ("heldBytes", number(s.heldBytes)),
            ("preallocatedPages", number(s.preallocatedPages)),
            ("readers", .array(readers)),
            ("classes", .array(classes)),
            ("reclaimableBytes", number(s.totalBytes - s.usedBytes)),
        ]).text() + "\n"
    }

    public static func text(_ file: StrataFile) throws(ToolError) -> String {
        let s: StrataFile.Storage
        do { s = try file.storage() } catch { throw ToolError(error, path: file.path) }
        var lines: [(String, String)] = []
        lines.append(("file", file.path))
        lines.append(("format", "page file \(s.formatVersion), objects \(file.objectFormatVersion); pages of \(s.pageSize) bytes; \(s.isEncrypted ? "encrypted (AES-256-GCM)" : "not encrypted")"))
        lines.append(("version", "\(s.version) (durable: \(s.durableVersion)); schema version \(file.schemaVersion)"))
        lines.append(("size", "\(ByteCount.text(s.totalBytes)) in \(s.accounting.totalPages) pages: \(ByteCount.text(s.usedBytes)) used, "
            + "\(ByteCount.text(s.freeBytes)) free (\(s.preallocatedPages) pages preallocated), \(ByteCount.text(s.heldBytes)) held (freed by the newest commits, or kept for readers)"))
        lines.append(("readers", readers(s)))
        var classes: [String] = []
        for schema in file.schema {
            let count: Int
            do { count = try file.objectCount(of: schema.className) } catch { throw ToolError(error, path: file.path) }
            classes.append("\(schema.className) \(count)\(schema.isEmbedded ? " (embedded)" : "")")
        }
        lines.append(("classes", classes.isEmpty ? "none" : classes.joined(separator: ", ")))
        let reclaim = s.totalBytes - s.usedBytes
        let share = s.totalBytes == 0 ? 0 : 100 * Double(reclaim) / Double(s.totalBytes)
        let rule = s.totalBytes > 100 << 20 && Double(s.usedBytes) / Double(max(1, s.totalBytes)) < 0.5
        lines.append(("compaction", String(format: "would reclaim %@ (%.0f%% of the file)", ByteCount.text(reclaim), share)
            + "; shouldCompactOnLaunch by Realm's example rule (over 100 MB and under half used): \(rule ? "yes" : "no")"))
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n") + "\n"
    }

    static func readers(_ s: StrataFile.Storage) -> String {
        guard !s.readers.isEmpty else { return "no other process or handle has the file open" }
        let byProcess = Dictionary(grouping: s.readers, by: \.processID)
        return byProcess.keys.sorted().map { pid in
            let pins = byProcess[pid]!.flatMap(\.versions).map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)…\($0.upperBound)" }
            return "process \(pid)" + (pins.isEmpty ? " (open, reading nothing)" : " pins version \(pins.joined(separator: ", "))")
        }.joined(separator: "; ")
    }
}
