// The examples of Strata.docc's "Queries" article, as it shows them, on the "Getting started"
// model (`Dog`: id, name, age).
import Foundation
import Strata
import Testing

extension ArticleExample {
    @Suite struct QueriesExampleTests {
        static func realmWithDogs(_ directory: TemporaryDirectory) throws -> Realm {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file("dogs.realm")))
            try realm.write {
                for (id, name, age) in [(1, "Rex", 2), (2, "rover", 1), (3, "Max", 2), (4, "Rex", 7), (5, "Ruby", 4)] {
                    realm.add(Dog(value: ["id": id, "name": name, "age": age]))
                }
            }
            return realm
        }

        @Test func filtersSortsAndAggregates() throws {
            let directory = try TemporaryDirectory()
            let realm = try Self.realmWithDogs(directory)

            let dogs = realm.objects(Dog.self)

            // Realm's query language, with %@ for values and %K for key paths.
            let young = dogs.filter("age < %@ AND name BEGINSWITH[c] %@", 3, "r")

            // The same query checked by the compiler.
            let alsoYoung = dogs.where { $0.age < 3 && $0.name.starts(with: "r", options: .caseInsensitive) }

            let byAge = young.sorted(byKeyPath: "age", ascending: false)
            let oldest = dogs.max(ofProperty: "age") as Int?
            let names = Set(dogs.distinct(by: ["name"]).map(\.name))

            #expect(Set(young.map(\.id)) == [1, 2])
            #expect(Set(alsoYoung.map(\.id)) == [1, 2])
            #expect(byAge.map(\.id) == [1, 2])
            #expect(oldest == 7)
            #expect(names == ["Rex", "rover", "Max", "Ruby"])
        }

        @Test func aQueryFromElsewhereIsCheckedWhenItRuns() throws {
            let directory = try TemporaryDirectory()
            let realm = try Self.realmWithDogs(directory)
            let dogs = realm.objects(Dog.self)
            var shown: [Int] = []
            var problems: [(offset: Int?, message: String)] = []
            func show(_ matches: Results<Dog>) { shown.append(matches.count) }
            func showProblem(at offset: Int?, _ message: String) { problems.append((offset, message)) }

            for userText in ["age > 3", "age >", "weight > 3"] {
                do {
                    let matches = try dogs.filtering(userText, [])
                    show(matches)
                } catch let error as Realm.Error where error.code == .invalidQuery {
                    showProblem(at: error.queryError?.offset, error.message)
                }
            }

            #expect(shown == [2])
            #expect(problems.count == 2)
            #expect(problems.last?.message.contains("weight") == true)
        }
    }
}
