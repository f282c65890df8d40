// A failable custom type (a web address stored as a string) whose stored value does not convert
// back, as RealmSwift's documentation describes it: the string is stored as it was written through
// the untyped APIs, and the optional typed property reads it as nil, never an error or a stop.
import Foundation
import Strata
import StrataTestSupport
import Testing

/// A secure web address; a stored string that is not one has no `SecureLink`.
struct SecureLink: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    let url: URL
    init?(_ text: String) { self.init(persistedValue: text) }
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("https://"), let url = URL(string: persistedValue) else { return nil }
        self.url = url
    }
    var persistableValue: String { url.absoluteString }
}

final class Club: Object {
    @Persisted var name = ""
    @Persisted var homepage: SecureLink?
    @Persisted var mirror = SecureLink("https://mirror.example.org") ?? SecureLink("https://example.org")!
}

@Suite("A stored value a failable custom type does not convert")
struct UnconvertedStoredValueTests {
    private func configuration() -> Realm.Configuration {
        var configuration = tempConfig("clubs")
        configuration.objectTypes = [Club.self]
        return configuration
    }

    @Test func aStringThatIsNoAddressIsStoredAndReadsAsNil() throws {
        let configuration = configuration()
        do {
            let realm = try Realm(configuration: configuration)
            let club = Club()
            club.name = "chess"
            club.homepage = SecureLink("https://chess.example.org")
            try realm.write { realm.add(club) }
            try realm.write { try club.setValueThrowing("not a link", forKey: "homepage") }
            #expect(club.homepage == nil)
            #expect(realm.objects(Club.self).filter("homepage == 'not a link'").count == 1)
        }
        let realm = try Realm(configuration: configuration)
        let club = try #require(realm.objects(Club.self).first)
        #expect(club.homepage == nil && club.name == "chess")
        let stored = try #require(realm.dynamicObjects("Club").first)
        #expect(stored["homepage"] as? String == "not a link")
    }

    @Test func theDynamicAPIStoresItToo() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write { realm.add(Club(value: ["name": "go", "homepage": "https://go.example.org"])) }
        let dynamic = try #require(realm.dynamicObjects("Club").first)
        try realm.write { dynamic["homepage"] = "ftp://go.example.org" }
        let club = try #require(realm.objects(Club.self).first)
        #expect(club.homepage == nil)
        try realm.write { club["homepage"] = "gopher://go" }
        #expect(club.homepage == nil)
        #expect(realm.objects(Club.self).filter("homepage BEGINSWITH 'gopher'").count == 1)
    }

    @Test func validValuesStillRoundTrip() throws {
        let configuration = configuration()
        do {
            let realm = try Realm(configuration: configuration)
            let club = Club(value: ["name": "bridge", "homepage": "https://bridge.example.org"])
            try realm.write { realm.add(club) }
            try realm.write { try club.setValueThrowing("https://bridge.example.com", forKey: "mirror") }
        }
        let realm = try Realm(configuration: configuration)
        let club = try #require(realm.objects(Club.self).first)
        #expect(club.homepage?.url.host == "bridge.example.org")
        #expect(club.mirror.url.host == "bridge.example.com")
        try realm.write { club.homepage = nil }
        #expect(club.homepage == nil && realm.objects(Club.self).filter("homepage == nil").count == 1)
    }

    @Test func aNonOptionalPropertyRefusesAValueItCouldNotRead() throws {
        let realm = try Realm(configuration: configuration())
        let club = Club()
        try realm.write { realm.add(club) }
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { try club.setValueThrowing("not a link", forKey: "mirror") }
        }
        #expect(error.code == .invalidArgument && error.message.contains("mirror"))
        #expect(club.mirror.url.host == "mirror.example.org")
        // An unmanaged object can hold only a value of the type.
        #expect(throws: Realm.Error.self) { _ = try Club.make(value: ["homepage": "not a link"]) }
    }
}
