// What generic Realm code uses: aggregates over a value type known only by its stored form,
// key-value coding along key paths, and typed queries rendered as text and arguments.
import Foundation
import Testing
import Strata
import StrataTestSupport

final class LedgerEntry: Object {
    @Persisted var amount = 0
    @Persisted var price: Decimal128 = 0
    @Persisted var rate: Double?
    @Persisted var note = ""
    @Persisted var next: LedgerEntry?
    @Persisted var voucher: ObjectId?
}

final class LedgerBook: Object {
    @Persisted var entries: Map<String, LedgerEntry?>
}

/// Aggregates as generic code written against RealmSwift calls them.
private func summary<C: RealmCollection, T: _HasPersistedType>(
    _ collection: C, _ keyPath: KeyPath<C.Element, T>, _ name: String
) -> (T?, T?, T, T?, T?, T?, T, T?) where C.Element: Object, T.PersistedType: AddableType & MinMaxType {
    (collection.min(of: keyPath), collection.max(of: keyPath), collection.sum(of: keyPath), collection.average(of: keyPath),
     collection.min(ofProperty: name), collection.max(ofProperty: name), collection.sum(ofProperty: name),
     collection.average(ofProperty: name))
}

private func mapSummary<T: _HasPersistedType>(_ map: Map<String, LedgerEntry?>, _ keyPath: KeyPath<LedgerEntry, T>, _ name: String)
    -> (T?, T?, T, T?, T?, T) where T.PersistedType: AddableType & MinMaxType {
    (map.min(of: keyPath), map.max(of: keyPath), map.sum(of: keyPath), map.average(of: keyPath),
     map.max(ofProperty: name), map.sum(ofProperty: name))
}

@Suite struct GenericRealmCodeTests {
    private func ledger() throws -> Realm {
        let realm = try Realm(configuration: memoryConfig())
        try realm.write {
            let book = realm.create(LedgerBook.self)
            for (i, (amount, rate)) in [(5, 1.5), (-2, nil), (9, 0.5)].enumerated() {
                let e = realm.create(LedgerEntry.self, value: ["amount": amount, "price": Decimal128(Decimal(amount)) / 2,
                                                               "rate": rate as Any, "note": "n\(i)"])
                book.entries["e\(i)"] = e
            }
            book.entries["none"] = nil as LedgerEntry?
        }
        return realm
    }

    @Test func aggregatesOfAValueTypeKnownByItsStoredForm() throws {
        let realm = try ledger()
        let entries = realm.objects(LedgerEntry.self)
        let ints = summary(entries, \.amount, "amount")
        #expect(ints.0 == -2 && ints.1 == 9 && ints.2 == 12 && ints.3 == 4)
        #expect(ints.4 == -2 && ints.5 == 9 && ints.6 == 12 && ints.7 == 4)
        let decimals = summary(entries, \.price, "price")
        #expect(decimals.2 == (6 as Decimal128) && decimals.3 == (2 as Decimal128) && decimals.0 == (-1 as Decimal128))
        // nil values are skipped
        let rates = summary(entries, \.rate, "rate")
        #expect(rates.0 == 0.5 && rates.1 == 1.5 && rates.2 == 2.0 && rates.3 == 1.0 && rates.7 == 1.0)
        // the concrete overloads stay the engine's
        let total: Int = entries.sum(ofProperty: "amount")
        #expect(total == 12)
        let book = try #require(realm.objects(LedgerBook.self).first)
        let mapped = mapSummary(book.entries, \.amount, "amount")
        #expect(mapped.0 == -2 && mapped.1 == 9 && mapped.2 == 12 && mapped.3 == 4 && mapped.4 == 9 && mapped.5 == 12)
    }

    @Test func keyValueCodingFollowsKeyPaths() throws {
        let realm = try ledger()
        let entries = realm.objects(LedgerEntry.self).sorted(byKeyPath: "note")
        try realm.write { entries[0].next = entries[1] }
        #expect(entries[0].value(forKeyPath: "next.note") as? String == "n1")
        #expect(entries[1].value(forKeyPath: "next.note") == nil)  // a nil link on the way
        try realm.write {
            entries[0].setValue(42, forKeyPath: "next.amount")
            entries[1].setValue(7, forKeyPath: "next.amount")  // nil link: nothing happens
            entries[2].setValue("top", forKeyPath: "note")
        }
        #expect(entries[1].amount == 42 && entries[2].note == "top")
        let dynamic = try #require(realm.dynamicObjects("LedgerEntry").filter("note == 'n0'").first)
        try realm.write { dynamic.setValue(3, forUndefinedKey: "amount") }
        #expect(dynamic.value(forUndefinedKey: "amount") as? Int == 3)
    }

    @Test func aKeyPathThroughAValueStops() async {
        await #expect(processExitsWith: .failure) {
            _ = LedgerEntry().value(forKeyPath: "note.count")
        }
    }

    @Test func typedQueriesRenderAsTextAndArguments() throws {
        let realm = try ledger()
        let entries = realm.objects(LedgerEntry.self)
        let queries: [(Query<LedgerEntry>) -> Query<Bool>] = [
            { $0.amount > 4 && $0.note != "n2" },
            { $0.note.contains("1", options: [.caseInsensitive]) || $0.rate == nil },
            { $0.amount <= 5 && $0.rate != nil },
            { $0.next.amount == 0 },
        ]
        for query in queries {
            let (text, arguments) = query(Query<LedgerEntry>._constructForTesting())._constructPredicate()
            #expect(!arguments.isEmpty && text.contains("%@"))
            #expect(Set(entries.filter(text, arguments).map(\.note)) == Set(entries.where(query).map(\.note)), "\(text)")
        }
        let (text, arguments) = Query<LedgerEntry>._constructForTesting().amount.in([1, 9])._constructPredicate()
        #expect(text == "(amount IN %@)" && (arguments.first as? [Any])?.count == 2)
        let voucher = ObjectId.generate()
        let (_, idArguments) = (Query<LedgerEntry>._constructForTesting().voucher == voucher)._constructPredicate()
        #expect(idArguments.first as? ObjectId == voucher)
    }
}
