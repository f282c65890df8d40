// Codable models: a model class declaring `Codable` decodes and encodes its persisted properties
// (values, optionals, collections, links, embedded objects), a missing optional key is nil, bad
// input is a DecodingError, a decoded object keeps its class's schema (primary key included),
// and a managed object is an EncodingError rather than the stale values its wrappers hold.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class CodableKennel: Object, Codable {
    @Persisted(primaryKey: true) var id = ObjectId()
    @Persisted var name = ""
    @Persisted var motto: String?
    @Persisted var opened = Date(timeIntervalSince1970: 0)
    @Persisted var fee: Decimal128 = 0
    @Persisted var rating: Double?
    @Persisted var badge = Data()
    @Persisted var lastVisit: Date?
    @Persisted var tags: List<String>
    @Persisted var sizes: MutableSet<Int>
    @Persisted var capacity: Map<String, Int?>
    @Persisted var legacyFloor = RealmOptional<Int>()
    @Persisted var rooms = RealmProperty<Int?>()
    @Persisted var champion: CodablePup?
    @Persisted var pups: List<CodablePup>
    @Persisted var address: CodableAddress?
}

final class CodablePup: Object, Codable {
    @Persisted var name = ""
}

final class CodableAddress: EmbeddedObject, Codable {
    @Persisted var city = ""
}

@Suite struct CodableModelTests {
    private let full = """
    {"id": "65a1f0c2e4b0a1b2c3d4e5f6", "name": "North", "motto": "woof", "opened": "2001-01-02T00:00:00Z",
     "fee": "12.50", "rating": 4.5, "tags": ["big", "warm"], "sizes": [1, 2, 2],
     "capacity": {"small": 3, "large": null}, "legacyFloor": 2, "rooms": 7,
     "champion": {"name": "Rex"}, "pups": [{"name": "Ada"}, {"name": "Bo"}],
     "address": {"city": "Oslo"}, "badge": "AQID", "lastVisit": "2024-05-01T10:00:00Z"}
    """

    /// The decoder's strategies apply to properties: `Data` as base64, `Date` as ISO 8601 here.
    private var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    private func configuration() -> Realm.Configuration {
        var configuration = tempConfig("codable")
        configuration.objectTypes = [CodableKennel.self, CodablePup.self, CodableAddress.self]
        return configuration
    }

    @Test func everyKindOfPropertyDecodesAndIsStoredAsDecoded() throws {
        let kennel = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        #expect(kennel.id == (try ObjectId(string: "65a1f0c2e4b0a1b2c3d4e5f6")))
        #expect(kennel.name == "North" && kennel.motto == "woof" && kennel.rating == 4.5)
        #expect(kennel.opened == Date(timeIntervalSinceReferenceDate: 86400))
        #expect(kennel.fee == (try Decimal128(string: "12.5")))
        #expect(Array(kennel.tags) == ["big", "warm"])
        #expect(Set(kennel.sizes) == [1, 2])
        #expect(kennel.capacity["small"] == .some(3) && kennel.capacity["large"] == .some(nil))
        #expect(kennel.legacyFloor.value == 2 && kennel.rooms.value == 7)
        #expect(kennel.champion?.name == "Rex" && kennel.pups.map(\.name) == ["Ada", "Bo"])
        #expect(kennel.address?.city == "Oslo")
        #expect(kennel.badge == Data([1, 2, 3]))
        #expect(kennel.lastVisit == ISO8601DateFormatter().date(from: "2024-05-01T10:00:00Z"))

        let realm = try Realm(configuration: configuration())
        try realm.write { realm.add(kennel) }
        let stored = try #require(realm.object(ofType: CodableKennel.self, forPrimaryKey: kennel.id))
        #expect(stored.name == "North" && stored.tags.count == 2 && stored.capacity.count == 2)
        #expect(stored.pups.map(\.name) == ["Ada", "Bo"] && stored.address?.city == "Oslo")
        #expect(realm.objects(CodablePup.self).count == 3)
        // The decoded object kept its class's primary key: a second one with the same id is refused.
        let twin = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        #expect { try realm.write { realm.add(twin) } } throws: { ($0 as? Realm.Error)?.code == .duplicatePrimaryKey }
        #expect(realm.objects(CodableKennel.self).count == 1)
    }

