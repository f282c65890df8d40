// The versions pinned by live readers of one process, with a count per version.
//
// A sorted array, not a dictionary: a process pins one or two versions at a time, every read
// transaction pins and unpins, and every pin change publishes the sorted list to the lock file.
// The dictionary this replaces hashed twice and sorted its keys on each of those (~3% of a
// one-reading transaction, which opens a read after its commit and ends one at its next begin).

struct PinnedVersions {
    /// Pinned versions, ascending, without duplicates.
    private(set) var versions: [UInt64] = []
    /// Live readers of `versions[i]` (always ≥ 1).
    private var counts: [Int] = []

    var isEmpty: Bool { versions.isEmpty }
    var count: Int { versions.count }

    func contains(_ version: UInt64) -> Bool { index(of: version).found }

    /// Adds a reader of `version`. Returns whether the version was not pinned before.
    @discardableResult
    mutating func pin(_ version: UInt64) -> Bool {
        let (i, found) = index(of: version)
        if found {
            counts[i] += 1
            return false
        }
        versions.insert(version, at: i)
        counts.insert(1, at: i)
        return true
    }

    /// Removes one reader of `version`. Returns whether the version is no longer pinned
    /// (false also when it was not pinned at all).
    @discardableResult
    mutating func unpin(_ version: UInt64) -> Bool {
        let (i, found) = index(of: version)
        guard found else { return false }
        if counts[i] > 1 {
            counts[i] -= 1
            return false
        }
        versions.remove(at: i)
        counts.remove(at: i)
        return true
    }

    /// Drops every reader of `version` (a pin taken back before anyone used it).
    mutating func removeAll(of version: UInt64) {
        let (i, found) = index(of: version)
        guard found else { return }
        versions.remove(at: i)
        counts.remove(at: i)
    }

    /// Where `version` is, or where it would be inserted.
    private func index(of version: UInt64) -> (Int, found: Bool) {
        // Newest versions are pinned and unpinned most: search from the end.
        var i = versions.count
        while i > 0 && versions[i - 1] > version { i -= 1 }
        if i > 0 && versions[i - 1] == version { return (i - 1, true) }
        return (i, false)
    }
}
