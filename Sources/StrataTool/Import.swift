// `strata import`: objects in the form `strata export` writes (JSON or CSV) into a file, by the
// schema the file stores or one given with `--schema` (the JSON of `strata schema --format json`).
//
// Two passes inside one write transaction: first every object is created with its values and
// without links; then links (by primary key, by `$index` — the position of the object among
// those of its class in the file, in key order, as the export numbers them —, or nested embedded
// objects) and AnyRealmValues holding links are set.
// So links may point forwards, backwards and in cycles. Any failure cancels the transaction:
// the file keeps its previous version and nothing half imported.
import Foundation
import Strata

public final class Importer {
    private let writer: StrataFileWriter
    private let source: String
    /// Keys of the objects created from this input, per class, in input order.
    private var created: [String: [UInt64]] = [:]
    /// Keys of every object per class in key order, read once the first pass is done (`$index`).
    private var positions: [String: [UInt64]] = [:]
    /// Objects whose links are set in the second pass.
    private var pending: [(className: String, key: UInt64, members: [(String, JSONValue)])] = []
    private var embeddedCount = 0

    private init(writer: StrataFileWriter, source: String) {
        self.writer = writer
        self.source = source
    }

    /// Imports `input` into the file at `path` (created when missing). `className`: the input is
    /// the array of that class's objects (JSON) or its CSV; nil: the whole-file JSON form.
    /// Returns a one-line summary.
    public static func run(path: String, encryptionKey: [UInt8]?, className: String?, format: String,
                           input: String, source: String, schemaJSON: String?) throws(ToolError) -> String {
        let writer: StrataFileWriter
        do { writer = try StrataFileWriter(path: path, encryptionKey: encryptionKey) } catch { throw ToolError(error, path: path) }
        defer { writer.close() }
        let importer = Importer(writer: writer, source: source)
        do { try writer.beginWrite() } catch { throw ToolError(error, path: path) }
        do throws(ToolError) {
            if let schemaJSON {
                let schemas = try SchemaListing.parse(schemaJSON, source: "the --schema file")
                do { try writer.addClasses(schemas) } catch { throw ToolError(error, path: path) }
            }
            let batches = try importer.batches(input, className: className, format: format)
            for (name, objects) in batches { try importer.createAll(name, objects) }
            for record in importer.pending { try importer.setLinks(record.className, record.key, record.members) }
            do { try writer.commitWrite() } catch { throw ToolError(error, path: path) }
        } catch {
            writer.cancelWrite()
            throw error
        }
        let counts = batches(importer.created)
        let total = importer.created.values.reduce(0) { $0 + $1.count }
        return "\(path): imported \(total) objects (\(counts))" + (importer.embeddedCount > 0 ? " and \(importer.embeddedCount) embedded" : "")
    }

    private static func batches(_ created: [String: [UInt64]]) -> String {
        created.keys.sorted().map { "\($0) \(created[$0]!.count)" }.joined(separator: ", ")
    }

    private func fail(_ what: String) -> ToolError { ToolError("\(source): \(what)") }

    private func schema(_ className: String) throws(ToolError) -> ObjectSchema {
        guard let s = writer.schema.first(where: { $0.className == className }) else {
            let names = writer.schema.map(\.className).joined(separator: ", ")
            throw fail("the file has no class '\(className)' (its classes: \(names.isEmpty ? "none" : names); give the schema with --schema)")
        }
        return s
    }

    // MARK: - Input

    /// The input as (class, objects) in input order.
    private func batches(_ input: String, className: String?, format: String) throws(ToolError) -> [(String, [JSONValue])] {
        if format == "csv" {
            guard let className else { throw ToolError("a CSV import is of one class: name it with --class", exitCode: 64) }
            return [(className, try CSVInput.objects(input, schema: try schema(className), writerSchema: writer.schema, source: source))]
        }
        let document = try JSONParser.parse(input, source: source)
        if let className {
            guard case .array(let objects) = document else { throw fail("a --class import reads an array of objects") }
            return [(className, objects)]
        }
        guard case .object(let members) = document else {
            throw fail("the whole-file form is an object of classes, each an array of objects (or name one class with --class)")
        }
        return try members.map { (member) throws(ToolError) -> (String, [JSONValue]) in
            guard case .array(let objects) = member.1 else { throw fail("'\(member.0)' is not an array of objects") }
            return (member.0, objects)
        }
    }

    // MARK: - Pass 1: objects without links

    private func createAll(_ className: String, _ objects: [JSONValue]) throws(ToolError) {
        let s = try schema(className)
        guard !s.isEmbedded else { throw fail("'\(className)' is embedded: its objects are imported inside their owners") }
        for (i, object) in objects.enumerated() {
            let key = try create(s, object, place: "\(className) object \(i)")
            created[className, default: []].append(key)
        }
    }

