// Lists and dictionaries inside an `AnyRealmValue` (`.list`, `.dictionary`), nested to any depth:
// stored with the value that holds them, read back by another instance of the file, live on a
// managed object (a change inside a write changes the stored value), compared as RealmSwift
// compares them, and refused or stopped on misuse rather than losing a change.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class Document: Object {
    @Persisted var title = ""
    @Persisted var body: AnyRealmValue
    @Persisted var versions: List<AnyRealmValue>
    @Persisted var sections: Map<String, AnyRealmValue>
    @Persisted var tags: MutableSet<AnyRealmValue>
}

final class Author: Object {
    @Persisted var name = ""
}

@Suite("AnyRealmValue: nested lists and dictionaries")
struct NestedAnyRealmValueTests {
    private func configuration() -> Realm.Configuration {
        var configuration = tempConfig("nested")
        configuration.objectTypes = [Document.self, Author.self]
        return configuration
    }

    /// `{"name": "draft", "pages": [1, "two", {"three": 3.0}], "meta": {}}`
    private var sample: AnyRealmValue {
        .fromDictionary([
            "name": .string("draft"),
            "pages": .fromArray([.int(1), .string("two"), .fromDictionary(["three": .double(3)])]),
            "meta": .fromDictionary([:]),
        ])
    }

    @Test func unmanagedValuesNestAndCompareByContents() {
        let value = sample
        #expect(value.dictionaryValue?["pages"]?.listValue?[2].dictionaryValue?["three"] == .double(3))
        #expect(value == sample)
        #expect(AnyRealmValue.fromArray([]) == AnyRealmValue.fromArray([]))
        #expect(AnyRealmValue.fromArray([.int(1)]) != AnyRealmValue.fromArray([.int(2)]))
        #expect(AnyRealmValue.fromArray([]) != AnyRealmValue.fromDictionary([:]))
        // An unmanaged nested collection is an ordinary collection: changed in place.
        value.dictionaryValue?["pages"]?.listValue?.append(.bool(true))
        #expect(value.dictionaryValue?["pages"]?.listValue?.count == 4)
        #expect(value != sample)
    }

    @Test func aNestedValueIsStoredAndReadBackByAnotherInstance() throws {
        let configuration = configuration()
        try autoreleasingRealm(configuration) { realm in
            let author = Author()
            author.name = "Ada"
            let document = Document()
            document.title = "a"
            document.body = .fromArray([sample, .object(author), .none, .fromArray([.fromArray([.int(7)])])])
            try realm.write { realm.add(document) }
        }
        let realm = try Realm(configuration: configuration)
        let body = try #require(realm.objects(Document.self).first?.body.listValue)
        #expect(body.count == 4)
        #expect(body[0].dictionaryValue?["name"] == .string("draft"))
        #expect(body[0].dictionaryValue?["pages"]?.listValue?[1] == .string("two"))
        #expect(body[0].dictionaryValue?["pages"]?.listValue?[2].dictionaryValue?["three"] == .double(3))
        #expect(body[0].dictionaryValue?["meta"]?.dictionaryValue?.count == 0)
        #expect(body[1].object(Author.self)?.name == "Ada")
        #expect(body[2] == AnyRealmValue.none)
        #expect(body[3].listValue?[0].listValue?[0] == .int(7))
        #expect(Array(body[0].dictionaryValue?.keys ?? []) == ["meta", "name", "pages"])
    }

    @Test func aNestedCollectionReadFromAManagedObjectIsLive() throws {
        let realm = try Realm(configuration: configuration())
        let document = Document()
        document.body = sample
        try realm.write { realm.add(document) }
        let pages = try #require(document.body.dictionaryValue?["pages"]?.listValue)
        #expect(pages.realm != nil && !pages.isInvalidated)

        try realm.write {
            pages.append(.string("four"))
            pages[0] = .int(10)
            pages.remove(at: 1)
            pages[1].dictionaryValue?["three"] = .double(30)
            pages[1].dictionaryValue?["extra"] = .fromArray([.int(1)])
            document.body.dictionaryValue?["meta"]?.dictionaryValue?["author"] = .string("Ada")
            document.body.dictionaryValue?["name"] = nil
        }
        let reread = try Realm(configuration: configuration(at: realm))
        let body = try #require(reread.objects(Document.self).first?.body)
        let expected: AnyRealmValue = .fromDictionary([
            "pages": .fromArray([.int(10), .fromDictionary(["three": .double(30), "extra": .fromArray([.int(1)])]), .string("four")]),
            "meta": .fromDictionary(["author": .string("Ada")]),
        ])
        #expect(body.detachedForComparison == expected)
        // The view read before the write sees the change, as every view of the location does.
        #expect(pages.count == 3 && pages[2] == .string("four"))
    }

