// The write calls that do not throw, as in RealmSwift (`add`, `create`, `delete`, `deleteAll`,
// `setValue`, `beginWrite`): a failure inside a write makes the enclosing `write {}` /
// `commitWrite()` throw the first failure and roll back, the calls after it change nothing, and
// the file is left as it was. Through the public API only.
import Foundation
import Strata
import Testing

final class Parcel: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var weight = 0.0
}

final class Sticker: Object {
    @Persisted var text = ""
}

@Suite("Write calls defer their failures to the enclosing write")
struct DeferredWriteFailureTests {
    /// A file realm in a fresh folder, seeded with parcels 1 ("one") and 2 ("two") and a sticker.
    private final class Fixture {
        let folder: URL
        let configuration: Realm.Configuration

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("deferred-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = Realm.Configuration(fileURL: folder.appendingPathComponent("parcels.realm"))
            configuration.objectTypes = [Parcel.self, Sticker.self]
            self.configuration = configuration
            let realm = try Realm(configuration: configuration)
            try realm.write {
                realm.add(Parcel(value: ["id": 1, "label": "one", "weight": 1.5]))
                realm.add(Parcel(value: ["id": 2, "label": "two", "weight": 2.5]))
                realm.add(Sticker(value: ["text": "fragile"]))
            }
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// A realm of another file, for objects that belong elsewhere.
        func otherRealm() throws -> Realm {
            var other = configuration
            other.fileURL = folder.appendingPathComponent("other.realm")
            return try Realm(configuration: other)
        }

        /// What the file holds, read by a realm opened on another thread (a fresh instance,
        /// not the one that wrote).
        func storedContents() throws -> String {
            let configuration = self.configuration
            let box = ResultBox()
            let thread = Thread {
                do {
                    let realm = try Realm(configuration: configuration)
                    box.value = .success(Self.describe(realm))
                } catch {
                    box.value = .failure(error)
                }
                box.done.signal()
            }
            thread.start()
            box.done.wait()
            return try box.value!.get()
        }

        static func describe(_ realm: Realm) -> String {
            let parcels = realm.objects(Parcel.self).sorted(byKeyPath: "id").map { "\($0.id):\($0.label):\($0.weight)" }
            let stickers = realm.objects(Sticker.self).map(\.text)
            return (parcels + stickers).joined(separator: ",")
        }

        static let seeded = "1:one:1.5,2:two:2.5,fragile"
    }

    private final class ResultBox: @unchecked Sendable {
        var value: Result<String, any Error>?
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `body` in `realm.write`, expecting the write to throw a `Realm.Error` of `code`.
    private func expectWrite(_ realm: Realm, throws code: Realm.Error.Code, _ body: () -> Void,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try realm.write(body)
            Issue.record("the write committed", sourceLocation: sourceLocation)
        } catch let error as Realm.Error {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a Realm.Error: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aDuplicatePrimaryKeyInAddFailsTheWriteAndLaterCallsDoNothing() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .duplicatePrimaryKey) {
            realm.add(Parcel(value: ["id": 3, "label": "three"]))
            realm.add(Parcel(value: ["id": 1, "label": "again"]))
            let countAfterFailure = realm.objects(Parcel.self).count
            realm.add(Parcel(value: ["id": 4, "label": "four"]))
            realm.create(Parcel.self, value: ["id": 5, "label": "five"])
            realm.delete(realm.objects(Sticker.self))
            realm.deleteAll()
            #expect(realm.objects(Parcel.self).count == countAfterFailure, "nothing is added after the failure")
            #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 4) == nil)
            #expect(realm.objects(Sticker.self).count == 1, "nothing is deleted after the failure")
        }
        #expect(!realm.isInWriteTransaction)
        #expect(Fixture.describe(realm) == Fixture.seeded, "rolled back in the realm that wrote")
        #expect(try fixture.storedContents() == Fixture.seeded, "the file is as it was")
    }

