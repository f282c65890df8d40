// `strata export` and `strata import`: the export says exactly what the file holds, and an import
// of it into a new file gives the same export back (JSON and CSV), with links, embedded objects,
// collections and every property type; a bad input changes nothing.
import Foundation
import Strata
import StrataTool
import Testing
import StrataCorpus

@Suite("strata export and import")
struct ExportImportTests {
    /// The fixture's export, checked value by value against `ToolFixture.write`: pets by
    /// position (the deleted pet leaves no gap), owners by primary key, embedded addresses nested,
    /// a set in stored order, a map in key order, an AnyRealmValue named by its type.
    static let expected = """
{
  "ToolPet": [
    {
      "name": "Rex",
      "legs": 4
    },
    {
      "name": "Tom, \\"the\\" cat",
      "legs": 4
    },
    {
      "name": "",
      "legs": 0
    }
  ],
  "ToolOwner": [
    {
      "id": 1,
      "name": "Ada",
      "flag": true,
      "small": -8,
      "ratio": 0.5,
      "score": 0.3333333333333333,
      "blob": "AAEC/w==",
      "born": 1700000000.25,
      "amount": "12.345",
      "oid": "0123456789abcdef01234567",
      "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
      "nickname": "A\\nB",
      "age": 36,
      "anything": {
        "string": "mixed"
      },
      "tags": [
        "x",
        "y,z"
      ],
      "maybeInts": [
        1,
        null,
        3
      ],
      "codes": [
        1,
        2,
        3
      ],
      "scores": {
        "a": -1.0,
        "b": 2.5
      },
      "address": {
        "street": "1 Main St",
        "city": "Springfield"
      },
      "previous": [
        {
          "street": "2 Elm St",
          "city": "Shelbyville"
        }
      ],
      "pet": {
        "$index": 1
      },
      "pets": [
        {
          "$index": 0
        },
        {
          "$index": 1
        },
        {
          "$index": 0
        }
      ],
      "friends": [
        2
      ],
      "petsByName": {
        "none": null,
        "rex": {
          "$index": 0
        }
      }
    },
    {
      "id": 2,
      "name": "Bo",
      "flag": false,
      "small": 0,
      "ratio": 0.0,
      "score": 0.0,
      "blob": "",
      "born": 0,
      "amount": "0",
      "oid": "000000000000000000000000",
      "uuid": "00000000-0000-0000-0000-000000000000",
      "nickname": null,
      "age": null,
      "anything": {
        "int": 7
      },
      "tags": [],
      "maybeInts": [],
      "codes": [],
      "scores": {},
      "address": null,
      "previous": [],
      "pet": {
        "$index": 2
      },
      "pets": [],
      "friends": [
        1,
        2
      ],
      "petsByName": {}
    }
  ]
}

"""

    @Test func exportIsTheFileContents() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        let run = try StrataCLI.run(["export", dir + "/f.realm"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Self.expected)
        let one = try StrataCLI.run(["export", dir + "/f.realm", "--class", "ToolPet"])
        #expect(one.stdout == "[\n  {\n    \"name\": \"Rex\",\n    \"legs\": 4\n  },\n  {\n    \"name\": \"Tom, \\\"the\\\" cat\",\n    \"legs\": 4\n  },\n  {\n    \"name\": \"\",\n    \"legs\": 0\n  }\n]\n")
    }

