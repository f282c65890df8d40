// Songs and playlists: a link list with its inverse, shared by the link, copy and set suites.
import Foundation
import Strata

public final class Song: Object {
    @Persisted public var title = ""
    @Persisted(originProperty: "songs") public var playlists: LinkingObjects<Playlist>
}

public final class Playlist: Object {
    @Persisted public var name = ""
    @Persisted public var songs: List<Song>
}
