// The example of Strata.docc's landing page (Strata.md), as it shows it: the model in a
// namespace, the statements in a test whose relative path resolves in a temporary directory.
import Foundation
import Strata
import Testing

enum GuideExample {
    final class Sensor: Object {
        @Persisted(primaryKey: true) var symbol = ""
        @Persisted var readings: List<Reading>
    }

    final class Reading: Object {
        @Persisted var value = 0.0
        @Persisted var timestamp = Date()
    }
}

extension GuideExample {
    @Suite struct ExampleTests {
        @Test func theLandingPageExampleRunsAsDocumented() throws {
            let directory = try TemporaryDirectory()
            func URL(fileURLWithPath path: String) -> Foundation.URL { directory.file(path) }

            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: "sensors.realm")))
            try realm.write {
                let sensor = realm.object(ofType: Sensor.self, forPrimaryKey: "o3")
                    ?? realm.create(Sensor.self, value: ["symbol": "o3"])
                sensor.readings.append(Reading(value: ["value": 42.0]))   // adds the reading too
            }
            let recent = realm.objects(Reading.self).filter("value > %@", 40).sorted(byKeyPath: "timestamp")

            #expect(recent.map(\.value) == [42.0])
            #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "o3")?.readings.count == 1)
        }
    }
}
