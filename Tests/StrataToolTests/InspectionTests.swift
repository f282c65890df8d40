// `strata info`, `schema` and `stat`: what they say is what the file holds.
import Foundation
import Strata
import StrataCorpus
import StrataTool
import Testing

@Suite("strata info, schema and stat")
struct InspectionTests {
    @Test func schemaListsEveryPropertyAsDeclared() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        let run = try StrataCLI.run(["schema", dir + "/f.realm"])
        #expect(run.status == 0)
        #expect(run.stdout == """
            class ToolPet: Object {
                @Persisted var name: String
                @Persisted var legs: Int
            }

            class ToolAddress: EmbeddedObject {
                @Persisted var street: String
                @Persisted var city: String
            }

            class ToolOwner: Object {
                @Persisted(primaryKey: true) var id: Int
                @Persisted(indexed: true) var name: String
                @Persisted var flag: Bool
                @Persisted var small: Int
                @Persisted var ratio: Float
                @Persisted var score: Double
                @Persisted var blob: Data
                @Persisted var born: Date
                @Persisted var amount: Decimal128
                @Persisted var oid: ObjectId
                @Persisted var uuid: UUID
                @Persisted var nickname: String?
                @Persisted var age: Int?
                @Persisted var anything: AnyRealmValue
                @Persisted var tags: List<String>
                @Persisted var maybeInts: List<Int?>
                @Persisted var codes: MutableSet<Int>
                @Persisted var scores: Map<String, Double>
                @Persisted var address: ToolAddress?
                @Persisted var previous: List<ToolAddress>
                @Persisted var pet: ToolPet?
                @Persisted var pets: List<ToolPet>
                @Persisted var friends: MutableSet<ToolOwner>
                @Persisted var petsByName: Map<String, ToolPet?>
                @Persisted(originProperty: "friends") var friendOf: LinkingObjects<ToolOwner>
            }

