// PrimaryKeyGuesses: a primary-key lookup of an `Int` key in one descent, when a class's object
// keys follow its primary keys at a fixed distance.
//
// Why: `object(ofType:forPrimaryKey:)` descends the primary-key tree to find the object key, then
// the object tree to read the row. At 1M objects each descent ends in a leaf the CPU caches do
// not hold, and the two were three quarters of a lookup. Classes whose ids are handed out in the
// order objects are added (a counter, an auto-increment id, a time series) keep
// `object key − id` constant, and object keys are what the table's counter hands out. So the
// object key of id `v` is guessed as `v + offset`, its row read (one descent), and the guess
// taken only when that row's primary key is `v`. Primary keys are unique and cannot change, so
// the row that holds `v` is the object the primary-key tree would name.
//
// Invariants:
// - A guess is only ever a place to look: a lookup returns a guessed key only after reading that
//   key's row in the snapshot it reads and finding the requested primary key in it. A wrong or
//   stale offset costs a descent, never an answer.
// - An offset is guessed with only once two lookups through the primary-key tree in a row gave
//   it, and dropped at the first guess that misses; a class whose keys do not follow its ids
//   therefore pays nothing but a subtraction per lookup.
// - Kept by live cores only (a frozen core is read from several threads), per table index.
import StrataStorage

struct PrimaryKeyGuesses {
    private struct Hint {
        var offset: UInt64
        /// Whether the last two tree lookups gave `offset` (then lookups guess with it).
        var confirmed: Bool
    }

    private var hints: [Hint?] = []

    /// The object key to try for primary key `value` in table `t`, if its offset is confirmed.
    @inline(__always)
    func guess(table t: Int, value: Int64) -> UInt64? {
        guard t >= 0, t < hints.count, let hint = hints[t], hint.confirmed else { return nil }
        return UInt64(bitPattern: value) &+ hint.offset
    }

    /// A guess for table `t` read a row without the requested primary key (or no row).
    mutating func missed(table t: Int) {
        guard t >= 0, t < hints.count else { return }
        hints[t]?.confirmed = false
    }

    /// The primary-key tree mapped `value` to object key `key` in table `t`.
    mutating func learn(table t: Int, value: Int64, key: UInt64) {
        guard t >= 0 else { return }
        if t >= hints.count { hints.append(contentsOf: repeatElement(nil, count: t + 1 - hints.count)) }
        let offset = key &- UInt64(bitPattern: value)
        hints[t] = Hint(offset: offset, confirmed: hints[t]?.offset == offset)
    }

    /// The `Int` a primary-key tree key holds (tag 1, then 8 bytes in `encoding`); nil for any
    /// other key (a nil key, another type).
    @inline(__always)
    static func intValue(ofTreeKey key: UnsafeRawBufferPointer, encoding: PrimaryKeyEncoding) -> Int64? {
        guard key.count == 9, key[0] == IndexKeys.valueTag else { return nil }
        switch encoding {
        case .littleEndian:
            return Int64(littleEndian: key.loadUnaligned(fromByteOffset: 1, as: Int64.self))
        case .ordered:
            let bits = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            return Int64(bitPattern: bits ^ (1 << 63))
        }
    }
}
