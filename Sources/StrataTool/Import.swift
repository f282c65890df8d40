// `strata import`: objects in the form `strata export` writes (JSON or CSV) into a file, by the
// schema the file stores or one given with `--schema` (the JSON of `strata schema --format json`).
//
// The input is read and parsed whole first (ByteInput: up to a stated limit, refused at its first
// invalid byte). Then, inside one write transaction, the same two passes run twice: once only
// checking (every value against its property, every primary key unique, every link's target
// present in the file or the input) and writing nothing, then for real. Pass 1 creates every
// object with its values and without links; pass 2 sets links (by primary key, by `$index` — the
// position of the object among those of its class in the file, in key order, as the export
// numbers them —, or nested embedded objects) and AnyRealmValues holding links.
// So links may point forwards, backwards and in cycles, and a bad input — its last object
// included — is refused before a page of the file is touched: the file stays byte for byte as it
// was. A file the import created is removed again, with its companion files, when it fails.
import Foundation
import Strata

public final class Importer {
    private let writer: StrataFileWriter
    private let source: String
    /// The checking pass: values are converted and links resolved, nothing is written.
    private var checking = false
    /// Keys of the objects created from this input, per class, in input order (in the checking
    /// pass: stand-in keys, counted from the largest possible key down).
    private var created: [String: [UInt64]] = [:]
    /// The primary keys of the input's objects, per class, with their (stand-in) keys.
    private var inputPrimaryKeys: [String: [StoredValue: UInt64]] = [:]
    /// Keys of every object per class in key order, read once the first pass is done (`$index`).
    private var positions: [String: [UInt64]] = [:]
    /// Objects whose links are set in the second pass.
    private var pending: [(className: String, key: UInt64, members: [(String, JSONValue)], place: JSONPlace, name: String)] = []
    private var embeddedCount = 0
    private var nextStandIn = UInt64.max

    private init(writer: StrataFileWriter, source: String) {
        self.writer = writer
        self.source = source
    }

    /// Imports `input` into the file at `path` (created when missing). `className`: the input is
    /// the array of that class's objects (JSON) or its CSV; nil: the whole-file JSON form.
    /// Returns a one-line summary. On failure the file is as it was (or absent, as it was).
    public static func run(path: String, encryptionKey: [UInt8]?, className: String?, format: String,
                           input: ByteInput, schemaJSON: String?) throws(ToolError) -> String {
        if format == "csv" && className == nil { throw ToolError("a CSV import is of one class: name it with --class", exitCode: 64) }
        try TargetFile.check(path)
        let created = TargetFile.Creation(path: path)
        do throws(ToolError) {
            return try importing(path: path, encryptionKey: encryptionKey, className: className, format: format,
                                 input: input, schemaJSON: schemaJSON)
        } catch {
            created.undo()
            throw error
        }
    }

    private static func importing(path: String, encryptionKey: [UInt8]?, className: String?, format: String,
                                  input: ByteInput, schemaJSON: String?) throws(ToolError) -> String {
        let schemas = try schemaJSON.map { (text) throws(ToolError) in try SchemaListing.parse(text, source: "the --schema file") } ?? []
        let writer: StrataFileWriter
        do { writer = try StrataFileWriter(path: path, encryptionKey: encryptionKey) } catch { throw ToolError(error, path: path) }
        defer { writer.close() }
        // The input is parsed before the writer lock is taken: another writer waits for the
        // import's writes only, not for its reading.
        let known = writer.schema + schemas.filter { s in !writer.schema.contains { $0.className == s.className } }
        let objects = try Importer.batches(input, className: className, format: format, schemas: known)
        do { try writer.beginWrite() } catch { throw ToolError(error, path: path) }
        let importer = Importer(writer: writer, source: input.source)
        do throws(ToolError) {
            do { try writer.addClasses(schemas) } catch { throw ToolError(error, path: path) }
            let checker = Importer(writer: writer, source: input.source)
            checker.checking = true
            try checker.passes(objects)
            try importer.passes(objects)
            do { try writer.commitWrite() } catch { throw ToolError(error, path: path) }
        } catch {
            writer.cancelWrite()
            throw error
        }
        let counts = summary(importer.created)
        let total = importer.created.values.reduce(0) { $0 + $1.count }
        return "\(path): imported \(total) objects (\(counts))" + (importer.embeddedCount > 0 ? " and \(importer.embeddedCount) embedded" : "")
    }

    private func passes(_ batches: [(String, [(JSONValue, JSONPlace)])]) throws(ToolError) {
        for (name, objects) in batches { try createAll(name, objects) }
        for record in pending { try setLinks(record.className, record.key, record.members, record.place, record.name) }
    }

