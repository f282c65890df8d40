// The object format: Strata writes one (`Catalog.formatMarker`) into new files and reads it,
// format 3 (little-endian Int primary keys, which stays format 3 when written:
// PrimaryKeyOrderTests) and format 2, which lacks only a decimal's coefficient bit 112; a format-2
// file becomes format 3 at its next commit.
// A file of any other object format version, this project's first one (rows without a backlink
// footer) or a later one, is refused with `.unsupportedFileFormat` naming its version, and left
// byte for byte as it was, whichever way it is opened (read-write, read-only, with compaction on
// launch).
import Foundation
import Testing
@testable import Strata
import StrataTestSupport
import StrataStorage

@Suite struct ObjectFormatTests {
    /// "STRATA01" as little-endian bytes: the first object format's marker.
    static let firstFormatMarker: UInt64 = 0x3130_4154_4152_5453
    /// "STRATA02": the format before the decimal coefficient's bit 112, read as it is.
    static let secondFormatMarker: UInt64 = 0x3230_4154_4152_5453
    /// "STRATA03": little-endian Int primary keys.
    static let thirdFormatMarker: UInt64 = 0x3330_4154_4152_5453
    /// "STRATA05": a format later than this version's.
    static let laterFormatMarker: UInt64 = 0x3530_4154_4152_5453

    /// Writes a file of the first object format at `config`'s path: the catalog and trees of
    /// today's format, every row without its footer (the one byte of an empty footer: no object
    /// here is linked), and the marker "STRATA01".
    static func writeFirstFormatFile(_ config: Realm.Configuration) throws {
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<20 {
                    let d = Dog()
                    d.id = "d\(i)"
                    d.name = "dog \(i)"
                    d.age = i
                    realm.add(d)
                }
            }
        }
        let path = try #require(config.fileURL).path
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let w = try file.beginWrite()
        #expect(w.roots[0] == Catalog.formatMarker && w.roots.data.first == Catalog.rootDataTag)
        let metaBytes = Array(w.roots.data.dropFirst())
        var metas = try Catalog.decodeMetas(metaBytes, count: Catalog.tableCount(metaBytes))
        for t in metas.indices {
            var rows: [(UInt64, [UInt8])] = []
            try metas[t].objects.forEach(from: 0, in: w) { key, row in
                #expect(row.last == 0, "an empty footer")
                rows.append((key, Array(row.dropLast())))
                return true
            }
            for (key, row) in rows {
                try row.withUnsafeBytes { _ = try metas[t].objects.put(key, $0, in: w) }
            }
        }
        var roots = w.roots
        roots.data = [Catalog.rootDataTag] + Catalog.encode(metas: metas)
        roots[0] = firstFormatMarker
        w.roots = roots
        try w.commit()
    }

    /// Every byte of the file at `config`'s path.
    static func contents(_ config: Realm.Configuration) throws -> Data {
        try Data(contentsOf: try #require(config.fileURL))
    }

    static func isUnsupportedFormat(_ error: any Error, version: Int) -> Bool {
        guard let e = error as? Realm.Error, e.code == .unsupportedFileFormat else { return false }
        return e.message.contains("object format version \(version)") && e.message.contains("version \(Catalog.formatVersion)")
    }

    @Test func aFileOfTheFirstFormatIsRefusedAndLeftUnchanged() throws {
        let config = tempConfig("first")
        try Self.writeFirstFormatFile(config)
        let before = try Self.contents(config)

        var readOnly = config
        readOnly.readOnly = true
        var compacting = config
        compacting.shouldCompactOnLaunch = { _, _ in true }
        for attempt in [config, readOnly, compacting] {
            #expect { try Realm(configuration: attempt) } throws: { Self.isUnsupportedFormat($0, version: 1) }
            #expect(try Self.contents(config) == before)
        }
    }

    /// Commits `marker` as the marker word of the file at `path` (creating the file if need be).
    static func setMarker(_ marker: UInt64, _ path: String) throws {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let w = try file.beginWrite()
        w.roots[0] = marker
        try w.commit()
    }

    /// The marker word of the file at `path`.
    static func marker(_ path: String) throws -> UInt64 {
        let file = try StorageFile.open(StorageOptions(path: path, durability: .full))
        defer { file.close() }
        let reading = try file.beginRead()
        defer { reading.end() }
        return reading.roots[0]
    }

    @Test func aFileOfTheSecondFormatReadsAsItIsAndIsTheThirdOnceWritten() throws {
        let config = tempConfig("second")
        let path = try #require(config.fileURL).path
        let amount = try Decimal128(string: "1234567890123456789012345678901234")
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                realm.add(Dog(value: ["id": "rex", "name": "Rex", "age": 3]))
                realm.add(DecimalHolder(value: ["amount": amount]))
            }
        }
        try Self.setMarker(Self.secondFormatMarker, path)
        let before = try Self.contents(config)
        do {
            let inspected = try StrataFile(path: path)
            #expect(inspected.objectFormatVersion == 2)
        }
        #expect(try Self.contents(config) == before, "inspecting writes nothing")
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).map(\.name) == ["Rex"])
        #expect(realm.objects(DecimalHolder.self).first?.amount == amount)
        #expect(try Self.marker(path) == Self.secondFormatMarker, "reading keeps the format")
        try realm.write { realm.add(Dog(value: ["id": "ace", "name": "Ace", "age": 5])) }
        #expect(try Self.marker(path) == Self.thirdFormatMarker, "a commit writes format 3, whose primary keys format 2 shares")
        #expect(try StrataFile(path: path).objectFormatVersion == 3)
    }

    @Test func aLaterFormatIsRefusedAndLeftUnchanged() throws {
        let config = tempConfig("later")
        let path = try #require(config.fileURL).path
        try Self.setMarker(Self.laterFormatMarker, path)
        let before = try Self.contents(config)
        #expect { try Realm(configuration: config) } throws: { Self.isUnsupportedFormat($0, version: 5) }
        #expect(try Self.contents(config) == before)
    }

    @Test func theFormatVersionIsReadFromTheMarker() {
        #expect(Catalog.version(ofMarker: Catalog.formatMarker) == Catalog.formatVersion)
        #expect(Catalog.version(ofMarker: Self.firstFormatMarker) == 1)
        #expect(Catalog.version(ofMarker: Self.secondFormatMarker) == 2)
        #expect(Catalog.version(ofMarker: Self.thirdFormatMarker) == 3)
        #expect(Catalog.version(ofMarker: Self.laterFormatMarker) == 5)
        for version in [1, 2, 3, 4, 5, 12, 99] {
            #expect(Catalog.version(ofMarker: Catalog.marker(ofVersion: version)) == version)
        }
        #expect(Catalog.marker(ofVersion: Catalog.formatVersion) == Catalog.formatMarker)
        #expect(Catalog.marker(ofVersion: 3) == Self.thirdFormatMarker)
        #expect(Catalog.version(ofMarker: 12345) == nil)
        #expect(Catalog.version(ofMarker: 0x4130_4154_4152_5453) == nil, "\"STRATA0A\" is no version")
    }
}
