// `strata export --format csv` doubles every quote of a string, a quote followed by a combining
// mark (one Character, two scalars) included, so that the export imports again. Found by the import
// fuzz target (Fuzz/Regressions/import/quote-before-combining-mark.csv).
import Foundation
import Strata
import StrataTool
import Testing

@Suite("CSV export quoting")
struct ExportQuotingTests {
    static let schema = """
        [{"name": "Note", "embedded": false, "properties": [
          {"name": "id", "type": "int", "collection": "none", "optional": false, "primaryKey": true, "indexed": false},
          {"name": "text", "type": "string", "collection": "none", "optional": false, "primaryKey": false, "indexed": false}]}]
        """

    @Test func aQuoteBeforeACombiningMarkSurvivesExportAndImport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-export-quoting-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = "a\"\u{301}b \"\u{5C5}"
        let json = "[{\"id\": 1, \"text\": \"a\\\"\u{301}b \\\"\u{5C5}\"}]"
        _ = try Importer.run(path: dir + "/a.realm", encryptionKey: nil, className: "Note", format: "json",
                             input: ByteInput(json, source: "json"), schemaJSON: Self.schema)
        let csv = try Exporter(file: StrataFile(path: dir + "/a.realm")).csv(className: "Note")
        #expect(csv == "id,text\n1,\"a\"\"\u{301}b \"\"\u{5C5}\"\n")
        _ = try Importer.run(path: dir + "/b.realm", encryptionKey: nil, className: "Note", format: "csv",
                             input: ByteInput(csv, source: "csv"), schemaJSON: Self.schema)
        let again = try Exporter(file: StrataFile(path: dir + "/b.realm")).json(className: "Note")
        #expect(again == (try Exporter(file: StrataFile(path: dir + "/a.realm")).json(className: "Note")))
        #expect(again.unicodeScalars.filter { $0 == "\u{301}" }.count == 1 && text.unicodeScalars.count == 7)
    }
}
