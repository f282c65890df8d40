// The first rows of a whole class sorted by one numeric column, without sorting the rest: what
// `sorted(byKeyPath:)` followed by `first`, `prefix(n)` or a subscript near the start reads (a
// top-N, the latest reading). One scan of the column keeps the `count` best rows; a full sort of
// a million rows cost five times that scan. The last row (`last`) takes one scan too.
//
// Invariants:
// - The keys are exactly the first `count` of `ColumnSort.sortedKeys` (fewer only when the class
//   has fewer rows): the same images from the same scan, the same places for nils and NaNs, and
//   ties in key order. The scan hands rows over in key order; a kept row is never dropped for a
//   later row of the same image, so among equal images the earliest are the ones kept.
// - `LowestImages` keeps at most twice `count` candidates. When it is full it keeps the
//   `count` best, in scan order, and from then on refuses any image not below the worst kept
//   one: such a row ranks after `count` rows already kept.
import StrataStorage

extension ColumnSort {
    /// The first `count` keys of `sortedKeys(by:ascending:objects:pages:)`; nil when the column
    /// is not numeric.
    static func leadingKeys(_ count: Int, by reader: RowColumnReader, ascending: Bool,
                            objects: KeyedTree, pages: any PageReading) throws -> [UInt64]? {
        var leading = LeadingSelection(count: count)
        guard try scan(by: reader, ascending: ascending, objects: objects, pages: pages, into: &leading) else { return nil }
        let numbers = leading.numbers.best()
        let all = ordered(nils: leading.nils, nans: leading.nans, numbers: numbers, ascending: ascending)
        return Array(all.prefix(count))
    }

    /// The last key of `sortedKeys(by:ascending:objects:pages:)` (nil inside: no rows); nil when
    /// the column is not numeric.
    static func lastKey(by reader: RowColumnReader, ascending: Bool,
                        objects: KeyedTree, pages: any PageReading) throws -> UInt64?? {
        var last = LastOfSort()
        guard try scan(by: reader, ascending: ascending, objects: objects, pages: pages, into: &last) else { return nil }
        // The order's last group: the numbers when ascending, the nils when descending.
        if ascending { return .some(last.highestKey ?? last.lastNaN ?? last.lastNil) }
        return .some(last.lastNil ?? last.lastNaN ?? last.highestKey)
    }
}

/// What ends a sort's order: the latest nil, the latest NaN, and the number of highest image,
/// the latest of equal ones (a stable sort leaves ties in key order, so the latest is last).
struct LastOfSort: ColumnSortSink {
    var lastNil: UInt64?
    var lastNaN: UInt64?
    var highest: UInt64 = 0
    var highestKey: UInt64?

    @inline(__always) mutating func takeNil(_ key: UInt64) { lastNil = key }
    @inline(__always) mutating func takeNaN(_ key: UInt64) { lastNaN = key }
    @inline(__always) mutating func takeNumber(_ image: UInt64, _ key: UInt64) {
        if highestKey == nil || image >= highest {
            highest = image
            highestKey = key
        }
    }
}

/// The rows a leading sort keeps: the first `count` nils and NaNs in key order (all that can
/// lead), and the `count` numbers of lowest image.
struct LeadingSelection: ColumnSortSink {
    let count: Int
    var nils: [UInt64] = []
    var nans: [UInt64] = []
    var numbers: LowestImages

    init(count: Int) {
        self.count = count
        numbers = LowestImages(count: count)
    }

    @inline(__always) mutating func takeNil(_ key: UInt64) { if nils.count < count { nils.append(key) } }
    @inline(__always) mutating func takeNaN(_ key: UInt64) { if nans.count < count { nans.append(key) } }
    @inline(__always) mutating func takeNumber(_ image: UInt64, _ key: UInt64) { numbers.offer(image, key) }
}

/// The `count` lowest images offered, ties going to the earliest offered, with their keys.
struct LowestImages {
    let count: Int
    private(set) var images: [UInt64] = []
    private(set) var keys: [UInt64] = []
    /// Once the candidates were cut to `count`: the worst image kept. A later image not below
    /// it cannot be among the best.
    private(set) var bound: UInt64?
    /// Where a cut sorts the candidates' images, kept between cuts.
    private var scratch: [UInt64] = []

    init(count: Int) {
        self.count = max(count, 0)
        images.reserveCapacity(2 * self.count)
        keys.reserveCapacity(2 * self.count)
    }

    @inline(__always)
    mutating func offer(_ image: UInt64, _ key: UInt64) {
        if let bound, image >= bound { return }
        guard count > 0 else { return }
        images.append(image)
        keys.append(key)
        if images.count >= 2 * count { cut() }
    }

    /// Keeps the `count` best candidates, in the order they were offered, in place.
    private mutating func cut() {
        // A sort of a copy finds the worst image kept: the candidates of a scan whose every row
        // beats the kept ones (the latest rows of a class, read in the order they were added)
        // arrive as one descending run, which the standard library's sort takes in one pass.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: images)
        scratch.sort()
        let worst = scratch[count - 1]
        // Below `worst` every candidate stays; of those equal to it, the earliest that fit.
        var firstWorst = count - 1
        while firstWorst > 0 && scratch[firstWorst - 1] == worst { firstWorst -= 1 }
        var equalRoom = count - firstWorst
        var kept = 0
        for i in images.indices {
            let image = images[i]
            guard image < worst || (image == worst && equalRoom > 0) else { continue }
            if image == worst { equalRoom -= 1 }
            images[kept] = image
            keys[kept] = keys[i]
            kept += 1
        }
        images.removeLast(images.count - kept)
        keys.removeLast(keys.count - kept)
        bound = worst
    }

    /// The keys of the best candidates, best first (ties in the order offered).
    func best() -> [UInt64] {
        var images = self.images
        var keys = self.keys
        RadixSort.sort(&images, carrying: &keys)
        return Array(keys.prefix(count))
    }
}
