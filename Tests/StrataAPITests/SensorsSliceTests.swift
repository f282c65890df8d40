// The harness's sensors pattern end to end: open, write, add, list append/remove, primary-key
// lookup, delete, reopen.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct SensorsSliceTests {
    @Test func sensorsPersistAcrossReopen() throws {
        let config = tempConfig()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for s in ["o3", "no2", "aqi"] { realm.add(try Sensor.make(value: ["symbol": s])) }
            }
            for i in 0..<5 {
                try realm.write {
                    let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
                    let r = Reading()
                    r.value = Double(i) * 1.5
                    r.seq = Int64(i)
                    r.timestamp = Date(timeIntervalSince1970: Double(i))
                    sensor.readings.append(r)
                }
            }
            #expect(realm.objects(Reading.self).count == 5)
        }
        let realm = try Realm(configuration: config)
        let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "o3"))
        #expect(sensor.symbol == "o3")
        #expect(sensor.readings.count == 5)
        #expect(sensor.readings[4].value == 6.0)
        #expect(sensor.readings[4].seq == 4)
        #expect(sensor.readings[4].timestamp == Date(timeIntervalSince1970: 4))
        #expect(realm.objects(Sensor.self).count == 3)
        #expect(realm.object(ofType: Sensor.self, forPrimaryKey: "none") == nil)
    }

    @Test func readingsAreCappedByRemovingAndDeletingTheOldest() throws {
        let realm = try Realm(configuration: tempConfig())
        try realm.write { realm.add(try Sensor.make(value: ["symbol": "aqi"])) }
        let cap = 10
        for i in 0..<35 {
            try realm.write {
                let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "aqi"))
                let r = Reading()
                r.value = Double(i)
                r.seq = Int64(i)
                sensor.readings.append(r)
                if sensor.readings.count > cap {
                    let oldest = sensor.readings[0]
                    sensor.readings.removeFirst()
                    realm.delete(oldest)
                }
            }
        }
        let sensor = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "aqi"))
        #expect(sensor.readings.count == cap)
        #expect(realm.objects(Reading.self).count == cap)
        #expect(sensor.readings.map(\.seq) == Array(25..<35).map(Int64.init))
        #expect(sensor.readings.average(ofProperty: "value") == 29.5)
        #expect(realm.objects(Reading.self).sum(ofProperty: "seq") == Int64((25..<35).reduce(0, +)))
    }

    @Test func batchedAppendsInOneTransaction() throws {
        let realm = try Realm(configuration: tempConfig())
        try realm.write {
            let s = Sensor()
            s.symbol = "no2"
            realm.add(s)
            for i in 0..<1_000 {
                let r = Reading()
                r.seq = Int64(i)
                s.readings.append(r)
            }
        }
        let s = try #require(realm.object(ofType: Sensor.self, forPrimaryKey: "no2"))
        #expect(s.readings.count == 1_000)
        #expect(s.readings[999].seq == 999)
        #expect(realm.objects(Reading.self).count == 1_000)
    }
}