    @Test func missingOptionalKeysAreNilAndNullIsNil() throws {
        let json = #"{"id": "65a1f0c2e4b0a1b2c3d4e5f6", "name": "South", "opened": 0, "fee": 1, "motto": null, "badge": "","#
            + #" "tags": [], "sizes": [], "capacity": {}, "legacyFloor": null, "rooms": null, "pups": []}"#
        let kennel = try JSONDecoder().decode(CodableKennel.self, from: Data(json.utf8))
        #expect(kennel.motto == nil && kennel.rating == nil && kennel.lastVisit == nil && kennel.champion == nil && kennel.address == nil)
        #expect(kennel.legacyFloor.value == nil && kennel.rooms.value == nil)
        #expect(kennel.tags.isEmpty && kennel.capacity.isEmpty)
    }

    @Test func badInputIsADecodingError() throws {
        func decode(_ json: String) throws { _ = try decoder.decode(CodableKennel.self, from: Data(json.utf8)) }
        // A missing key of a property that is not optional.
        #expect(throws: DecodingError.self) { try decode(#"{"name": "x"}"#) }
        // null for a property that is not optional.
        var object = try JSONSerialization.jsonObject(with: Data(full.utf8)) as? [String: Any] ?? [:]
        object["name"] = NSNull()
        let nullName = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        #expect(throws: DecodingError.self) { try decode(nullName) }
        // An id that is not 24 hex digits; a number where a string belongs.
        #expect(throws: DecodingError.self) { try decode(full.replacingOccurrences(of: "65a1f0c2e4b0a1b2c3d4e5f6", with: "not-an-id")) }
        #expect(throws: DecodingError.self) { try decode(full.replacingOccurrences(of: #""North""#, with: "12")) }
    }

    @Test func anUnmanagedObjectRoundTrips() throws {
        let kennel = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        kennel.name = "Renamed"
        kennel.pups.append(CodablePup(value: ["name": "Cy"]))
        let again = try JSONDecoder().decode(CodableKennel.self, from: try JSONEncoder().encode(kennel))
        #expect(again.id == kennel.id && again.name == "Renamed" && again.motto == "woof")
        #expect(again.fee == kennel.fee && again.opened == kennel.opened && again.rating == 4.5)
        #expect(Array(again.tags) == ["big", "warm"] && Set(again.sizes) == [1, 2])
        #expect(again.capacity["small"] == .some(3) && again.capacity["large"] == .some(nil))
        #expect(again.legacyFloor.value == 2 && again.rooms.value == 7)
        #expect(again.pups.map(\.name) == ["Ada", "Bo", "Cy"] && again.address?.city == "Oslo")
    }

    @Test func aManagedObjectIsAnEncodingErrorNotItsStaleValues() throws {
        let realm = try Realm(configuration: configuration())
        let kennel = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        try realm.write { realm.add(kennel) }
        try realm.write { kennel.name = "Changed after add" }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(kennel) }
        let read = try #require(realm.objects(CodableKennel.self).first)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(read) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(read.freeze()) }
        // An unmanaged copy encodes what is stored; the objects it links to are the stored ones,
        // managed, so they are an EncodingError too until they are copied as well.
        let copy = CodableKennel(value: read)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(copy) }
        copy.champion = nil
        copy.pups.removeAll()
        copy.address = CodableAddress(value: ["city": read.address?.city ?? "?"])
        let decoded = try JSONDecoder().decode(CodableKennel.self, from: try JSONEncoder().encode(copy))
        #expect(decoded.name == "Changed after add" && decoded.address?.city == "Oslo")
    }

    @Test func anObjectAFailedAddGaveBackEncodesAgain() throws {
        let realm = try Realm(configuration: configuration())
        let first = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        try realm.write { realm.add(first) }
        let clash = try decoder.decode(CodableKennel.self, from: Data(full.utf8))
        #expect(throws: Realm.Error.self) { try realm.write { realm.add(clash) } }
        #expect(!clash.isInvalidated && clash.realm == nil)
        let decoded = try JSONDecoder().decode(CodableKennel.self, from: try JSONEncoder().encode(clash))
        #expect(decoded.name == "North")
    }
}
