// LinkingObjects lists an object once per link that points at it, as Realm's backlinks do.
import Foundation
import Testing
import Strata
import StrataTestSupport

@Suite struct LinkingObjectsPerLinkTests {
    @Test func anObjectAppearsOncePerLink() throws {
        let realm = try Realm(configuration: memoryConfig())
        let song = Song(value: ["title": "Blue"])
        let mix = Playlist(value: ["name": "mix"])
        let best = Playlist(value: ["name": "best"])
        try realm.write {
            realm.add(song)
            realm.add(mix)
            realm.add(best)
            mix.songs.append(song)
            mix.songs.append(song)
            best.songs.append(song)
        }
        #expect(song.playlists.count == 3)
        #expect(song.playlists.map(\.name).sorted() == ["best", "mix", "mix"])
        try realm.write { mix.songs.remove(at: 0) }
        #expect(song.playlists.map(\.name).sorted() == ["best", "mix"])
        try realm.write { realm.delete(best) }
        #expect(song.playlists.map(\.name) == ["mix"])
        try realm.write { mix.songs.removeAll() }
        #expect(song.playlists.isEmpty)
    }
}
