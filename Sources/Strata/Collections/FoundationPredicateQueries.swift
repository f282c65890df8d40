// Queries given as Foundation `NSPredicate`s (RealmSwift's `filter(_: NSPredicate)` and
// `index(matching: NSPredicate)`). On Linux, Foundation builds only constant predicates
// (`NSPredicate(value:)`), block predicates and `NSCompoundPredicate`s of them: a predicate with a
// format or a comparison does not exist there. Each is turned into query text and runs as that
// text would.
//
// Invariants:
// - A constant is `TRUEPREDICATE`/`FALSEPREDICATE`; a compound is its parts joined by `AND`/`OR`,
//   or `NOT` of its one part, each part in parentheses; an empty `AND` is true and an empty `OR`
//   false (Foundation evaluates them so).
// - A block predicate runs Swift code the query engine cannot run: it is rejected (a `Strata:`
//   stop, as RealmSwift raises), never evaluated object by object behind the caller's back.
import Foundation

extension NSPredicate {
    /// This predicate in Realm's query language.
    ///
    /// - Throws: `QueryError` of kind `.unsupported` for a block predicate, or a compound holding one.
    func strataQueryText() throws(QueryError) -> String {
        if let compound = self as? NSCompoundPredicate {
            let parts = try compound.subpredicates.map { (part: Any) throws(QueryError) -> String in
                guard let predicate = part as? NSPredicate else {
                    throw QueryError(.unsupported, "a compound predicate holds \(type(of: part)), not a predicate", offset: 0)
                }
                return "(\(try predicate.strataQueryText()))"
            }
            switch compound.compoundPredicateType {
            case .not:
                guard parts.count == 1 else {
                    throw QueryError(.unsupported, "a NOT predicate holds \(parts.count) predicates, not one", offset: 0)
                }
                return "NOT \(parts[0])"
            case .and: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            @unknown default:
                throw QueryError(.unsupported, "a compound predicate of an unknown kind", offset: 0)
            }
        }
        switch predicateFormat {
        case "TRUEPREDICATE", "FALSEPREDICATE": return predicateFormat
        default:
            throw QueryError(.unsupported, "only constant and compound predicates can be queried; '\(predicateFormat)' runs Swift code the query engine cannot run", offset: 0)
        }
    }

    /// The query text, or a stop with a `Strata:` message where the predicate cannot be a query.
    var strataQueryTextOrStop: String {
        do { return try strataQueryText() } catch {
            Stop.now("Strata: invalidQuery: \(error.message)")
        }
    }
}

extension Results where Element: RealmFetchable {
    /// The objects that also match a Foundation predicate (a constant, or a compound of constants).
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func filter(_ predicate: NSPredicate) -> Results<Element> { filter(predicate.strataQueryTextOrStop) }
}

extension RealmCollection where Element: Object {
    /// The objects that match a Foundation predicate, in this collection's order.
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func filter(_ predicate: NSPredicate) -> Results<Element> { filter(predicate.strataQueryTextOrStop) }

    /// The position of the first object that matches a Foundation predicate, or `nil`.
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func index(matching predicate: NSPredicate) -> Int? { index(matching: predicate.strataQueryTextOrStop) }
}

extension RealmCollection {
    /// The values that match a Foundation predicate, as live results.
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func filter(_ predicate: NSPredicate) -> Results<Element> { filter(predicate.strataQueryTextOrStop) }

    /// The position of the first value that matches a Foundation predicate, or `nil`.
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func index(matching predicate: NSPredicate) -> Int? { index(matching: predicate.strataQueryTextOrStop) }
}

extension Map where Value: _StrataOptional & RealmCollectionValue, Value.Wrapped: Object {
    /// The map's objects that match a Foundation predicate, in key order.
    ///
    /// - Parameter predicate: the predicate; a block predicate stops with a `Strata:` message.
    public func filter(_ predicate: NSPredicate) -> Results<Value> { filter(predicate.strataQueryTextOrStop) }
}
