// The loop that sums, extremes and filtered counts over a class spend their time in: one 8-byte
// field of every row of a slotted keyed leaf (StrataStorage's KeyedTreeField.swift calls it and
// says what the leaf holds). It lives in C for one reason: its speed. Written in Swift, the same
// loop ran up to a fifth slower or faster between builds that differed only in where the linker
// placed it (the loop's branches against the CPU's 32- and 64-byte fetch blocks), and Swift has
// no way to align a function. Here the function starts on a 64-byte boundary, so the loop's
// layout is this file's alone.
#ifndef CSTRATALEAFSCAN_H
#define CSTRATALEAFSCAN_H

#include <stdint.h>

/// Where things are in the leaf page (offsets from its payload's start; TreeLayout owns them).
typedef struct {
    /// Where the slot array starts: slot i, a 2-byte little-endian cell offset, is at
    /// `slots + 2 * i`.
    int64_t slots;
    /// The lowest offset a cell may start at (the end of the slot array).
    int64_t cellStart;
    /// The highest offset a cell may start at and still hold its key and value header.
    int64_t lastCell;
    /// Where a cell's value bytes start: after its 8-byte key and 4-byte value header.
    int64_t valueAt;
    /// The field's offset in the value (not negative).
    int64_t fieldOffset;
} strata_wide_leaf;

/// Reads the field of cells `from ..< to` into `values[*count...]` (and their keys into
/// `keys[*count...]` when `keys` is not null), while each cell lies between `cellStart` and
/// `lastCell` and its value, by its header, ends inside the page (`valueAt + lastCell` bytes);
/// a value shorter than the field reads as 0. Returns the first cell it did not take (`to` when
/// it took them all) and leaves the new count in `*count`. Reads nothing outside
/// `base[0 ..< valueAt + lastCell]`.
///
/// `next`, when not null, is the leaf the scan reads after this one (its `valueAt + lastCell`
/// bytes): cell `i`'s step asks the CPU for the `i`-th cache line of it, and a loop that ends
/// at `to` asks for the lines it did not reach. Asked for one a row, the next leaf arrives while
/// this one is read. 64 requests at once, before the loop, filled the core's queue of
/// outstanding misses and held the loop's own loads behind them: at 1M objects a sum took 1.4
/// times as long, a filtered count 1.5 times. A prefetch never faults and changes no result.
int64_t strata_gather_wide(const uint8_t *base, int64_t from, int64_t to, strata_wide_leaf leaf,
                           uint64_t *keys, uint64_t *values, int64_t *count, const uint8_t *next);

#endif
