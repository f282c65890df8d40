// Songs and playlists: a link list with its inverse, shared by the link, copy and set suites.
import Foundation
import Testing
@testable import Strata

final class Song: Object {
    @Persisted var title = ""
    @Persisted(originProperty: "songs") var playlists: LinkingObjects<Playlist>
}

final class Playlist: Object {
    @Persisted var name = ""
    @Persisted var songs: List<Song>
}
