// libStrataIOTrace.so: an LD_PRELOAD interposer that records a process's file operations under
// one directory, with their data, for strata-bench's power-loss stress (the crash states are
// built from the trace by StrataBench's Stress/Trace code, as ALICE and LazyFS do). SIGKILL
// cannot show a missing or misordered flush — the page cache survives the process — so the
// trace keeps what was flushed when, and the harness decides what a power cut could have kept.
//
// Environment (the interposer's own variables; with IOTRACE_LOG or IOTRACE_ROOT unset it does
// nothing but call through):
//   IOTRACE_LOG=<file>    where records go (O_APPEND|O_CLOEXEC; format in include/CStrataIOTrace.h).
//                         A mutex orders records from threads; each is one writev(2).
//   IOTRACE_ROOT=<dir>    only paths under it are traced (relative paths against the cwd; a
//                         directory opened under it is traced too, so its fsync is recorded).
//   IOTRACE_ACK_FD=<n>    bytes written with write(2) to descriptor n (the writer's acknowledgement
//                         pipe) are also recorded as an `ack` record, in order with the file
//                         operations (after a scan of every mapped file).
//   IOTRACE_FAIL_AT=<N>   the N-th (1-based) matching traced operation is not performed: it returns
//                         -1 with IOTRACE_FAIL_ERRNO and is recorded failed (flags FAILED|INJECTED).
//                         posix_fallocate returns the errno, as it does.
//   IOTRACE_FAIL_OPS=write|flush|any   which operations count (default any): write = write,
//                         pwrite, writev, pwritev(2), ftruncate, fallocate, posix_fallocate;
//                         flush = fsync, fdatasync, msync, sync_file_range; any = both.
//   IOTRACE_FAIL_ERRNO=EIO|ENOSPC|<number>   default EIO.
//   IOTRACE_FAIL_STICKY=1 every later matching operation fails too (default: only the N-th, as a
//                         disk may recover after a transient error).
//
// Writes through writable MAP_SHARED mappings are not system calls; a shadow copy of each mapped
// file is compared with the file (pread sees the page cache) before each flush of that file,
// before each ack, before munmap and at exit, and every changed 4 KiB block becomes a `write`
// record flagged MAPPED. Mapped writes are thus unflushed until that file's next flush.
//
// A trace is one process's: a forked child stops tracing, and a process started with the same
// environment finds the log begun by another pid and does not trace (give each writer a new log).
//
// Limits: descriptors ≥ 65536, fcntl(F_DUPFD), mremap, mprotect to writable, truncate(2) by path,
// mkdir and io_uring are not traced. Files that exist under the root when first touched are
// recorded as snapshots (durable as found). The environment is only read, never changed.
#include "IOTraceInternal.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

struct iot_real iot_real;
int iot_enabled;
uint32_t iot_fd_file[IOT_MAX_FDS];
uint8_t iot_fd_mode[IOT_MAX_FDS];
int iot_ack_fd = -1;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int inside;
static int log_fd = -1;
static uint64_t sequence;
static long fail_at;
static int fail_ops = IOT_OP_WRITE | IOT_OP_FLUSH;
static int fail_errno = EIO;
static int fail_sticky;
static long fail_count;

#define RESOLVE(name) iot_real.name = (__typeof__(iot_real.name))dlsym(RTLD_NEXT, #name)

static void resolve(void) {
    RESOLVE(open); RESOLVE(openat); RESOLVE(close); RESOLVE(dup); RESOLVE(dup2); RESOLVE(dup3);
    RESOLVE(write); RESOLVE(pwrite); RESOLVE(writev); RESOLVE(pwritev); RESOLVE(pwritev2);
    RESOLVE(fsync); RESOLVE(fdatasync); RESOLVE(sync_file_range); RESOLVE(msync);
    RESOLVE(ftruncate); RESOLVE(fallocate); RESOLVE(posix_fallocate);
    RESOLVE(renameat2); RESOLVE(renameat); RESOLVE(unlinkat); RESOLVE(mmap); RESOLVE(munmap);
}

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void) {
    // The child must not interleave its operations with the parent's in the parent's trace.
    iot_enabled = 0;
    pthread_mutex_unlock(&lock);
}

extern int iot_set_root(const char *root);

static void write_all(int fd, const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        ssize_t n = iot_real.write(fd, p, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        p += n; count -= (size_t)n;
    }
}

extern const char *iot_root;
extern size_t iot_root_length;