    @Test func csvQuotesWhatNeedsQuoting() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        let pets = try StrataCLI.run(["export", dir + "/f.realm", "--class", "ToolPet", "--format", "csv"])
        #expect(pets.stdout == "name,legs\nRex,4\n\"Tom, \"\"the\"\" cat\",4\n\"\",0\n")
        let owners = try StrataCLI.run(["export", dir + "/f.realm", "--class", "ToolOwner", "--format", "csv"])
        let lines = owners.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "id,name,flag,small,ratio,score,blob,born,amount,oid,uuid,nickname,age,anything,tags,maybeInts,codes,scores,address,previous,pet,pets,friends,petsByName")
        // Bo: null optionals are empty fields, his empty blob is "", his collections [] and {}.
        #expect(owners.stdout.contains("2,Bo,false,0,0.0,0.0,\"\",0,0,000000000000000000000000,00000000-0000-0000-0000-000000000000,,,\"{\"\"int\"\":7}\",[],[],[],{},,[],\"{\"\"$index\"\":2}\",[],\"[1,2]\",{}"))
    }

    /// export → import into a new file (schema from `strata schema --format json`) → export.
    @Test(arguments: ["json", "csv"])
    func roundTripGivesTheSameExport(format: String) throws {
        let dir = toolTestDirectory()
        let source = dir + "/f.realm", copy = dir + "/g.realm"
        try ToolFixture.write(source)
        let schema = try StrataCLI.run(["schema", source, "--format", "json"])
        try schema.stdout.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        if format == "json" {
            let exported = try StrataCLI.run(["export", source])
            try exported.stdout.write(toFile: dir + "/all.json", atomically: true, encoding: .utf8)
            let imported = try StrataCLI.run(["import", copy, "--schema", dir + "/schema.json", "--input", dir + "/all.json"])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("imported 5 objects (ToolOwner 2, ToolPet 3) and 2 embedded"))
        } else {
            for (i, name) in ["ToolPet", "ToolOwner"].enumerated() {
                let csv = try StrataCLI.run(["export", source, "--class", name, "--format", "csv"])
                let imported = try StrataCLI.run(["import", copy, "--class", name, "--format", "csv"] + (i == 0 ? ["--schema", dir + "/schema.json"] : []),
                                                 stdin: Data(csv.stdout.utf8))
                #expect(imported.status == 0, "\(imported.stderr)")
            }
        }
        #expect(try StrataCLI.run(["export", copy]).stdout == Self.expected)
        #expect(try StrataCLI.run(["verify", copy]).status == 0)
        // The model classes read the imported file as they read the original.
        let realm = try Realm(configuration: ToolFixture.configuration(copy))
        let ada = try #require(realm.object(ofType: ToolOwner.self, forPrimaryKey: 1))
        #expect(ada.pets.map(\.name) == ["Rex", "Tom, \"the\" cat", "Rex"])
        #expect(ada.pet?.name == "Tom, \"the\" cat")
        #expect(ada.address?.city == "Springfield" && ada.previous.first?.street == "2 Elm St")
        #expect(Array(ada.maybeInts) == [1, nil, 3] && Array(ada.codes).sorted() == [1, 2, 3])
        #expect(ada.scores["b"] == 2.5 && ada.petsByName["rex"]??.name == "Rex")
        let amount = try Decimal128(string: "12.345")
        #expect(ada.born == Date(timeIntervalSince1970: 1_700_000_000.25) && ada.amount == amount)
        #expect(ada.anything == .string("mixed") && ada.blob == Data([0, 1, 2, 255]) && ada.nickname == "A\nB")
        #expect(ada.friends.map(\.id) == [2] && ada.friendOf.map(\.id).sorted() == [2])
        #expect(realm.objects(ToolOwner.self).filter("name == %@", "Bo").count == 1)  // the index
    }

    @Test func theCorpusRoundTrips() throws {
        let dir = toolTestDirectory()
        let source = dir + "/corpus.realm", copy = dir + "/copy.realm"
        _ = try Corpus.build(try Realm(configuration: Corpus.configuration(path: source, encrypted: false)))
        let schema = try StrataCLI.run(["schema", source, "--format", "json"])
        try schema.stdout.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        let exported = try StrataCLI.run(["export", source])
        let imported = try StrataCLI.run(["import", copy, "--schema", dir + "/schema.json"], stdin: Data(exported.stdout.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try StrataCLI.run(["export", copy]).stdout == exported.stdout)
        let realm = try Realm(configuration: Corpus.configuration(path: copy, encrypted: false))
        #expect(Corpus.readAll(realm).digest == Corpus.readAll(try Realm(configuration: Corpus.configuration(path: source, encrypted: false))).digest)
    }

    /// Each bad input: exit 1 naming the cause, and the file keeps its version and contents.
    @Test(arguments: [
        ("[{\"name\": \"Cat\", \"legs\": \"four\"}]", "ToolPet", "is not a int value"),
        ("[{\"name\": \"Cat\"}]", "ToolPet", "has no value for 'legs'"),
        ("[{\"name\": \"Cat\", \"legs\": 4, \"wings\": 2}]", "ToolPet", "has no stored property 'wings'"),
        ("[{\"name\": \"Cat\", \"legs\": 4}, {\"name\": 5, \"legs\": 4}]", "ToolPet", "is not a string value"),
        ("[{\"name\": \"Cat\", \"legs\": 4", "ToolPet", "the input ends inside an object"),
        ("[{\"name\": \"Cat\", \"legs\": 99999999999999999999}]", "ToolPet", "is not a 64-bit integer"),
        ("[]", "ToolBird", "the file has no class 'ToolBird'"),
    ])
    func aBadInputChangesNothing(input: String, className: String, cause: String) throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let before = fileBytes(path)
        let run = try StrataCLI.run(["import", path, "--class", className], stdin: Data(input.utf8))
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("strata: ") && run.stderr.contains(cause), "\(run.stderr)")
        #expect(fileBytes(path) == before)
    }

    /// Failures met after objects were created (a duplicate primary key, a link to nothing)
    /// cancel the whole import: the file reads as before.
    @Test func aLateFailureCancelsTheWholeImport() throws {
        let dir = toolTestDirectory()
        let path = dir + "/f.realm"
        try ToolFixture.write(path)
        let exportBefore = try StrataCLI.run(["export", path]).stdout
        let owners = try StrataCLI.run(["export", path, "--class", "ToolOwner"]).stdout
        let renumbered = owners.replacingOccurrences(of: "\"id\": 1,", with: "\"id\": 10,").replacingOccurrences(of: "\"id\": 2,", with: "\"id\": 20,")
        // The copies link to owners 1 and 2 as friends (which exist); a link to a pet position
        // past the file's three fails once both copies were created.
        let broken = renumbered.replacingOccurrences(of: "\"$index\": 2", with: "\"$index\": 3")
        let run = try StrataCLI.run(["import", path, "--class", "ToolOwner"], stdin: Data(broken.utf8))
        #expect(run.status == 1)
        #expect(run.stderr.contains("there is no ToolPet object at position 3 (the file has 3)"), "\(run.stderr)")
        let missingFriend = renumbered.replacingOccurrences(of: "\"friends\": [\n      2\n    ]", with: "\"friends\": [\n      7\n    ]")
        #expect(missingFriend != renumbered)
        let friendless = try StrataCLI.run(["import", path, "--class", "ToolOwner"], stdin: Data(missingFriend.utf8))
        #expect(friendless.status == 1 && friendless.stderr.contains("no ToolOwner has primary key 7"), "\(friendless.stderr)")
        let duplicate = try StrataCLI.run(["import", path, "--class", "ToolOwner"], stdin: Data(owners.utf8))
        #expect(duplicate.status == 1 && duplicate.stderr.contains("duplicatePrimaryKey"), "\(duplicate.stderr)")
        #expect(try StrataCLI.run(["export", path]).stdout == exportBefore)
        #expect(try StrataCLI.run(["verify", path]).status == 0)
    }

    @Test func usageErrorsExit64() throws {
        let dir = toolTestDirectory()
        try ToolFixture.write(dir + "/f.realm")
        for args in [["export", dir + "/f.realm", "--format", "xml"], ["export", dir + "/f.realm", "--format", "csv"],
                     ["export", dir + "/f.realm", "--class", "ToolAddress"], ["schema", dir + "/f.realm", "--format", "yaml"]] {
            let run = try StrataCLI.run(args)
            #expect(run.status == 64, "\(args): \(run.status) \(run.stderr)")
            #expect(run.stderr.hasPrefix("strata: "))
        }
    }
}