    @Test func theFirstFailureIsTheOneThrown() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        let other = try fixture.otherRealm()
        try other.write { other.add(Sticker(value: ["text": "elsewhere"])) }
        let foreign = try #require(other.objects(Sticker.self).first)
        expectWrite(realm, throws: .wrongRealm) {
            realm.delete(foreign)
            realm.add(Parcel(value: ["id": 2, "label": "duplicate"]))
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func addingASequenceStopsAtTheFirstFailure() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .duplicatePrimaryKey) {
            realm.add([Parcel(value: ["id": 7]), Parcel(value: ["id": 2]), Parcel(value: ["id": 8])])
            #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 8) == nil)
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func createWithADuplicatePrimaryKeyFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .duplicatePrimaryKey) {
            let created = realm.create(Parcel.self, value: ["id": 2, "label": "clash"])
            #expect(created.realm == nil, "a failed create returns an unmanaged object")
            realm.create(Parcel.self, value: ["id": 9, "label": "nine"])
            #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 9) == nil)
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func createWithAValueOfTheWrongTypeFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .invalidArgument) {
            realm.create(Parcel.self, value: ["id": 10, "label": "ten"])
            realm.create(Parcel.self, value: ["id": 11, "weight": "heavy"])
            realm.create(Parcel.self, value: ["id": 12])
            #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 12) == nil)
        }
        expectWrite(realm, throws: .invalidArgument) {
            realm.create(Parcel.self, value: ["id": 1, "label": 5], update: .modified)
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func deletingAnObjectOfAnotherRealmFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        let other = try fixture.otherRealm()
        try other.write { other.add(Parcel(value: ["id": 1, "label": "elsewhere"])) }
        let foreign = try #require(other.object(ofType: Parcel.self, forPrimaryKey: 1))
        expectWrite(realm, throws: .wrongRealm) {
            realm.delete(realm.objects(Sticker.self))
            realm.delete(foreign)
            realm.delete(realm.objects(Parcel.self))
            #expect(realm.objects(Parcel.self).count == 2, "the delete after the failure did nothing")
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
        #expect(other.object(ofType: Parcel.self, forPrimaryKey: 1)?.label == "elsewhere")
    }

    @Test func deletingAnObjectTwiceFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        let first = try #require(realm.object(ofType: Parcel.self, forPrimaryKey: 1))
        expectWrite(realm, throws: .objectInvalidated) {
            realm.delete(first)
            realm.delete(first)
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
        // A sequence naming one object twice: the same.
        let second = try #require(realm.object(ofType: Parcel.self, forPrimaryKey: 2))
        expectWrite(realm, throws: .objectInvalidated) {
            realm.delete([second, second])
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func deletingAnUnmanagedObjectFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .invalidArgument) {
            realm.deleteAll()
            realm.delete(Parcel())
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func setValueOfTheWrongTypeOrAnUnknownKeyFailsTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        let parcel = try #require(realm.object(ofType: Parcel.self, forPrimaryKey: 1))
        expectWrite(realm, throws: .invalidArgument) {
            parcel.setValue("first", forKey: "label")
            parcel.setValue("heavy", forKey: "weight")
            parcel.setValue(9.5, forKey: "weight")
            parcel.label = "renamed"
            #expect(parcel.label == "first", "changes after the failure do nothing")
            #expect(parcel.weight == 1.5)
        }
        expectWrite(realm, throws: .invalidArgument) {
            parcel.setValue("x", forKey: "colour")
        }
        expectWrite(realm, throws: .primaryKeyChange) {
            parcel.setValue(40, forKey: "id")
        }
        expectWrite(realm, throws: .invalidArgument) {
            parcel["weight"] = "light"
        }
        #expect(parcel.label == "one" && parcel.weight == 1.5)
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func commitWriteThrowsTheFirstFailureOfAnExplicitWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        realm.beginWrite()
        realm.add(Parcel(value: ["id": 20, "label": "twenty"]))
        realm.add(Parcel(value: ["id": 1]))
        realm.deleteAll()
        #expect(realm.isInWriteTransaction)
        #expect(realm.objects(Sticker.self).count == 1)
        #expect { try realm.commitWrite() } throws: { ($0 as? Realm.Error)?.code == .duplicatePrimaryKey }
        #expect(!realm.isInWriteTransaction)
        #expect(try fixture.storedContents() == Fixture.seeded)
        // The realm writes normally afterwards.
        try realm.write { realm.add(Parcel(value: ["id": 20, "label": "twenty"])) }
        #expect(try fixture.storedContents() == "1:one:1.5,2:two:2.5,20:twenty:0.0,fragile")
    }

    @Test func aFailedWriteCanBeCancelled() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        realm.beginWrite()
        realm.add(Parcel(value: ["id": 2]))
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        try realm.write { realm.add(Parcel(value: ["id": 3, "label": "three"])) }
        #expect(try fixture.storedContents() == "1:one:1.5,2:two:2.5,3:three:0.0,fragile")
    }

    @Test func throwingCounterpartsThrowAtOnceAndStillFailTheWrite() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        expectWrite(realm, throws: .duplicatePrimaryKey) {
            #expect { try realm.addThrowing(Parcel(value: ["id": 1])) } throws: {
                ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
            }
            // Caught, the failure still fails the write; the next throwing call reports it.
            #expect { try realm.createThrowing(Parcel.self, value: ["id": 30]) } throws: {
                ($0 as? Realm.Error)?.code == .duplicatePrimaryKey
            }
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
        let sticker = try #require(realm.objects(Sticker.self).first)
        expectWrite(realm, throws: .invalidArgument) {
            #expect(throws: Realm.Error.self) { try sticker.setValueThrowing(3, forKey: "text") }
        }
        expectWrite(realm, throws: .invalidArgument) {
            #expect(throws: Realm.Error.self) { try realm.deleteThrowing(Sticker()) }
        }
        #expect(try fixture.storedContents() == Fixture.seeded)
    }

    @Test func freezeAndThawDoNotThrow() throws {
        let fixture = try Fixture()
        let realm = try Realm(configuration: fixture.configuration)
        let frozenRealm = realm.freeze()
        #expect(frozenRealm.isFrozen)
        let parcel = try #require(realm.object(ofType: Parcel.self, forPrimaryKey: 2))
        let frozenParcel = parcel.freeze()
        #expect(frozenParcel.isFrozen && frozenParcel.label == "two")
        try realm.write { parcel.label = "changed" }
        #expect(frozenParcel.label == "two", "a frozen object keeps its version")
        let thawed = try #require(frozenParcel.thaw())
        #expect(thawed.label == "changed")
        #expect(!frozenRealm.thaw().isFrozen)
    }
}
