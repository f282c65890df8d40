// Key-value coding reads numbers and booleans as `NSNumber`s, as RealmSwift's does, so Realm code
// that casts them to `Int` whatever the column's width (or to the column's own type) works: on
// objects, dynamic objects, migration objects and collections. Values set back through key-value
// coding keep their kind.
import Foundation
import Strata
import StrataTestSupport
import Testing

public enum KVCNumberLevel: Int8, PersistableEnum {
    case low = 1, high = 9
}

public final class KVCNumberHolder: Object {
    @Persisted public var small: Int8 = 0
    @Persisted public var medium: Int16 = 0
    @Persisted public var large: Int32 = 0
    @Persisted public var huge: Int64 = 0
    @Persisted public var whole = 0
    @Persisted public var ratio: Float = 0
    @Persisted public var precise: Double = 0
    @Persisted public var flag = false
    @Persisted public var optionalSmall: Int8?
    @Persisted public var level = KVCNumberLevel.low
    @Persisted public var mixed: AnyRealmValue = .none
    @Persisted public var smalls: List<Int8>
}

@Suite("Key-value coding numbers")
struct KeyValueCodingNumberTests {
    private func configuration() -> Realm.Configuration {
        var configuration = memoryConfig()
        configuration.objectTypes = [KVCNumberHolder.self]
        return configuration
    }

    private func stored(_ realm: Realm) throws -> KVCNumberHolder {
        let holder = KVCNumberHolder()
        holder.small = 8
        holder.medium = 16
        holder.large = 32
        holder.huge = 64
        holder.whole = 7
        holder.ratio = 1.5
        holder.precise = 2
        holder.flag = true
        holder.optionalSmall = 3
        holder.level = .high
        holder.mixed = .double(4)
        holder.smalls.append(objectsIn: [1, 2])
        try realm.write { realm.add(holder) }
        return holder
    }

    @Test func integersOfEveryWidthReadAsIntAndAsTheirOwnType() throws {
        let realm = try Realm(configuration: configuration())
        let holder = try stored(realm)
        for object in [holder, KVCNumberHolder(value: holder)] {   // managed, then unmanaged
            #expect(object["small"] is Int && object["small"] as? Int8 == 8)
            #expect(object["medium"] as? Int == 16 && object["medium"] as? Int16 == 16)
            #expect(object.value(forKey: "large") as? Int == 32 && object.value(forKey: "large") as? Int32 == 32)
            #expect(object["huge"] as? Int == 64 && object["huge"] as? Int64 == 64)
            #expect(object["whole"] as? Int == 7)
            #expect(object["optionalSmall"] as? Int == 3 && object["optionalSmall"] as? Int8 == 3)
            #expect(object["level"] as? Int == 9)   // an enum reads as its raw value
        }
    }

    @Test func floatingPointAndBooleansKeepTheirValues() throws {
        let realm = try Realm(configuration: configuration())
        let holder = try stored(realm)
        #expect(holder["ratio"] as? Float == 1.5 && holder["ratio"] as? Double == 1.5)
        #expect(holder["precise"] as? Double == 2)
        #expect(holder["flag"] as? Bool == true)
        #expect(holder["mixed"] as? Double == 4)   // a mixed value reads as the value it holds
        #expect(holder.value(forKeyPath: "small") as? Int == 8)
    }

    @Test func valuesSetBackKeepTheirKind() throws {
        let realm = try Realm(configuration: configuration())
        let holder = try stored(realm)
        try realm.write {
            holder["small"] = holder["medium"]      // Int16 → Int8 column: fits, stored
            holder["ratio"] = holder["precise"]     // a whole Double into a Float column
            holder["mixed"] = holder["precise"]     // a whole Double stays a double in a mixed value
            holder["whole"] = holder["flag"]
        }
        #expect(holder.small == 16)
        #expect(holder.ratio == 2)
        #expect(holder.mixed == .double(2))
        #expect(holder.whole == 1)
        try realm.write { holder["mixed"] = holder["flag"] }
        #expect(holder.mixed == .bool(true))
        try realm.write { holder["mixed"] = holder["ratio"] }
        #expect(holder.mixed == .float(2))
        // A number that does not fit fails the write, as any value of the wrong type does.
        #expect(throws: Realm.Error.self) { try realm.write { holder["small"] = NSNumber(value: 300) } }
        #expect(holder.small == 16)
    }

    @Test func dynamicObjectsReadNumbersAlike() throws {
        let realm = try Realm(configuration: configuration())
        _ = try stored(realm)
        let dynamic = try #require(realm.dynamicObjects("KVCNumberHolder").first)
        #expect(dynamic["small"] is Int && dynamic["small"] as? Int8 == 8)
        #expect(dynamic.large as? Int == 32)
    }

    @Test func collectionsGiveNumbers() throws {
        let realm = try Realm(configuration: configuration())
        let holder = try stored(realm)
        #expect(holder.smalls.value(forKey: "self") as? [Int] == [1, 2])
        #expect(holder.smalls.value(forKey: "self") as? [Int8] == [1, 2])
        let all = realm.objects(KVCNumberHolder.self)
        #expect(all.value(forKey: "small") as? [Int] == [8])
        #expect(all.value(forKeyPath: "@sum.small") as? Int == 8)
        #expect(all.value(forKeyPath: "@max.ratio") as? Float == 1.5)
        #expect(all.value(forKeyPath: "@unionOfObjects.large") as? [Int] == [32])
    }

    @Test func migrationObjectsReadIntegersAsInt() throws {
        var configuration = tempConfig("kvc-migration")
        configuration.objectTypes = [KVCNumberHolder.self]
        do {
            let realm = try Realm(configuration: configuration)
            _ = try stored(realm)
        }
        final class Seen: @unchecked Sendable { var values: [String] = [] }
        let seen = Seen()
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "KVCNumberHolder") { old, new in
                guard let old, let new else { return }
                seen.values.append("\(old["small"] is Int) \(old["small"] as? Int8 ?? 0) \(new["small"] is Int) \(old.large as? Int ?? 0)")
                // A mixed value reads as the value it holds, on both sides.
                seen.values.append("\(old["mixed"] as? Double ?? -1) \(new["mixed"] as? Double ?? -1)")
                new["medium"] = (old["medium"] as? Int ?? 0) + 1
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(seen.values == ["true 8 true 32", "4.0 4.0"])
        #expect(realm.objects(KVCNumberHolder.self).first?.medium == 17)
    }
}