            """)
    }

    @Test func schemaJSONReadsBackAsTheStoredSchema() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        let file = try StrataFile(path: dir + "/f.realm")
        defer { file.close() }
        let json = SchemaListing.json(file.schema)
        #expect(try SchemaListing.parse(json, source: "test") == file.schema)
        #expect(try StrataCLI.run(["schema", dir + "/f.realm", "--format", "json"]).stdout == json)
    }

    @Test func infoCountsObjectsAndNamesTheProcessesReading() throws {
        let dir = toolTestDirectory()
        let path = dir + "/corpus.realm"
        _ = try Corpus.build(try Realm(configuration: Corpus.configuration(path: path, encrypted: false)))
        let alone = try StrataCLI.run(["info", path])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("classes     CorpusMarker 0, CorpusOwner 2, CorpusItem 2000"), "\(alone.stdout)")
        #expect(alone.stdout.contains("readers     no other process or handle has the file open"))
        #expect(alone.stdout.contains("format      page file \(StrataVersion.storageFormat), objects \(StrataVersion.objectFormat); pages of 4096 bytes; not encrypted"))
        let holder = try HeldByAnotherProcess(corpus: path)
        let held = try StrataCLI.run(["info", path])
        let heldJSON = try StrataCLI.run(["info", path, "--format", "json"])
        holder.release()
        let file = try StrataFile(path: path)
        defer { file.close() }
        #expect(held.stdout.contains("readers     process \(holder.processID) pins version \(file.version)"), "\(held.stdout)")
        // The same facts for scripts: the JSON parses, and names the reader and the counts.
        guard case .object(let info) = try JSONParser.parse(heldJSON.stdout, source: "info --format json") else {
            Issue.record("not a JSON object: \(heldJSON.stdout)")
            return
        }
        let members = Dictionary(uniqueKeysWithValues: info)
        #expect(members["version"] == .number(String(file.version)) && members["encrypted"] == .bool(false))
        #expect(members["readers"] == .array([.object([("processID", .number(String(holder.processID))),
                                                        ("versions", .array([.array([.number(String(file.version)), .number(String(file.version))])]))])]))
        #expect(members["classes"] == .array([
            .object([("name", .string("CorpusMarker")), ("objects", .number("0")), ("embedded", .bool(false))]),
            .object([("name", .string("CorpusOwner")), ("objects", .number("2")), ("embedded", .bool(false))]),
            .object([("name", .string("CorpusItem")), ("objects", .number("2000")), ("embedded", .bool(false))]),
        ]))
        let storage = try file.storage()
        #expect(members["totalBytes"] == .number(String(storage.totalBytes)) && members["usedBytes"] == .number(String(storage.usedBytes)))
    }

    /// The file's figures add up: the trees' pages plus the pager's are the reachable pages, and
    /// per-tree entries are the objects and elements the model holds.
    @Test func statAccountsForEveryReachablePage() throws {
        let dir = toolTestDirectory()
        let path = dir + "/corpus.realm"
        let realm = try Realm(configuration: Corpus.configuration(path: path, encrypted: false))
        _ = try Corpus.build(realm)
        let entries = realm.objects(CorpusOwner.self).reduce(0) { $0 + $1.entries.count }
        let file = try StrataFile(path: path)
        defer { file.close() }
        let storage = try file.storage()
        let trees = try file.treeStatistics()
        #expect(trees.reduce(0) { $0 + $1.statistics.pages } + storage.pagerPages == storage.accounting.reachablePages)
        let byName = Dictionary(uniqueKeysWithValues: trees.map { ($0.name, $0) })
        #expect(byName["CorpusItem objects"]?.statistics.entries == realm.objects(CorpusItem.self).count)
        #expect(byName["CorpusItem primary keys"]?.statistics.entries == realm.objects(CorpusItem.self).count)
        #expect(byName["CorpusOwner.entries lists"]?.statistics.entries == entries)
        #expect(byName["CorpusOwner.entries lists"]?.trees == 2)
        let items = try #require(byName["CorpusItem objects"]?.statistics)
        #expect(items.depth >= 2 && items.branchPages >= 1 && items.leafFill > 0.3 && items.leafFill <= 1)
        #expect(storage.accounting.balances)
        let run = try StrataCLI.run(["stat", path])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("pages: \(storage.accounting.totalPages) in all = \(storage.accounting.metaPages) meta + \(storage.accounting.reachablePages) reachable"))
        #expect(run.stdout.contains("CorpusItem objects"))
    }

    /// A write left open elsewhere makes inspection give up with its cause, never hang.
    @Test func aWriteLeftOpenIsWaitedForThenNamed() throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let realm = try Realm(configuration: ToolFixture.configuration(path))
        realm.beginWrite()
        let file = try StrataFile(path: path)
        defer { file.close() }
        let started = Date()
        do {
            _ = try file.storage(patience: 0.3)
            Issue.record("inspection did not notice the open write")
        } catch {
            #expect(error.code == .alreadyOpen && error.message.contains("a write transaction stayed open elsewhere for 0.3 s"), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        realm.cancelWrite()
        #expect(try file.storage(patience: 0.3).accounting.balances)
    }
}

/// The release and the formats a build writes, as a program sees them and as the file says.
@Suite("versions")
struct VersionTests {
    @Test func theFormatConstantsAreWhatANewFileRecords() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        let file = try StrataFile(path: dir + "/f.realm")
        #expect(file.objectFormatVersion == StrataVersion.objectFormat)
        #expect(StrataVersion.readableObjectFormats.contains(StrataVersion.objectFormat))
        let info = try StrataCLI.run(["info", dir + "/f.realm", "--format", "json"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"pageFileFormat\": \(StrataVersion.storageFormat)")
                || info.stdout.contains("\"pageFileFormat\":\(StrataVersion.storageFormat)"), "\(info.stdout)")
    }

    @Test func theToolNamesItsReleaseRevisionAndFormats() throws {
        let run = try StrataCLI.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("strata \(StrataVersion.release) (revision "), "\(run.stdout)")
        #expect(run.stdout.contains("storage format \(StrataVersion.storageFormat), object format \(StrataVersion.objectFormat)"))
        let parts = StrataVersion.release.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "semantic version: \(StrataVersion.release)")
    }
}
