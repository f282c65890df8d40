// Misuse is reported in RealmSwift's words, with the class and property Realm's message leaves
// out, so that a message met after a port can be searched for and finds what Realm's users wrote
// about it: changing a primary key, changing or writing to something frozen, observing a key
// path that names no property. Before, Strata said the same things in its own words ("the
// primary key of a managed 'Badge' cannot change", "cannot write to a frozen realm").
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Badge: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var holder = ""
    @Persisted var issuer: BadgeIssuer?
}

final class BadgeIssuer: Object {
    @Persisted var name = ""
}

@Suite("misuse in RealmSwift's words")
struct RealmWordingTests {
    private static func stopMessage(_ result: ExitTest.Result) -> String {
        String(decoding: result.standardErrorContent, as: UTF8.self)
    }

    @Test func changingAPrimaryKeyStopsInRealmsWords() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: memoryConfig())
            try realm.write {
                let badge = realm.create(Badge.self, value: ["code": "A1"])
                badge.code = "B2"
            }
        }
        let message = Self.stopMessage(result)
        #expect(message.contains("Strata: primaryKeyChange: Primary key can't be changed after an object is inserted."), "\(message)")
        #expect(message.contains("Cannot modify primary key after creation: 'Badge.code'"), "\(message)")
    }

    @Test func changingAPrimaryKeyByNameThrowsInRealmsWords() throws {
        let realm = try Realm(configuration: memoryConfig())
        let badge = try realm.write { realm.create(Badge.self, value: ["code": "A1"]) }
        #expect {
            try realm.write { badge.setValue("B2", forKey: "code") }
        } throws: { error in
            let error = error as? Realm.Error
            return error?.code == .primaryKeyChange
                && error?.message.contains("Primary key can't be changed after an object is inserted.") == true
                && error?.message.contains("'Badge.code'") == true
        }
    }

    @Test func writingToAFrozenRealmThrowsInRealmsWords() throws {
        let realm = try Realm(configuration: memoryConfig())
        let badge = try realm.write { realm.create(Badge.self, value: ["code": "A1"]) }
        let frozen = try #require(badge.freeze().realm)
        #expect {
            try frozen.write {}
        } throws: { error in
            (error as? Realm.Error)?.code == .readOnly
                && (error as? Realm.Error)?.message.contains("Can't perform transactions on a frozen Realm") == true
        }
    }

    @Test func changingAFrozenObjectStopsInRealmsWords() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: memoryConfig())
            let badge = try realm.write { realm.create(Badge.self, value: ["code": "A1"]) }
            badge.freeze().holder = "Ann"
        }
        let message = Self.stopMessage(result)
        #expect(message.contains("Strata: readOnly: Attempting to modify a frozen object - call thaw on the Object instance first"), "\(message)")
    }

    @Test func observingAKeyPathThatNamesNoPropertyStopsInRealmsWords() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: memoryConfig())
            let badge = try realm.write { realm.create(Badge.self, value: ["code": "A1"]) }
            _ = badge.observe(keyPaths: ["issuer.nickname"]) { _ in }
        }
        let message = Self.stopMessage(result)
        #expect(message.contains("property 'nickname' not found in object of type 'BadgeIssuer'"), "\(message)")
    }
}
