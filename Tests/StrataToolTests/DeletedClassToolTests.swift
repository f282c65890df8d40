// A class a migration removed with `deleteData(forType:)` is gone from what `strata` reports of
// the file, read by another process.
import Foundation
import Strata
import Testing

@Suite("strata after deleteData of a removed class")
struct DeletedClassToolTests {
    @Test func schemaInfoAndVerifyNoLongerSeeTheClass() throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        let writer = try StrataFileWriter(path: path)
        try writer.beginWrite()
        try writer.addClasses([ObjectSchema(className: "RetiredTool", properties: [Property(name: "label", type: .string)])])
        try writer.create("RetiredTool", values: [.string("old")])
        try writer.commitWrite()
        writer.close()
        configuration.objectTypes = [ToolPet.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(ToolPet.self, value: ["name": "Rex", "legs": 4]) }
        }
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in migration.deleteData(forType: "RetiredTool") }
        _ = try Realm(configuration: configuration)

        let schema = try StrataCLI.run(["schema", path])
        #expect(schema.status == 0)
        #expect(!schema.stdout.contains("RetiredTool"))
        #expect(schema.stdout.contains("class ToolPet"))
        let info = try StrataCLI.run(["info", path, "--format", "json"])
        #expect(info.status == 0)
        #expect(!info.stdout.contains("RetiredTool"))
        #expect(info.stdout.contains("ToolPet"))
        #expect(try StrataCLI.run(["verify", path]).status == 0)
    }
}