    @Test func elementsOfManagedListsAndMapsAreLiveToo() throws {
        let realm = try Realm(configuration: configuration())
        let document = Document()
        try realm.write {
            realm.add(document)
            document.versions.append(.fromArray([.int(1)]))
            document.sections["intro"] = .fromDictionary(["lines": .fromArray([])])
        }
        try realm.write {
            document.versions[0].listValue?.append(.int(2))
            document.sections["intro"]?.dictionaryValue?["lines"]?.listValue?.append(.string("hello"))
        }
        #expect(Array(try #require(document.versions[0].listValue)) == [.int(1), .int(2)])
        #expect(document.sections["intro"]?.dictionaryValue?["lines"]?.listValue?.first == .string("hello"))
        #expect(Array(document.versions).first?.listValue?.count == 2)
    }

    @Test func managedViewsAreEqualWhenTheyNameOnePlace() throws {
        let realm = try Realm(configuration: configuration())
        let first = Document()
        first.body = sample
        let second = Document()
        second.body = sample
        try realm.write { realm.add([first, second]) }
        #expect(first.body == first.body)
        #expect(first.body.dictionaryValue?["pages"] == first.body.dictionaryValue?["pages"])
        // Equal contents in two objects are two places.
        #expect(first.body != second.body)
        #expect(first.body.dictionaryValue?["pages"] != second.body.dictionaryValue?["pages"])
    }

    @Test func aViewWhoseValueWasReplacedIsInvalidated() throws {
        let realm = try Realm(configuration: configuration())
        let document = Document()
        document.body = sample
        try realm.write { realm.add(document) }
        let pages = try #require(document.body.dictionaryValue?["pages"]?.listValue)
        try realm.write { document.body = .string("gone") }
        #expect(pages.isInvalidated)
    }

    @Test func aCollectionThatHoldsItselfFailsTheWrite() throws {
        let realm = try Realm(configuration: configuration())
        let loop = List<AnyRealmValue>()
        loop.append(.list(loop))
        let document = Document()
        document.body = .list(loop)
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { realm.add(document) }
        }
        #expect(error.code == .invalidArgument)
        #expect(realm.objects(Document.self).isEmpty)
    }

    @Test func createAcceptsArraysAndDictionaries() throws {
        let realm = try Realm(configuration: configuration())
        let document = try realm.write {
            realm.create(Document.self, value: ["body": ["a": [1, "b"] as [Any]] as [String: Any]])
        }
        #expect(document.body.dictionaryValue?["a"]?.listValue?[1] == .string("b"))
        let rejected = try #require(throws: Realm.Error.self) {
            struct NotStorable {}
            try realm.write { realm.create(Document.self, value: ["body": [NotStorable()]]) }
        }
        #expect(rejected.code == .invalidArgument)
    }

    @Test func changingALiveViewOutsideAWriteStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "nested-outside-write"))
            let document = Document()
            document.body = .fromArray([.int(1)])
            try realm.write { realm.add(document) }
            document.body.listValue?.append(.int(2))
        }
    }

    @Test func changingACopyReadFromASetStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "nested-copy"))
            let document = Document()
            try realm.write {
                realm.add(document)
                document.tags.insert(.fromArray([.int(1)]))
            }
            try realm.write { document.tags.first?.listValue?.append(.int(2)) }
        }
    }

    private func configuration(at realm: Realm) -> Realm.Configuration { realm.configuration }

    private func autoreleasingRealm(_ configuration: Realm.Configuration, _ body: (Realm) throws -> Void) throws {
        try body(try Realm(configuration: configuration))
    }
}

extension AnyRealmValue {
    /// The value with nested collections copied out, so that it compares by contents.
    fileprivate var detachedForComparison: AnyRealmValue {
        switch self {
        case .list(let list): .fromArray(list.map(\.detachedForComparison))
        case .dictionary(let map): .fromDictionary(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value.detachedForComparison) }))
        default: self
        }
    }
}
