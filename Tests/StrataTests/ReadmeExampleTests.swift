import Foundation
import Testing
import Strata

/// The "Using Strata" example of README.md, run as written (the models are the ones the README
/// declares; they live in TestModels.swift). If this test has to change, the README must too.
@Suite struct ReadmeExampleTests {
    @Test func usingStrataExampleRunsAsDocumented() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fileURL = dir.appendingPathComponent("sensors.realm")

        do {
            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: fileURL, objectTypes: [Sensor.self, Reading.self]))
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
            #expect(realm.objects(Reading.self).count == 1)
        }

        // And it persisted: a fresh open on another thread's cache sees the same data.
        let reopened = try Realm(configuration: Realm.Configuration(
            fileURL: fileURL, objectTypes: [Sensor.self, Reading.self]))
        let sensor = try #require(reopened.object(ofType: Sensor.self, forPrimaryKey: "o3"))
        #expect(sensor.readings.count == 1)
        #expect(sensor.readings.first?.value == 42)
    }
}
