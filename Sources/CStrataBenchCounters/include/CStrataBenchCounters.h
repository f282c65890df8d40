// Counters strata-bench needs from C:
// - hardware instructions (Linux perf_event_open): no glibc wrapper, and Swift cannot call the
//   variadic syscall(2). Machines without a PMU (most VMs) refuse the counter: the caller gets -1
//   and reports an empty cell, never a made-up figure;
// - SQLite's flushes: a VFS that wraps SQLite's default one and counts the xSync calls of every
//   file it opens (the WAL's and the database's fsyncs), registered as the default.
#ifndef CStrataBenchCounters_h
#define CStrataBenchCounters_h

#include <stdint.h>

/// Opens a counter of user-space instructions retired by the calling thread and the threads it
/// creates from now on (inherit). Returns a file descriptor, or -1 with errno set when the
/// machine or the kernel's perf_event_paranoid setting refuses it.
int strata_bench_instructions_open(void);

/// Reads the counter (instructions since open). Returns 0 on success, -1 with errno set.
/// A counter the kernel multiplexed (ran part of the time) is scaled to the full time.
int strata_bench_instructions_read(int fd, uint64_t *count);

/// Registers (once per process) the counting VFS as SQLite's default; later opens go through it.
/// Returns SQLITE_OK (0) or SQLite's error code.
int strata_bench_sqlite_count_syncs(void);

/// xSync calls of files opened through the counting VFS, since it was registered.
long long strata_bench_sqlite_syncs(void);

#endif
