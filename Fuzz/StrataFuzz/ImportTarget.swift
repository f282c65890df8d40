// Fuzzes `strata import`: the input is what the importer reads, by its first non-blank byte the
// JSON array of one class's objects (`[`), the whole-file JSON form (`{`), or else the CSV of one
// class; it is imported into a new file with a fixed schema (ImportSchema.swift: every property
// kind, a list, a set, a map, a link and an embedded object).
//
// Invariant: the import either throws `ToolError` and leaves no file behind, or the file
// round-trips: its export (same form) imports into another new file whose export is the same,
// byte for byte; and for JSON, every scalar the input gave an object (Int, Double, Float, String,
// Bool, null) is exported unchanged — the same number, the same Unicode scalars. No crash, trap or
// hang.
import Foundation
import Strata
import StrataTool

public enum ImportTarget: FuzzTarget {
    public static let name = "import"
    public static let invariant = "import throws ToolError and creates nothing, or export → import → export is stable and keeps every JSON scalar"

    enum Form { case classJSON, fileJSON, csv }

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        let first = input.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let form: Form = first == UInt8(ascii: "[") ? .classJSON : (first == UInt8(ascii: "{") ? .fileJSON : .csv)
        let folder = try FuzzScratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/imported.realm", again = folder + "/again.realm"
        do {
            try importing(input, form: form, into: path)
        } catch {
            guard !FileManager.default.fileExists(atPath: path) else {
                throw FuzzFailure("the import failed (\(error)) but left \(path) behind")
            }
            return
        }
        let exported = try export(path, form: form)
        do { try importing(Array(exported.utf8), form: form, into: again) } catch {
            throw FuzzFailure("the export of an imported input does not import: \(error)\n\(exported)")
        }
        let second = try export(again, form: form)
        guard second == exported else {
            throw FuzzFailure("export → import → export changed the export:\n\(exported)\n---\n\(second)")
        }
        if form != .csv { try compareScalars(input, exported, form: form) }
    }

    static func importing(_ bytes: [UInt8], form: Form, into path: String) throws(ToolError) {
        _ = try Importer.run(path: path, encryptionKey: nil, className: form == .fileJSON ? nil : ImportSchema.className,
                             format: form == .csv ? "csv" : "json", input: ByteInput(bytes: bytes, source: "fuzz input"),
                             schemaJSON: ImportSchema.json)
    }

    static func export(_ path: String, form: Form) throws(FuzzFailure) -> String {
        do {
            let file = try StrataFile(path: path)
            let exporter = try Exporter(file: file)
            switch form {
            case .classJSON: return try exporter.json(className: ImportSchema.className)
            case .fileJSON: return try exporter.json(className: nil)
            case .csv: return try exporter.csv(className: ImportSchema.className)
            }
        } catch {
            throw FuzzFailure("the imported file does not export: \(error)")
        }
    }

    /// Every scalar member of an input object against the exported object with the same primary key.
    static func compareScalars(_ input: [UInt8], _ exported: String, form: Form) throws(FuzzFailure) {
        guard let given = try? objects(JSONParser.parse(String(decoding: input, as: UTF8.self), source: "input"), form: form),
              let written = try? objects(JSONParser.parse(exported, source: "export"), form: form) else {
            throw FuzzFailure("an imported input or its export does not parse as JSON")
        }
        var byKey: [Decimal: [(String, JSONValue)]] = [:]
        for object in written { if let key = ImportSchema.primaryKey(object) { byKey[key] = object } }
        for object in given {
            guard let key = ImportSchema.primaryKey(object) else { continue }
            guard let out = byKey[key] else { throw FuzzFailure("the object with id \(key) is not exported:\n\(exported)") }
            for (name, value) in object {
                guard let type = ImportSchema.scalarTypes[name] else { continue }
                let stored = out.first { $0.0 == name }?.1 ?? .null
                guard ImportSchema.same(value, stored, type: type) else {
                    throw FuzzFailure("id \(key): '\(name)' was \(value.text(indent: nil)), is exported as \(stored.text(indent: nil))")
                }
            }
        }
    }

    /// The objects of FuzzRecord in a parsed input or export.
    static func objects(_ value: JSONValue, form: Form) -> [[(String, JSONValue)]] {
        var array = value
        if form == .fileJSON, case .object(let classes) = value {
            array = classes.first { $0.0 == ImportSchema.className }?.1 ?? .array([])
        }
        guard case .array(let items) = array else { return [] }
        return items.compactMap { if case .object(let members) = $0 { members } else { nil } }
    }
}
