// `StrataFile.verify()`: every check a Strata file's newest version can be put through without
// its model classes, each problem named by where it is (page, tree, class, object).
//
// The checks, in order:
// 1. Pages: opening with `verifyingAllPages` checked every page's checksum or tag; the pager's
//    accounting walks every tree (through the object layer's relocation) and checks that each
//    page is meta, reachable once, held for a reader, or free.
// 2. Rows: every object of every class decodes by the stored schema (slots inside the row, UTF-8
//    strings, collection trees that walk, tagged values with a known tag).
// 3. Links: every link (to-one, list, set, map) names an existing object of its class; every
//    embedded object has exactly one owner.
// 4. Backlinks: the counts the file records (row footers plus the backlink tree) equal the links
//    the rows hold, per source object and property.
// 5. Indexes: every primary-key tree and secondary index holds exactly the entries the rows give.
//
// Invariants: verification only reads; a check that cannot run because an earlier one found the
// structure broken says so instead of reporting figures from a structure it could not read.
import Foundation
import StrataStorage

/// One problem `StrataFile.verify()` found.
public struct FileProblem: Hashable, Sendable, CustomStringConvertible {
    /// Where: "pages", "Dog objects", "Dog object 12", "Dog.name index", "backlinks".
    public var place: String
    public var message: String

    public init(place: String, message: String) {
        self.place = place
        self.message = message
    }

    public var description: String { "\(place): \(message)" }
}

/// One link's source, as the backlink tree keys it.
private struct LinkSource: Hashable {
    var targetTable: Int
    var targetKey: UInt64
    var sourceTable: Int
    var column: Int
    var sourceKey: UInt64
}

extension StrataFile {
    /// Checks the newest version; an empty result means every check passed.
    public func verify() -> [FileProblem] {
        var problems: [FileProblem] = []
        do {
            _ = try storage()
        } catch {
            problems.append(FileProblem(place: "pages", message: error.message))
            // The trees cannot be trusted to walk: stop before reading them.
            return problems
        }
        var expected: [LinkSource: UInt32] = [:]
        var keys: [Set<UInt64>] = []
        var readable = true
        for (t, schema) in schema.enumerated() {
            var tableKeys = Set<UInt64>()
            do {
                try forEachObject(table: t) { object in
                    tableKeys.insert(object.key)
                    for (c, value) in object.values.enumerated() {
                        Self.forEachLink(in: value) { className, key in
                            guard let target = core.snap.tableByName[className] else { return }
                            expected[LinkSource(targetTable: target, targetKey: key, sourceTable: t, column: c, sourceKey: object.key), default: 0] += 1
                        }
                    }
                }
            } catch {
                readable = false
                problems.append(FileProblem(place: "\(schema.className) objects", message: error.message))
            }
            keys.append(tableKeys)
        }
        problems += checkLinks(expected, keys: keys)
        if readable {
            problems += checkBacklinks(expected)
        } else {
            problems.append(FileProblem(place: "backlinks", message: "not checked: some objects could not be read"))
        }
        do {
            for sentence in try core.indexes.verifyIndexes(requireAll: false) {
                problems.append(FileProblem(place: "indexes", message: sentence))
            }
        } catch {
            problems.append(FileProblem(place: "indexes", message: RealmCore.realmError(error).message))
        }
        return problems
    }

    /// Calls `body` with every link a value holds (not those inside `AnyRealmValue`, which keep
    /// no backlinks and may name objects deleted since).
    private static func forEachLink(in value: StoredValue, _ body: (String, UInt64) -> Void) {
        switch value {
        case .link(let className, let key): body(className, key)
        case .list(let elements), .set(let elements): for e in elements { forEachLink(in: e, body) }
        case .map(let entries): for e in entries { forEachLink(in: e.value, body) }
        default: break
        }
    }

    private func name(_ table: Int) -> String { schema[table].className }

    private func checkLinks(_ expected: [LinkSource: UInt32], keys: [Set<UInt64>]) -> [FileProblem] {
        var problems: [FileProblem] = []
        var owners: [Int: [UInt64: UInt32]] = [:]
        for (link, count) in expected.sorted(by: { ($0.key.sourceTable, $0.key.sourceKey, $0.key.column) < ($1.key.sourceTable, $1.key.sourceKey, $1.key.column) }) {
            let property = schema[link.sourceTable].allProperties[link.column].name
            if !keys[link.targetTable].contains(link.targetKey) {
                problems.append(FileProblem(place: "\(name(link.sourceTable)) object \(link.sourceKey)",
                                            message: "\(property) links to \(name(link.targetTable)) object \(link.targetKey), which does not exist"))
            }
            if schema[link.targetTable].isEmbedded { owners[link.targetTable, default: [:]][link.targetKey, default: 0] += count }
        }
        for (t, s) in schema.enumerated() where s.isEmbedded {
            for key in keys[t].sorted() {
                let n = owners[t]?[key] ?? 0
                if n != 1 {
                    problems.append(FileProblem(place: "\(s.className) object \(key)",
                                                message: "an embedded object with \(n) owners (it must have exactly one)"))
                }
            }
        }
        return problems
    }

    /// The backlink counts the file records (row footers and the backlink tree) against `expected`.
    private func checkBacklinks(_ expected: [LinkSource: UInt32]) -> [FileProblem] {
        var recorded: [LinkSource: UInt32] = [:]
        do {
            let p = try core.pages()
            try core.snap.backlinks.forEach(from: nil, in: p) { k, v in
                guard k.count == 28, v.count >= 4 else {
                    throw Realm.Error(.corruptFile, "an entry of \(k.count) key and \(v.count) value bytes (28 and 4 expected)")
                }
                let source = LinkSource(
                    targetTable: Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 0, as: UInt32.self))),
                    targetKey: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                    sourceTable: Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
                    column: Int(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt32.self))),
                    sourceKey: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 20, as: UInt64.self)))
                recorded[source, default: 0] += UInt32(littleEndian: v.loadUnaligned(as: UInt32.self))
                return true
            }
            for t in schema.indices {
                try core.snap.metas[t].objects.forEach(from: 0, in: p) { key, row in
                    if let entry = try RowFooter.entry(row) {
                        let source = LinkSource(targetTable: t, targetKey: key, sourceTable: Int(entry.table),
                                                column: Int(entry.column), sourceKey: entry.key)
                        recorded[source, default: 0] += entry.count
                    }
                    return true
                }
            }
        } catch {
            return [FileProblem(place: "backlinks", message: RealmCore.realmError(error).message)]
        }
        var problems: [FileProblem] = []
        for source in Set(expected.keys).union(recorded.keys).sorted(by: { ($0.targetTable, $0.targetKey, $0.sourceTable, $0.sourceKey, $0.column) < ($1.targetTable, $1.targetKey, $1.sourceTable, $1.sourceKey, $1.column) }) {
            let want = expected[source] ?? 0, have = recorded[source] ?? 0
            guard want != have else { continue }
            let from = source.sourceTable < schema.count && source.column < schema[source.sourceTable].allProperties.count
                ? "\(name(source.sourceTable)).\(schema[source.sourceTable].allProperties[source.column].name) of object \(source.sourceKey)"
                : "table \(source.sourceTable) column \(source.column) object \(source.sourceKey)"
            let target = source.targetTable < schema.count ? "\(name(source.targetTable)) object \(source.targetKey)" : "table \(source.targetTable) object \(source.targetKey)"
            problems.append(FileProblem(place: "backlinks", message: "\(target): \(have) backlink(s) recorded from \(from), which holds \(want) link(s) to it"))
        }
        return problems
    }
}
