// Deleting a batch of objects that lists and sets hold (the Realm book's trim,
// `realm.delete(Array(readings.prefix(excess)))`) takes them out of every list in one scan per
// list. Checked against a twin realm that deletes the same objects one `delete` at a time (the
// per-object path): the lists, the sets, the to-one links, every backlink with its count, the
// rows and the file's verification agree, for a leading run, a scattered choice, duplicates in a
// list and an object linked from several lists; a batch that fails changes nothing.
import Foundation
import Testing
@testable import Strata
import StrataTestSupport

final class UnlinkShelf: Object {
    @Persisted var name = ""
    @Persisted var readings: List<Reading>
    @Persisted var picked: MutableSet<Reading>
    @Persisted var favourite: Reading?
}

@Suite struct BatchListUnlinkTests {
    private static func realm(_ name: String) throws -> Realm {
        var configuration = tempConfig(name)
        configuration.objectTypes = [Sensor.self, Reading.self, UnlinkShelf.self]
        return try Realm(configuration: configuration)
    }

    /// A sensor with `count` readings; a shelf listing every 5th (the 10th twice), a set of every
    /// 7th and a favourite (the 3rd).
    private static func fill(_ realm: Realm, count: Int) throws {
        try realm.write {
            let sensor = realm.create(Sensor.self, value: ["symbol": "o3"])
            for seq in 0..<count {
                let reading = Reading()
                reading.seq = Int64(seq)
                reading.value = Double(seq)
                sensor.readings.append(reading)
            }
            let shelf = realm.create(UnlinkShelf.self, value: ["name": "shelf"])
            for (index, reading) in sensor.readings.enumerated() {
                if index % 5 == 0 { shelf.readings.append(reading) }
                if index == 10 { shelf.readings.append(reading) }
                if index % 7 == 0 { shelf.picked.insert(reading) }
                if index == 3 { shelf.favourite = reading }
            }
        }
    }

    /// Lists, set, favourite, every reading's backlinks with counts, and the rows, as text.
    private static func state(_ realm: Realm) throws -> [String] {
        var out: [String] = []
        for sensor in realm.objects(Sensor.self) { out.append("sensor \(sensor.readings.map(\.seq))") }
        for shelf in realm.objects(UnlinkShelf.self) {
            out.append("shelf \(shelf.readings.map(\.seq)) set \(shelf.picked.map(\.seq).sorted()) fav \(shelf.favourite?.seq ?? -1)")
        }
        for reading in realm.objects(Reading.self) {
            let binding = try #require(reading._binding)
            let links = try realm.core.backlinkStore.backlinks(target: binding.table, targetKey: binding.key)
                .map { "\($0.table).\($0.column)x\($0.count)" }
            out.append("reading \(reading.seq) <- \(links)")
        }
        return out.sorted()
    }

    private static func check(_ name: String, count: Int, doomed: (List<Reading>) -> [Reading]) throws {
        let batch = try realm(name + "-batch"), single = try realm(name + "-single")
        try fill(batch, count: count)
        try fill(single, count: count)
        let batchReadings = try #require(batch.objects(Sensor.self).first).readings
        let singleReadings = try #require(single.objects(Sensor.self).first).readings
        let batchDoomed = doomed(batchReadings), singleDoomed = doomed(singleReadings)
        #expect(batchDoomed.map(\.seq) == singleDoomed.map(\.seq))
        let remaining = count - Set(batchDoomed.map(\.seq)).count
        try batch.write { batch.delete(batchDoomed) }
        try single.write { for reading in singleDoomed { single.delete(reading) } }
        #expect(try state(batch) == state(single))
        #expect(batch.objects(Reading.self).count == remaining)
        #expect(try batch.core.file.verify().balances)
        let file = try StrataFile(path: try #require(batch.configuration.fileURL).path)
        defer { file.close() }
        #expect(file.verify().isEmpty)
    }

    @Test func aLeadingRunLeavesEveryListAsOneDeletionAtATimeDoes() throws {
        try Self.check("prefix", count: 1_200) { Array($0.prefix(700)) }
    }

    @Test func aScatteredChoiceLeavesEveryListAsOneDeletionAtATimeDoes() throws {
        try Self.check("scattered", count: 900) { readings in readings.enumerated().filter { $0.offset % 3 != 1 }.map(\.element) }
    }

    @Test func aListObserverSeesTheDeletedPositions() throws {
        let realm = try Self.realm("observed")
        try Self.fill(realm, count: 50)
        let readings = try #require(realm.objects(Sensor.self).first).readings
        var deletions: [[Int]] = []
        let token = readings.observe { change in
            if case .update(_, let deleted, _, _) = change { deletions.append(deleted) }
        }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { realm.delete(Array(readings.prefix(20))) }
        realm.refresh()
        #expect(deletions == [Array(0..<20)])
        #expect(readings.first?.seq == 20 && readings.count == 30)
    }

    @Test func aBatchThatFailsChangesNoList() throws {
        let realm = try Self.realm("failing")
        try Self.fill(realm, count: 100)
        let before = try Self.state(realm)
        let readings = try #require(realm.objects(Sensor.self).first).readings
        let doomed = Array(readings.prefix(40)) + [Reading()]
        #expect(throws: Realm.Error.self) { try realm.write { realm.delete(doomed) } }
        // The accessors the batch reached stay invalidated (RealmSwift's rule); the data is as it was.
        #expect(try Self.state(realm) == before)
        #expect(try realm.core.file.verify().balances)
    }
}
