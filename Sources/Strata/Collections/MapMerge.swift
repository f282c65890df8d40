// Merging into a `Map` and reading it as `(key:, value:)` pairs, with RealmSwift's names, so code
// that moves entries between maps and dictionaries ports unchanged.
import Foundation

extension Map {
    /// The entries of a map as a sequence of `(key:, value:)` pairs (what iterating the map
    /// itself gives), in the map's iteration order, read when the sequence is made.
    public struct KeyValueSequence: Sequence {
        let entries: [(key: Key, value: Value)]

        public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { entries.makeIterator() }
    }

    /// The map's entries as `(key:, value:)` pairs.
    ///
    /// ```swift
    /// for (level, score) in player.scores.asKeyValueSequence() { print(level, score) }
    /// ```
    public func asKeyValueSequence() -> KeyValueSequence { KeyValueSequence(entries: entries) }

    /// Adds the pairs of a sequence to the map; for a key the map already has (or that the sequence
    /// repeats), `combine` gets the current and the new value and returns the one to keep.
    ///
    /// On a managed map this is a change like `map[key] = value`: it needs a write transaction.
    /// An error `combine` throws stops the merge; the pairs merged before it stay.
    ///
    /// - Parameters:
    ///   - sequence: the pairs to add.
    ///   - combine: chooses the value for a key present on both sides.
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            if let current = self[key] {
                self[key] = try combine(current, value)
            } else {
                self[key] = value
            }
        }
    }

    /// Adds the entries of another map; `combine` chooses the value for a key present in both.
    ///
    /// - Parameters:
    ///   - other: the map whose entries to add.
    ///   - combine: chooses the value for a key present on both sides (current value first).
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }
}