@Suite("Dates in exports")
struct DateTextTests {
    /// Seconds since 1970 computed in Double lose low bits for about half of this decade's dates;
    /// the export's decimal form gives every stored value back exactly.
    @Test func everyDateReadsBackExactly() {
        var random = DamagedFileToolTests.Generator(state: 0xDA7E)
        for i in 0..<20_000 {
            let magnitude = [1.0, 1e3, 1e6, 8e8, 4e9][i % 5]
            let stored = (Double(random.next() % 2_000_000) / 1_000_000 - 1) * magnitude + Double(random.next() % 1000) / 997
            let date = Date(timeIntervalSinceReferenceDate: stored)
            let back = DateText.date(from: DateText.json(date))
            #expect(back?.timeIntervalSinceReferenceDate == stored, "\(stored)")
            if back?.timeIntervalSinceReferenceDate != stored { return }
        }
        #expect(DateText.json(Date(timeIntervalSince1970: 1_700_000_000.25)) == .number("1700000000.25"))
        #expect(DateText.json(Date(timeIntervalSince1970: 0)) == .number("0"))
        #expect(DateText.date(from: .string("inf"))?.timeIntervalSinceReferenceDate == .infinity)
        #expect(DateText.date(from: .string("soon")) == nil && DateText.date(from: .number("x")) == nil)
    }

    /// Through the tool: a date of this decade with a fraction Double arithmetic rounds survives
    /// export and import unchanged.
    @Test func aFractionalDateSurvivesTheRoundTrip() throws {
        let dir = toolTestDirectory()
        let source = dir + "/f.realm", copy = dir + "/g.realm"
        let stored = 785_000_000.123456789  // since 2001: late 2025
        #expect(Date(timeIntervalSince1970: Date(timeIntervalSinceReferenceDate: stored).timeIntervalSince1970).timeIntervalSinceReferenceDate != stored)
        let realm = try Realm(configuration: ToolFixture.configuration(source))
        try realm.write {
            let pet = ToolPet()
            pet.name = "Clock"
            realm.add(pet)
            let owner = ToolOwner()
            owner.id = 7
            owner.born = Date(timeIntervalSinceReferenceDate: stored)
            realm.add(owner)
        }
        let schema = try StrataCLI.run(["schema", source, "--format", "json"])
        try schema.stdout.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        let exported = try StrataCLI.run(["export", source])
        #expect(try StrataCLI.run(["import", copy, "--schema", dir + "/schema.json"], stdin: Data(exported.stdout.utf8)).status == 0)
        let read = try Realm(configuration: ToolFixture.configuration(copy))
        #expect(read.object(ofType: ToolOwner.self, forPrimaryKey: 7)?.born.timeIntervalSinceReferenceDate == stored)
        #expect(try StrataCLI.run(["export", copy]).stdout == exported.stdout)
    }
}

