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
    }
}