static void setup(void) {
    resolve();
    const char *log = getenv("IOTRACE_LOG");
    const char *root = getenv("IOTRACE_ROOT");
    if (!log || !*log || !root || !*root || !iot_real.open || !iot_real.write || !iot_real.writev) return;
    if (iot_set_root(root) != 0) return;
    const char *ack = getenv("IOTRACE_ACK_FD");
    if (ack && *ack) iot_ack_fd = atoi(ack);
    const char *at = getenv("IOTRACE_FAIL_AT");
    if (at && *at) fail_at = atol(at);
    const char *ops = getenv("IOTRACE_FAIL_OPS");
    if (ops && strcmp(ops, "write") == 0) fail_ops = IOT_OP_WRITE;
    else if (ops && strcmp(ops, "flush") == 0) fail_ops = IOT_OP_FLUSH;
    const char *code = getenv("IOTRACE_FAIL_ERRNO");
    if (code && strcmp(code, "ENOSPC") == 0) fail_errno = ENOSPC;
    else if (code && strcmp(code, "EIO") == 0) fail_errno = EIO;
    else if (code && *code) fail_errno = atoi(code) > 0 ? atoi(code) : EIO;
    const char *sticky = getenv("IOTRACE_FAIL_STICKY");
    fail_sticky = sticky && strcmp(sticky, "1") == 0;

    int saved = errno;
    log_fd = iot_real.open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0) { errno = saved; return; }
    struct stat st;
    if (fstat(log_fd, &st) == 0 && st.st_size >= IOTRACE_FILE_HEADER_SIZE) {
        // A trace belongs to one process: a child the traced process starts inherits the
        // environment, finds the log already begun by another pid, and stays out of it.
        uint32_t owner = 0;
        if (pread(log_fd, &owner, 4, 16) != 4 || owner != (uint32_t)getpid()) {
            iot_real.close(log_fd);
            log_fd = -1;
            errno = saved;
            return;
        }
    } else if (st.st_size == 0) {
        unsigned char header[IOTRACE_FILE_HEADER_SIZE + PATH_MAX];
        uint32_t version = IOTRACE_VERSION, length = (uint32_t)iot_root_length;
        uint32_t size = IOTRACE_FILE_HEADER_SIZE + length, pid = (uint32_t)getpid();
        memcpy(header, IOTRACE_MAGIC, 8);
        memcpy(header + 8, &version, 4);
        memcpy(header + 12, &size, 4);
        memcpy(header + 16, &pid, 4);
        memcpy(header + 20, &length, 4);
        memcpy(header + IOTRACE_FILE_HEADER_SIZE, iot_root, length);
        write_all(log_fd, header, size);
    }
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    errno = saved;
    iot_enabled = 1;
}

void iot_init(void) { pthread_once(&once, setup); }

__attribute__((constructor)) static void iot_constructor(void) { iot_init(); }

__attribute__((destructor)) static void iot_destructor(void) {
    if (!iot_enter()) return;
    iot_scan(0);
    iot_emit(IOTRACE_EXIT, 0, 0, 0, 0, 0, 0, 0, NULL, 0);
    iot_leave();
}

int iot_enter(void) {
    if (!iot_enabled || inside) return 0;
    inside = 1;
    pthread_mutex_lock(&lock);
    return 1;
}

void iot_leave(void) {
    pthread_mutex_unlock(&lock);
    inside = 0;
}

int iot_should_fail(int op) {
    if (fail_at <= 0 || !(fail_ops & op)) return 0;
    fail_count += 1;
    if (fail_count == fail_at || (fail_sticky && fail_count > fail_at)) return fail_errno;
    return 0;
}

static uint32_t fnv(uint32_t hash, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < count; i++) { hash ^= p[i]; hash *= 16777619u; }
    return hash;
}

void iot_emit(uint16_t kind, uint16_t flags, uint32_t file, int32_t result, int64_t offset, int64_t length,
              uint32_t aux, uint32_t file2, const struct iovec *data, int count) {
    if (log_fd < 0) return;
    struct iotrace_record_header h;
    memset(&h, 0, sizeof h);
    size_t bytes = 0;
    for (int i = 0; i < count; i++) bytes += data[i].iov_len;
    h.size = (uint32_t)(IOTRACE_RECORD_HEADER_SIZE + bytes);
    h.kind = kind; h.flags = flags; h.tid = (uint32_t)syscall(SYS_gettid);
    h.seq = ++sequence; h.file = file; h.result = result;
    h.offset = offset; h.length = length; h.aux = aux; h.file2 = file2;
    uint32_t sum = fnv(2166136261u, &h, sizeof h);
    for (int i = 0; i < count; i++) sum = fnv(sum, data[i].iov_base, data[i].iov_len);
    h.checksum = sum;

    int saved = errno;
    // One writev: with O_APPEND a record lands whole or (killed in flight) as the tail only.
    struct iovec stack[64];
    struct iovec *iov = stack;
    if (count + 1 > 64) iov = malloc(sizeof(struct iovec) * (size_t)(count + 1));
    if (iov && count + 1 <= IOV_MAX) {
        iov[0].iov_base = &h; iov[0].iov_len = sizeof h;
        for (int i = 0; i < count; i++) iov[i + 1] = data[i];
        ssize_t n = iot_real.writev(log_fd, iov, count + 1);
        if (n >= 0 && (size_t)n < h.size) {
            // A short append (a full disk): finish it piece by piece, the record is torn anyway.
            size_t done = (size_t)n;
            for (int i = 0; i <= count; i++) {
                if (done >= iov[i].iov_len) { done -= iov[i].iov_len; continue; }
                write_all(log_fd, (char *)iov[i].iov_base + done, iov[i].iov_len - done);
                done = 0;
            }
        }
    } else {
        // More pieces than one writev takes: gather them into one buffer, still one write.
        unsigned char *buffer = malloc(h.size);
        if (buffer) {
            memcpy(buffer, &h, sizeof h);
            size_t at = sizeof h;
            for (int i = 0; i < count; i++) { memcpy(buffer + at, data[i].iov_base, data[i].iov_len); at += data[i].iov_len; }
            write_all(log_fd, buffer, h.size);
            free(buffer);
        }
    }
    if (iov != stack) free(iov);
    errno = saved;
}
