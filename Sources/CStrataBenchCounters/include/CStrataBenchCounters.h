// Hardware instruction counting for strata-bench (Linux perf_event_open).
//
// perf_event_open has no glibc wrapper and Swift cannot call the variadic syscall(2), hence C.
// Machines without a PMU (most VMs) refuse the counter: the caller gets -1 and reports an empty
// cell, never a made-up figure.
#ifndef C_STRATA_BENCH_COUNTERS_H
#define C_STRATA_BENCH_COUNTERS_H

#include <stdint.h>

/// Opens a counter of user-space instructions retired by the calling thread and the threads it
/// creates from now on (inherit). Returns a file descriptor, or -1 with errno set when the
/// machine or the kernel's perf_event_paranoid setting refuses it.
int strata_bench_instructions_open(void);

/// Reads the counter (instructions since open). Returns 0 on success, -1 with errno set.
/// A counter the kernel multiplexed (ran part of the time) is scaled to the full time.
int strata_bench_instructions_read(int fd, uint64_t *count);

#endif
