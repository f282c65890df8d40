// Fuzzes the query evaluator against an oracle: the input's bytes choose up to six objects and a
// predicate of the oracle's subset (OraclePredicate.swift says what it covers); Strata filters the
// objects with the predicate's text through `Results.filtering` and the oracle evaluates it in
// plain Swift over the same values.
//
// Invariant: Strata accepts every predicate of the subset, and gives exactly the objects the oracle
// selects. No crash, trap or hang.
import Foundation
import Strata

public enum QueryOracleTarget: FuzzTarget {
    public static let name = "query-eval"
    public static let invariant = "Results.filtering(p) selects exactly the objects a plain Swift evaluation of p selects"

    public static func run(_ input: [UInt8]) throws(FuzzFailure) {
        var choices = ByteChoices(input)
        let items = (0..<choices.below(7)).map { ItemValues.generate(id: $0, &choices) }
        let predicate = OraclePredicate.generate(&choices)
        var arguments: [Any] = []
        let text = predicate.text(&arguments)
        let realm = try QueryRealm.open(name)
        try QueryRealm.fill(realm, items)
        let found: [Int]
        do { found = try realm.objects(FuzzItem.self).filtering(text, arguments).map(\.id) } catch {
            throw FuzzFailure("\(text) (arguments \(arguments)) refused: \(error)")
        }
        let expected = items.filter { predicate.evaluate($0) }.map(\.id)
        guard Set(found) == Set(expected), found.count == expected.count else {
            let objects = items.map { "\($0)" }.joined(separator: "\n  ")
            throw FuzzFailure("\(text) (arguments \(arguments)): Strata selected \(found.sorted()), the oracle \(expected)\n  \(objects)")
        }
    }
}
