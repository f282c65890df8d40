// Fuzzes the query language's tokenizer, parser and type checker through the public API: the input
// is query text (UTF-8, invalid bytes replaced), filtered over `FuzzItem` with as many of a fixed
// list of arguments as it asks for.
//
// Invariant: `Results.filtering` either throws `Realm.Error` with code `.invalidQuery` or
// `.invalidArgument`, or gives results that can be counted and read; a query accepted once gives
// the same objects when filtered again (the second time through the parse cache). No crash, trap
// or hang.
import Foundation
import Strata

public enum QueryParserTarget: FuzzTarget {
    public static let name = "query-parser"
    public static let invariant = "filtering(text) throws Realm.Error(.invalidQuery/.invalidArgument) or gives readable results, the same twice"

    /// What `%@`, `%K` and `$n` can refer to, taken in order: every kind of value a query compares.
    static var arguments: [Any] { [3, "Rex", 2.5, Date(timeIntervalSince1970: 1_700_000_000), [1, 2], true, "s"] }

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        let text = String(decoding: input, as: UTF8.self)
        let realm = try QueryRealm.open(name)
        try QueryRealm.fill(realm, QueryRealm.sample)
        let all = realm.objects(FuzzItem.self)
        // The fewest arguments the query accepts: more than it uses is refused as well as fewer.
        for count in 0...arguments.count {
            let results: Results<FuzzItem>
            do {
                results = try all.filtering(text, Array(arguments.prefix(count)))
            } catch let error as Realm.Error {
                guard error.code == .invalidQuery || error.code == .invalidArgument else {
                    throw FuzzFailure("\(text.debugDescription): unexpected error code \(error.code): \(error)")
                }
                if error.queryError?.kind == .argumentCount { continue }
                return
            } catch {
                throw FuzzFailure("\(text.debugDescription): untyped error \(type(of: error)): \(error)")
            }
            let first = results.map(\.id)
            guard results.count == first.count else {
                throw FuzzFailure("\(text.debugDescription): count \(results.count) but \(first.count) objects read")
            }
            let again: [Int]
            do { again = try all.filtering(text, Array(arguments.prefix(count))).map(\.id) } catch {
                throw FuzzFailure("\(text.debugDescription): accepted, then refused: \(error)")
            }
            guard Set(first) == Set(again) else {
                throw FuzzFailure("\(text.debugDescription): \(first.sorted()) the first time, \(again.sorted()) the second")
            }
            return
        }
    }
}