    private static func summary(_ created: [String: [UInt64]]) -> String {
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

    /// The input as (class, objects with where each starts) in input order.
    private static func batches(_ input: ByteInput, className: String?, format: String,
                                schemas: [ObjectSchema]) throws(ToolError) -> [(String, [(JSONValue, JSONPlace)])] {
        let source = input.source
        if format == "csv", let className {
            guard let s = schemas.first(where: { $0.className == className }) else { throw noClass(className, schemas, source) }
            return [(className, try CSVInput.objects(input, schema: s, writerSchema: schemas))]
        }
        let (document, place) = try JSONParser.parse(input)
        if let className {
            guard case .array(let objects) = document else { throw ToolError("\(source): a --class import reads an array of objects") }
            return [(className, Array(zip(objects, place.children)))]
        }
        guard case .object(let members) = document else {
            throw ToolError("\(source): the whole-file form is an object of classes, each an array of objects (or name one class with --class)")
        }
        return try zip(members, place.children).map { (member, at) throws(ToolError) -> (String, [(JSONValue, JSONPlace)]) in
            guard case .array(let objects) = member.1 else { throw ToolError("\(source): \(at.text): '\(member.0)' is not an array of objects") }
            return (member.0, Array(zip(objects, at.children)))
        }
    }

    private static func noClass(_ className: String, _ schemas: [ObjectSchema], _ source: String) -> ToolError {
        let names = schemas.map(\.className).joined(separator: ", ")
        return ToolError("\(source): the file has no class '\(className)' (its classes: \(names.isEmpty ? "none" : names); give the schema with --schema)")
    }

    // MARK: - Pass 1: objects without links

    private func createAll(_ className: String, _ objects: [(JSONValue, JSONPlace)]) throws(ToolError) {
        let s = try schema(className)
        guard !s.isEmbedded else { throw fail("'\(className)' is embedded: its objects are imported inside their owners") }
        for (i, (object, place)) in objects.enumerated() {
            let key = try create(s, object, place, name: "\(className) object \(i)")
            created[className, default: []].append(key)
        }
    }

    /// Where a value starts and what it is, for errors: "line 3, column 5 (Owner object 2.name)".
    private static func at(_ place: JSONPlace, _ name: String) -> String { "\(place.text) (\(name))" }

    /// Creates the object `json` of class `s` with its values, its links left for pass 2.
    private func create(_ s: ObjectSchema, _ json: JSONValue, _ place: JSONPlace, name: String) throws(ToolError) -> UInt64 {
        guard case .object(let members) = json else { throw fail("\(Self.at(place, name)) is not a JSON object") }
        let stored = s.allProperties.filter { $0.type != .linkingObjects }
        for (i, (member, _)) in members.enumerated() where !stored.contains(where: { $0.name == member }) {
            throw fail("\(Self.at(Self.child(place, i), name)): '\(s.className)' has no stored property '\(member)'")
        }
        var values: [StoredValue] = []
        var primaryKey: StoredValue? = nil
        for property in s.allProperties {
            if property.type == .linkingObjects || property.type == .object { values.append(.null); continue }
            guard let i = members.firstIndex(where: { $0.0 == property.name }) else {
                throw fail("\(Self.at(place, name)) has no value for '\(property.name)'")
            }
            let json = members[i].1
            if property.type == .any, Self.isMixedLink(json) { values.append(.mixed(.null)); continue }  // pass 2
            let value = try ValueInput.value(json, property, place: Self.at(Self.child(place, i), "\(name).\(property.name)"), source: source)
            if property.isPrimary { primaryKey = value }
            values.append(value)
        }
        if let primaryKey, !s.isEmbedded {
            // The file's objects and the input's: both checked before anything is written.
            let inFile: UInt64?
            do { inFile = try writer.objectKey(s.className, primaryKey: primaryKey) } catch { throw fail("\(Self.at(place, name)): \(error.message)") }
            if inFile != nil || (checking && inputPrimaryKeys[s.className]?[primaryKey] != nil) {
                throw fail("\(Self.at(place, name)): \(Realm.Error.Code.duplicatePrimaryKey.rawValue): a '\(s.className)' with primary key \(members.first { $0.0 == s.primaryKeyProperty?.name }?.1.text(indent: nil) ?? "") already exists \(inFile != nil ? "in the file" : "earlier in the input")")
            }
        }
        let key: UInt64
        if checking {
            key = nextStandIn
            nextStandIn -= 1
            if let primaryKey, !s.isEmbedded { inputPrimaryKeys[s.className, default: [:]][primaryKey] = key }
        } else {
            do { key = try writer.create(s.className, values: values) } catch { throw fail("\(Self.at(place, name)): \(error.code.rawValue): \(error.message)") }
        }
        pending.append((s.className, key, members, place, name))
        return key
    }

    private static func child(_ place: JSONPlace, _ i: Int) -> JSONPlace {
        i < place.children.count ? place.children[i] : place
    }

    static func isMixedLink(_ json: JSONValue) -> Bool {
        if case .object(let members) = json, members.count == 1, members[0].0 == "link" { return true }
        return false
    }

    // MARK: - Pass 2: links

    private func setLinks(_ className: String, _ key: UInt64, _ members: [(String, JSONValue)], _ place: JSONPlace, _ name: String) throws(ToolError) {
        let s = try schema(className)
        var values: [Int: StoredValue] = [:]
        for (c, property) in s.allProperties.enumerated() {
            guard let m = members.firstIndex(where: { $0.0 == property.name }) else { continue }
            let json = members[m].1
            let valuePlace = Self.child(place, m)
            let at = Self.at(valuePlace, "\(name).\(property.name)")
            if property.type == .any, Self.isMixedLink(json), case .object(let link) = json, case .object(let target) = link[0].1 {
                guard target.count == 1 else { throw fail("\(at): a link in an AnyRealmValue names one class") }
                values[c] = .mixed(try resolve(target[0].1, to: target[0].0, valuePlace, name: "\(name).\(property.name)"))
                continue
            }
            guard property.type == .object, let target = property.objectClassName else { continue }
            switch property.collection {
            case .none:
                values[c] = try resolve(json, to: target, valuePlace, name: "\(name).\(property.name)")
            case .list, .set:
                guard case .array(let items) = json else { throw fail("\(at) is an array of links") }
                var links: [StoredValue] = []
                for (i, item) in items.enumerated() {
                    links.append(try resolve(item, to: target, Self.child(valuePlace, i), name: "\(name).\(property.name)[\(i)]"))
                }
                values[c] = property.collection == .list ? .list(links) : .set(links)
            case .map:
                guard case .object(let entries) = json else { throw fail("\(at) is an object of links") }
                var out: [StoredValue.MapEntry] = []
                for (i, (k, item)) in entries.enumerated() {
                    out.append(.init(key: k, value: try resolve(item, to: target, Self.child(valuePlace, i), name: "\(name).\(property.name)[\(k)]")))
                }
                values[c] = .map(out.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
            }
        }
        guard !values.isEmpty, !checking else { return }
        do { try writer.set(className, key: key, values) } catch { throw fail("\(Self.at(place, name)): \(error.code.rawValue): \(error.message)") }
    }

    /// The object a link in the input names: nil, a nested embedded object (created now), a
    /// position among this input's objects of the class, or a primary key.
    private func resolve(_ json: JSONValue, to target: String, _ place: JSONPlace, name: String) throws(ToolError) -> StoredValue {
        if case .null = json { return .null }
        let at = Self.at(place, name)
        let s = try schema(target)
        if s.isEmbedded {
            let key = try create(s, json, place, name: name)
            embeddedCount += 1
            // Its own links: set now (its targets exist or are created by this call).
            if let record = pending.popLast() { try setLinks(record.className, record.key, record.members, record.place, record.name) }
            return .link(className: target, key: key)
        }
        if case .object(let members) = json, members.count == 1, members[0].0 == "$index" {
            guard case .number(let text) = members[0].1, let n = Int(text), n >= 0 else { throw fail("\(at): $index is a position (0, 1, …)") }
            if positions[target] == nil {
                do { positions[target] = try writer.objectKeys(target) } catch { throw fail("\(at): \(error.message)") }
                // In the checking pass the input's objects are not in the file yet: they follow
                // its own, in input order, as they will once created.
                if checking { positions[target]! += created[target] ?? [] }
            }
            let keys = positions[target] ?? []
            guard n < keys.count else {
                let fromInput = checking ? created[target]?.count ?? 0 : 0
                throw fail("\(at): there is no \(target) object at position \(n) (the file has \(keys.count - fromInput)"
                           + (fromInput > 0 ? " and the input \(fromInput) more)" : ")"))
            }
            return .link(className: target, key: keys[n])
        }
        guard let pk = s.allProperties.first(where: \.isPrimary) else {
            throw fail("\(at): '\(target)' has no primary key: link to its objects with {\"$index\": n}")
        }
        let value = try ValueInput.value(json, pk, place: at, source: source)
        var found: UInt64?
        do { found = try writer.objectKey(target, primaryKey: value) } catch { throw fail("\(at): \(error.message)") }
        if found == nil && checking { found = inputPrimaryKeys[target]?[value] }
        guard let found else { throw fail("\(at): no \(target) has primary key \(json.text(indent: nil))") }
        return .link(className: target, key: found)
    }
}
