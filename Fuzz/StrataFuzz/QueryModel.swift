// The objects the two query targets filter: one property per kind the oracle covers (Int, Double,
// String, Bool, Date, optional Int and String, a List<Int> for the aggregates), the Int and the
// String indexed so that the index plans run as well as the row evaluator. An in-memory realm
// holds them; each input replaces its contents.
import Foundation
import Strata

public final class FuzzItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var i: Int
    @Persisted var d: Double
    @Persisted(indexed: true) var s: String
    @Persisted var b: Bool
    @Persisted var t: Date
    @Persisted var oi: Int?
    @Persisted var os: String?
    @Persisted var list: List<Int>
}

/// The plain values of one object, as the oracle sees them.
struct ItemValues {
    var id: Int
    var i: Int
    var d: Double
    var s: String
    var b: Bool
    var t: Date
    var oi: Int?
    var os: String?
    var list: [Int]
}

enum QueryRealm {
    /// A fresh in-memory realm per input (Realm instances are confined to their thread, and the
    /// test suite replays on any thread); `name` keeps the two query targets apart.
    static func open(_ name: String) throws(FuzzFailure) -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: "strata-fuzz-" + name)
        configuration.objectTypes = [FuzzItem.self]
        do { return try Realm(configuration: configuration) } catch { throw FuzzFailure("cannot open the in-memory realm: \(error)") }
    }

    /// Replaces the realm's objects with `items`.
    static func fill(_ realm: Realm, _ items: [ItemValues]) throws(FuzzFailure) {
        do {
            try realm.write {
                realm.deleteAll()
                for v in items {
                    let o = FuzzItem()
                    o.id = v.id
                    o.i = v.i
                    o.d = v.d
                    o.s = v.s
                    o.b = v.b
                    o.t = v.t
                    o.oi = v.oi
                    o.os = v.os
                    o.list.append(objectsIn: v.list)
                    realm.add(o)
                }
            }
        } catch {
            throw FuzzFailure("cannot write the objects: \(error)")
        }
    }

    /// A few objects with varied values for the parser target (whose input is the query text).
    static let sample: [ItemValues] = [
        ItemValues(id: 0, i: 0, d: 0, s: "", b: false, t: Date(timeIntervalSince1970: 0), oi: nil, os: nil, list: []),
        ItemValues(id: 1, i: 3, d: 2.5, s: "Rex", b: true, t: Date(timeIntervalSince1970: 1_700_000_000), oi: 3, os: "a", list: [1, 2, 3]),
        ItemValues(id: 2, i: -7, d: -0.5, s: "été", b: false, t: Date(timeIntervalSince1970: -86_400), oi: -1, os: "ÉTÉ", list: [5]),
        ItemValues(id: 3, i: Int.max, d: .infinity, s: "a*b?c", b: true, t: Date(timeIntervalSince1970: 1e9), oi: nil, os: "", list: [-2, 0]),
    ]
}
