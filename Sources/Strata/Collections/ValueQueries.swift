// Queries on collections of values: `filter`, `where` and `index(matching:)` on a `List<Int>`,
// a `MutableSet<String>` or results of values, with `self` naming the value
// (`scores.filter("self > %@", 10)`, `scores.where { $0 > 10 }`), as RealmSwift has them.
//
// Invariants:
// - A value is compared through its stored form (`PersistedType`), as the engine compares the
//   same value in a property: an enum by its raw value, a custom type by its persisted value.
// - The only key path is `self`; any other, or a query that does not parse, stops with a
//   `Strata:` message, as the object queries do (their throwing forms are on `Results`).
// - Filtered results are live results of values (ValueResults.swift).
import Foundation

/// One value, as the query evaluator reads an object: its only property is `self`.
struct ValueQuerySource: QueryValueSource {
    let value: QueryValue

    func queryValue(forKey key: String) throws -> QueryValue {
        guard key == "self" else {
            throw Realm.Error(.invalidQuery, "a collection of values has no property '\(key)'; use 'self'")
        }
        return value
    }
}

extension ValueResultsStep {
    /// A filter step from a query over values (see the file header).
    static func matching<Element: RealmCollectionValue>(_ predicate: QueryPredicate, of: Element.Type) -> ValueResultsStep {
        let matcher = QueryMatcher(predicate)
        return .filter { element in
            guard let value = element as? Element else { return false }
            let source = ValueQuerySource(value: Object.queryValue(of: value._strataPersistedValue))
            do { return try matcher.matches(source) } catch let error as Realm.Error {
                Stop.now(error)
            } catch {
                Stop.now("Strata: invalidQuery: \(error)")
            }
        }
    }

    /// The predicate of a query in Realm's language over values.
    static func parsed(_ predicateFormat: String, _ args: [Any]) -> QueryPredicate {
        do { return try QueryParser.parse(predicateFormat, arguments: try Object.queryArguments(args)) } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }

    /// The predicate of a typed query over values (`$0` is the value).
    static func typed<Element>(_ query: (Query<Element>) -> Query<Bool>) -> QueryPredicate {
        do { return try query(Query<Element>(.expression(.keyPath(QueryKeyPath(["self"]))))).predicate() } catch {
            Stop.now("Strata: invalidQuery: \(error)")
        }
    }
}

extension RealmCollection {
    /// The values that match a query in Realm's query language (`self` is the value), as live
    /// results.
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text, such as `"self > %@"`.
    ///   - args: the values its placeholders stand for.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        valueResults(.matching(ValueResultsStep.parsed(predicateFormat, args), of: Element.self))
    }

    /// The values that match a typed query (`$0` is the value), as live results.
    ///
    /// - Parameter query: builds the condition, such as `{ $0 > 10 }`.
    public func `where`(_ query: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        valueResults(.matching(ValueResultsStep.typed(query), of: Element.self))
    }

    /// The position of the first value that matches a query in Realm's query language, or `nil`.
    ///
    /// - Parameters:
    ///   - predicateFormat: the query text, such as `"self == %@"`.
    ///   - args: the values its placeholders stand for.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        firstIndex(matchingStep: .matching(ValueResultsStep.parsed(predicateFormat, args), of: Element.self))
    }

    /// The position of the first value that matches a typed query, or `nil`.
    ///
    /// - Parameter query: builds the condition, such as `{ $0 == 7 }`.
    public func index(matching query: (Query<Element>) -> Query<Bool>) -> Int? {
        firstIndex(matchingStep: .matching(ValueResultsStep.typed(query), of: Element.self))
    }

    private func valueResults(_ step: ValueResultsStep) -> Results<Element> {
        Results(values: ValueResultsSource.make(self, steps: [step]))
    }

    private func firstIndex(matchingStep step: ValueResultsStep) -> Int? {
        guard case .filter(let matches) = step else { return nil }
        return firstIndex { matches($0) }
    }
}
