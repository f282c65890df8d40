// writeCopy inside a write transaction copies the uncommitted state, as Realm documents.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct WriteCopyInsideWriteTests {
    @Test func copiesTheUncommittedState() throws {
        let config = tempConfig("source")
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("uncommitted.realm")
        let key = Data((0..<64).map { UInt8(255 - $0) })
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Contact(value: ["id": 1, "name": "committed"])) }
            realm.beginWrite()
            realm.add(Contact(value: ["id": 2, "name": "pending"]))
            let song = Song(value: ["title": "Blue"])
            let mix = Playlist(value: ["name": "mix"])
            realm.add(mix)
            mix.songs.append(song)
            mix.songs.append(song)
            let holder = DecimalHolder()
            holder.amount = try Decimal128(string: "2.5")
            holder.history.append(7)
            realm.add(holder)
            try realm.writeCopy(toFile: copyURL, encryptionKey: key)
            #expect { try realm.writeCopy(toFile: copyURL) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
            realm.cancelWrite()
            #expect(realm.objects(Contact.self).count == 1)
            #expect(realm.objects(Playlist.self).isEmpty)
        }
        var copy = Realm.Configuration(fileURL: copyURL)
        copy.encryptionKey = key
        let c = try Realm(configuration: copy)
        #expect(c.objects(Contact.self).map(\.name).sorted() == ["committed", "pending"])
        #expect(c.object(ofType: Contact.self, forPrimaryKey: 2)?.name == "pending")
        let mix = try #require(c.objects(Playlist.self).first)
        #expect(mix.songs.map(\.title) == ["Blue", "Blue"])
        let song = try #require(c.objects(Song.self).first)
        #expect(song.playlists.count == 2)
        let holder = try #require(c.objects(DecimalHolder.self).first)
        #expect(holder.amount == (try Decimal128(string: "2.5")))
        #expect(Array(holder.history) == [7])
        // The copy is a working file: writes and deletes keep links consistent.
        try c.write {
            c.add(Contact(value: ["id": 3]))
            c.delete(song)
        }
        #expect(mix.songs.isEmpty)
        #expect(c.objects(Contact.self).count == 3)
    }
}
