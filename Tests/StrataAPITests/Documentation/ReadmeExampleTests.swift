// The example of README.md's "Using Strata", as the README shows it: the sensors model (in a
// namespace, beside the other examples' models), then the statements in a test whose relative
// path resolves in a temporary directory. `DocumentationExampleTests` checks both blocks are here.
import Foundation
import Strata
import Testing

enum ReadmeExample {
    final class Reading: Object {
        @Persisted var value: Double
        @Persisted var seq: Int64
        @Persisted var timestamp: Date
    }

    final class Sensor: Object {
        @Persisted(primaryKey: true) var symbol: String
        @Persisted var readings: List<Reading>
    }
}

extension ReadmeExample {
    @Suite struct ExampleTests {
        @Test func theUsingStrataExampleRunsAsDocumented() throws {
            let directory = try TemporaryDirectory()
            func URL(fileURLWithPath path: String) -> Foundation.URL { directory.file(path) }

            do {
                let realm = try Realm(configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: "sensors.realm"), objectTypes: [Sensor.self, Reading.self]))
                try realm.write {
                    let sensor = Sensor()
                    sensor.symbol = "o3"
                    realm.add(sensor)
                }
                if let sensor = realm.object(ofType: Sensor.self, forPrimaryKey: "o3") {
                    try realm.write {
                        let reading = Reading()
                        reading.value = 42
                        sensor.readings.append(reading)
                    }
                }
                print(realm.objects(Reading.self).count)   // 1

                #expect(realm.objects(Reading.self).count == 1)
            }
            // And it persisted.
            let reopened = try Realm(configuration: Realm.Configuration(
                fileURL: directory.file("sensors.realm"), objectTypes: [Sensor.self, Reading.self]))
            let sensor = try #require(reopened.object(ofType: Sensor.self, forPrimaryKey: "o3"))
            #expect(sensor.readings.map(\.value) == [42])
        }

        /// The README's query and observer example, after its write example, on the same realm:
        /// what it prints must be what its comments say.
        @Test func theQueryAndObserverExamplePrintsWhatItsCommentsSay() throws {
            let directory = try TemporaryDirectory()
            func URL(fileURLWithPath path: String) -> Foundation.URL { directory.file(path) }
            var printed: [String] = []
            func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: "sensors.realm"), objectTypes: [Sensor.self, Reading.self]))
            try realm.write {
                let sensor = Sensor()
                sensor.symbol = "o3"
                realm.add(sensor)
            }
            if let sensor = realm.object(ofType: Sensor.self, forPrimaryKey: "o3") {
                try realm.write {
                    let reading = Reading()
                    reading.value = 42
                    sensor.readings.append(reading)
                }
            }
            print(realm.objects(Reading.self).count)   // 1

            let high = realm.objects(Reading.self).where { $0.value > 40 }
            let token = high.observe { change in
                if case .update(_, let deletions, let insertions, let modifications) = change {
                    print("deleted \(deletions), inserted \(insertions), modified \(modifications)")
                }
            }
            try realm.write {
                high.first?.value = 43
            }
            // deleted [], inserted [], modified [0]
            print(high.count, high.sum(of: \.value))   // 1 43.0
            token.invalidate()

            #expect(printed == ["1", "deleted [], inserted [], modified [0]", "1 43.0"])
        }
    }
}