    /// Creates the object `json` of class `s` with its values, its links left for pass 2.
    private func create(_ s: ObjectSchema, _ json: JSONValue, place: String) throws(ToolError) -> UInt64 {
        guard case .object(let members) = json else { throw fail("\(place) is not a JSON object") }
        let stored = s.allProperties.filter { $0.type != .linkingObjects }
        for (name, _) in members where !stored.contains(where: { $0.name == name }) {
            throw fail("\(place): '\(s.className)' has no stored property '\(name)'")
        }
        var values: [StoredValue] = []
        for property in s.allProperties {
            if property.type == .linkingObjects || property.type == .object { values.append(.null); continue }
            guard let json = members.first(where: { $0.0 == property.name })?.1 else {
                throw fail("\(place) has no value for '\(property.name)'")
            }
            if property.type == .any, Self.isMixedLink(json) { values.append(.mixed(.null)); continue }  // pass 2
            values.append(try ValueInput.value(json, property, place: "\(place).\(property.name)", source: source))
        }
        let key: UInt64
        do { key = try writer.create(s.className, values: values) } catch { throw fail("\(place): \(error.code.rawValue): \(error.message)") }
        pending.append((s.className, key, members))
        return key
    }

    static func isMixedLink(_ json: JSONValue) -> Bool {
        if case .object(let members) = json, members.count == 1, members[0].0 == "link" { return true }
        return false
    }

    // MARK: - Pass 2: links

    private func setLinks(_ className: String, _ key: UInt64, _ members: [(String, JSONValue)]) throws(ToolError) {
        let s = try schema(className)
        var values: [Int: StoredValue] = [:]
        for (c, property) in s.allProperties.enumerated() {
            guard let json = members.first(where: { $0.0 == property.name })?.1 else { continue }
            let place = "\(className) object \(key).\(property.name)"
            if property.type == .any, Self.isMixedLink(json), case .object(let link) = json, case .object(let target) = link[0].1 {
                guard target.count == 1 else { throw fail("\(place): a link in an AnyRealmValue names one class") }
                values[c] = .mixed(try resolve(target[0].1, to: target[0].0, place: place))
                continue
            }
            guard property.type == .object, let target = property.objectClassName else { continue }
            switch property.collection {
            case .none:
                values[c] = try resolve(json, to: target, place: place)
            case .list, .set:
                guard case .array(let items) = json else { throw fail("\(place) is an array of links") }
                var links: [StoredValue] = []
                for (i, item) in items.enumerated() { links.append(try resolve(item, to: target, place: "\(place)[\(i)]")) }
                values[c] = property.collection == .list ? .list(links) : .set(links)
            case .map:
                guard case .object(let entries) = json else { throw fail("\(place) is an object of links") }
                var out: [StoredValue.MapEntry] = []
                for (k, item) in entries { out.append(.init(key: k, value: try resolve(item, to: target, place: "\(place)[\(k)]"))) }
                values[c] = .map(out.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
            }
        }
        guard !values.isEmpty else { return }
        do { try writer.set(className, key: key, values) } catch { throw fail("\(className) object \(key): \(error.code.rawValue): \(error.message)") }
    }

    /// The object a link in the input names: nil, a nested embedded object (created now), a
    /// position among this input's objects of the class, or a primary key.
    private func resolve(_ json: JSONValue, to target: String, place: String) throws(ToolError) -> StoredValue {
        if case .null = json { return .null }
        let s = try schema(target)
        if s.isEmbedded {
            let key = try create(s, json, place: place)
            embeddedCount += 1
            // Its own links: set now (its targets exist or are created by this call).
            if let record = pending.popLast() { try setLinks(record.className, record.key, record.members) }
            return .link(className: target, key: key)
        }
        if case .object(let members) = json, members.count == 1, members[0].0 == "$index" {
            guard case .number(let text) = members[0].1, let n = Int(text), n >= 0 else { throw fail("\(place): $index is a position (0, 1, …)") }
            if positions[target] == nil {
                do { positions[target] = try writer.objectKeys(target) } catch { throw fail("\(place): \(error.message)") }
            }
            let keys = positions[target] ?? []
            guard n < keys.count else {
                throw fail("\(place): there is no \(target) object at position \(n) (the file has \(keys.count))")
            }
            return .link(className: target, key: keys[n])
        }
        guard let pk = s.allProperties.first(where: \.isPrimary) else {
            throw fail("\(place): '\(target)' has no primary key: link to its objects with {\"$index\": n}")
        }
        let value = try ValueInput.value(json, pk, place: place, source: source)
        let found: UInt64?
        do { found = try writer.objectKey(target, primaryKey: value) } catch { throw fail("\(place): \(error.message)") }
        guard let found else { throw fail("\(place): no \(target) has primary key \(json.text(indent: nil))") }
        return .link(className: target, key: found)
    }
}
