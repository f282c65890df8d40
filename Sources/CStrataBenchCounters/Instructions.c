#include "CStrataBenchCounters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int strata_bench_instructions_open(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    // User space only: the engines' own work, not the kernel's page-cache and flush paths
    // (those are counted as system calls and flushes).
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.inherit = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &attr, 0 /* this process */, -1 /* any CPU */, -1, 0);
    return fd < 0 ? -1 : (int)fd;
}

int strata_bench_instructions_read(int fd, uint64_t *count) {
    uint64_t values[3];
    ssize_t n = read(fd, values, sizeof values);
    if (n != (ssize_t)sizeof values) {
        if (n >= 0) errno = EIO;
        return -1;
    }
    if (values[2] == 0) {
        // Never scheduled on the PMU: no figure.
        errno = ENODATA;
        return -1;
    }
    *count = values[2] < values[1] ? (uint64_t)((double)values[0] * (double)values[1] / (double)values[2]) : values[0];
    return 0;
}
