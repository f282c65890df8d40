// RealmSwift's further ways to open and copy a realm, find an object and hear what Strata does:
// a seed file copied at the first open, `writeCopy(configuration:)`, a primary key of any static
// type, the error codes RealmSwift names, and the shared `Logger`.
import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Opening forms, primary keys of any type, Logger", .serialized)
struct RealmOpeningFormsTests {
    private func configuration(_ name: String) -> Realm.Configuration {
        var configuration = tempConfig(name)
        configuration.objectTypes = [Dog.self, Person.self]
        return configuration
    }

    @Test func aSeedFileIsCopiedOnlyWhenNoFileIsThere() throws {
        let seedConfiguration = configuration("seed")
        do {
            let seed = try Realm(configuration: seedConfiguration)
            try seed.write { seed.create(Dog.self, value: ["id": "rex", "name": "Rex"]) }
            var destination = configuration("copy")
            try seed.writeCopy(configuration: destination)
            #expect(try Realm(configuration: destination).objects(Dog.self).count == 1)
            destination.fileURL = destination.fileURL!.deletingLastPathComponent().appendingPathComponent("seeded.realm")
            destination.seedFilePath = seedConfiguration.fileURL!.deletingLastPathComponent().appendingPathComponent("copy-of-seed.realm")
            try seed.writeCopy(toFile: destination.seedFilePath!)
            let seeded = try Realm(configuration: destination)
            #expect(seeded.objects(Dog.self).first?.name == "Rex")
            try seeded.write { seeded.deleteAll() }
        }
        // The file exists now: the seed is not copied again.
        var again = configuration("copy")
        again.fileURL = again.fileURL!.deletingLastPathComponent().appendingPathComponent("seeded-again.realm")
        again.seedFilePath = URL(fileURLWithPath: "/nonexistent/seed.realm")
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: again) }
        #expect(error.code == .fileOperationFailed)
    }

    /// A seed that is not a Strata file is refused before it is copied: nothing is created at
    /// the file URL, which a later open (with a good seed) would otherwise take for the realm.
    @Test func aSeedThatIsNotARealmCreatesNothing() throws {
        var destination = configuration("garbage-seeded")
        let folder = destination.fileURL!.deletingLastPathComponent()
        let seed = folder.appendingPathComponent("garbage-seed.realm")
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: seed)
        destination.seedFilePath = seed
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: destination) }
        #expect(error.code == .invalidDatabase || error.code == .corruptFile, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: destination.fileURL!.path))
        #expect(!FileManager.default.fileExists(atPath: destination.fileURL!.path + ".lock"))
    }

    @Test func writeCopyNeedsAFile() throws {
        let realm = try Realm(configuration: configuration("copy-memory"))
        let error = try #require(throws: Realm.Error.self) {
            try realm.writeCopy(configuration: Realm.Configuration(inMemoryIdentifier: "nowhere"))
        }
        #expect(error.code == .invalidArgument)
    }

    @Test func aPrimaryKeyOfAnyStaticTypeFindsTheObject() throws {
        let realm = try Realm(configuration: configuration("keys"))
        try realm.write { realm.create(Dog.self, value: ["id": "ace", "name": "Ace"]) }
        func find<K>(_ key: K) -> Dog? { realm.object(ofType: Dog.self, forPrimaryKey: key) }
        #expect(find("ace")?.name == "Ace")
        #expect(find("nobody") == nil)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: "ace" as Any)?.name == "Ace")
    }

    @Test func aKeyThePrimaryKeyCannotHoldStops() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "wrong-key")
            configuration.objectTypes = [Dog.self, Person.self]
            let realm = try Realm(configuration: configuration)
            _ = realm.object(ofType: Dog.self, forPrimaryKey: NSNull() as Any)
        }
    }

    @Test func errorsCanBeMadeFromACodeAloneAndCaughtByCode() throws {
        #expect(Realm.Error(.fail).code == .fail)
        #expect(Realm.Error.Code.allCases.contains(.filePermissionDenied))
        var configuration = configuration("missing")
        configuration.readOnly = true
        var caught = ""
        do {
            _ = try Realm(configuration: configuration)
        } catch Realm.Error.fileExists {
            caught = "exists"
        } catch Realm.Error.fileNotFound {
            caught = "not found"
        }
        #expect(caught == "not found")
    }

    @Test func aPathThroughAFileIsAFileOperationFailure() throws {
        let file = try #require(configuration("plain-file").fileURL)
        try Data("not a folder".utf8).write(to: file)
        let inside = file.appendingPathComponent("inside.realm")
        var caught: Realm.Error?
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: inside))
        } catch Realm.Error.fileOperationFailed {
            caught = Realm.Error(.fileOperationFailed)
        }
        #expect(caught != nil)
        #expect { try Realm(configuration: Realm.Configuration(fileURL: inside)) } throws: { error in
            let message = (error as? Realm.Error)?.message ?? ""
            return message.contains("Not a directory") && message.contains(file.path)
        }
        #expect(try Data(contentsOf: file) == Data("not a folder".utf8), "the file in the way is left as it was")
    }

    @Test func aQueueConfinedRealmOfTheDefaultConfiguration() throws {
        let queue = DispatchQueue(label: "default-on-queue")
        let opened = LockedBox(false)
        let previous = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = previous }
        Realm.Configuration.defaultConfiguration = configuration("default-queue")
        queue.sync { opened.set((try? Realm(queue: queue)) != nil) }
        #expect(opened.get())
    }

    @Test func theSharedLoggerHearsOpensCommitsAndClosesAtItsLevel() throws {
        let previous = Logger.shared
        defer { Logger.shared = previous }
        let lines = LockedBox<[String]>([])
        let logger = Logger(level: .off) { level, message in lines.set(lines.get() + ["\(level) \(message)"]) }
        Logger.shared = logger
        let configuration = configuration("logged")
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(Dog.self, value: ["id": "a", "name": "A"]) }
        }
        #expect(lines.get().isEmpty)

        logger.level = .detail
        do { _ = try Realm(configuration: configuration) }
        #expect(lines.get().contains { $0.hasPrefix("detail DB: opened") })
        #expect(lines.get().contains { $0.hasPrefix("detail DB: closed") })
        #expect(!lines.get().contains { $0.hasPrefix("trace") })

        lines.set([])
        logger.level = .all
        #expect(Logger.shared.level == .all)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(Dog.self, value: ["id": "b", "name": "B"]) }
        }
        #expect(lines.get().contains { $0.hasPrefix("trace DB:") && $0.contains("reads version") })
        #expect(lines.get().contains { $0.hasPrefix("debug DB:") && $0.contains("committed version") })
    }
}
