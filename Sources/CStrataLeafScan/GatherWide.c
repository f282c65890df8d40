// strata_gather_wide (CStrataLeafScan.h says why it is in C and what it reads).

#include "CStrataLeafScan.h"

#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define STRATA_LE16(x) __builtin_bswap16(x)
#define STRATA_LE32(x) __builtin_bswap32(x)
#define STRATA_LE64(x) __builtin_bswap64(x)
#else
#define STRATA_LE16(x) (x)
#define STRATA_LE32(x) (x)
#define STRATA_LE64(x) (x)
#endif

static inline uint16_t load16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return STRATA_LE16(v); }
static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return STRATA_LE32(v); }
static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return STRATA_LE64(v); }

__attribute__((aligned(64)))
int64_t strata_gather_wide(const uint8_t *base, int64_t from, int64_t to, strata_wide_leaf leaf,
                           uint64_t *keys, uint64_t *values, int64_t *count, const uint8_t *next) {
    const int64_t fieldEnd = leaf.fieldOffset + 8;
    const int64_t fieldAt = leaf.valueAt + leaf.fieldOffset;
    // The next leaf's cache lines, from the one holding its first byte to the one holding its
    // last: cell `i`'s step asks for line `i`.
    const uintptr_t firstLine = (uintptr_t)next & ~(uintptr_t)63;
    const int64_t lines = next ? (int64_t)((((uintptr_t)next + (uintptr_t)(leaf.valueAt + leaf.lastCell) - 1) >> 6) - (firstLine >> 6) + 1) : 0;
    int64_t n = *count;
    for (int64_t i = from; i < to; i++) {
        if (i < lines) __builtin_prefetch((const void *)(firstLine + 64 * (uintptr_t)i), 0, 3);
        const int64_t cell = load16(base + leaf.slots + 2 * i);
        if (cell < leaf.cellStart || cell > leaf.lastCell) { *count = n; return i; }
        // The header is the value's length, or has the overflow flag (bit 31): then it runs past
        // the page too.
        const int64_t length = load32(base + cell + 8);
        if (length > leaf.lastCell - cell) { *count = n; return i; }
        if (keys) keys[n] = load64(base + cell);
        values[n] = length >= fieldEnd ? load64(base + cell + fieldAt) : 0;
        n++;
    }
    for (int64_t i = to; i < lines; i++) __builtin_prefetch((const void *)(firstLine + 64 * (uintptr_t)i), 0, 3);
    *count = n;
    return to;
}
