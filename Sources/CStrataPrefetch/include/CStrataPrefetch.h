// A hint to the CPU to start loading memory that a scan will read shortly. Swift has no
// prefetch of its own; the compiler builtin turns into one instruction per cache line (or none
// on a CPU without one), and never faults, so any address may be passed.
#ifndef CSTRATAPREFETCH_H
#define CSTRATAPREFETCH_H

#include <stddef.h>

/// Asks for the `bytes` bytes at `start` to be brought into the caches, a line at a time.
static inline void strata_prefetch(const void *start, size_t bytes) {
    const char *p = (const char *)start;
    for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(p + offset, 0, 3);
}

#endif
