// Shared state of the interposer's files (IOTrace.c has the environment contract). Private to
// the target: the public header (include/CStrataIOTrace.h) is only the trace format.
#ifndef CSTRATA_IOTRACE_INTERNAL_H
#define CSTRATA_IOTRACE_INTERNAL_H

#define _GNU_SOURCE 1
#undef _FORTIFY_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include "include/CStrataIOTrace.h"

#define IOT_EXPORT __attribute__((visibility("default")))
/// Descriptors at or above this are never traced (the table is a flat array, lock-free to read).
#define IOT_MAX_FDS 65536
#define IOT_BLOCK 4096

/// The C library's own functions, found with dlsym(RTLD_NEXT): the interposer calls only these
/// for its own work, so it never records (or deadlocks on) itself.
struct iot_real {
    int (*open)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*close)(int);
    int (*dup)(int);
    int (*dup2)(int, int);
    int (*dup3)(int, int, int);
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*writev)(int, const struct iovec *, int);
    ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
    ssize_t (*pwritev2)(int, const struct iovec *, int, off_t, int);
    int (*fsync)(int);
    int (*fdatasync)(int);
    int (*sync_file_range)(int, off_t, off_t, unsigned int);
    int (*msync)(void *, size_t, int);
    int (*ftruncate)(int, off_t);
    int (*fallocate)(int, int, off_t, off_t);
    int (*posix_fallocate)(int, off_t, off_t);
    int (*renameat2)(int, const char *, int, const char *, unsigned int);
    int (*renameat)(int, const char *, int, const char *);
    int (*unlinkat)(int, const char *, int);
    void *(*mmap)(void *, size_t, int, int, int, off_t);
    int (*munmap)(void *, size_t);
};

extern struct iot_real iot_real;
/// True once the environment asked for tracing (IOTRACE_LOG and IOTRACE_ROOT) and the log opened.
extern int iot_enabled;
/// Descriptor → file id (0 = not traced). Written under the lock, read without it.
extern uint32_t iot_fd_file[IOT_MAX_FDS];
/// Descriptor → how it was opened: IOT_FD_SYNC (O_SYNC/O_DSYNC: its writes are durable when
/// done), IOT_FD_APPEND (O_APPEND: every write lands at the end, whatever the offset).
extern uint8_t iot_fd_mode[IOT_MAX_FDS];
enum { IOT_FD_SYNC = 1, IOT_FD_APPEND = 2 };
extern int iot_ack_fd;

enum { IOT_OP_WRITE = 1, IOT_OP_FLUSH = 2 };

/// Resolves the real functions and reads the environment, once.
void iot_init(void);
/// Enters the interposer's critical section; returns 0 when this thread is already inside it
/// (a signal handler or a nested call): the caller must then just call the real function.
int iot_enter(void);
void iot_leave(void);
/// The errno to inject for this traced operation of category `op`, or 0 (counts it).
int iot_should_fail(int op);
/// Appends one record (header fields plus `count` data pieces) with one writev(2). Under the lock.
void iot_emit(uint16_t kind, uint16_t flags, uint32_t file, int32_t result, int64_t offset, int64_t length,
              uint32_t aux, uint32_t file2, const struct iovec *data, int count);
static inline uint32_t iot_traced_fd(int fd) {
    if (!iot_enabled || fd < 0 || fd >= IOT_MAX_FDS) return 0;
    return __atomic_load_n(&iot_fd_file[fd], __ATOMIC_ACQUIRE);
}

// Files.c: paths and file ids.
/// One file under the root (a device and inode), for the whole trace.
struct iot_file {
    dev_t dev;
    ino_t ino;
    char *path;        // relative to the root
    int directory;
    int gone;          // unlinked or replaced: its inode number may be reused by a new file
    // Mappings.c: the shadow copy of a file with writable shared mappings.
    int maps;          // how many such mappings are alive
    int scan_fd;       // our own read descriptor for the scans (-1 when not mapped)
    unsigned char *shadow;
    size_t shadow_size, shadow_capacity;
};
struct iot_file *iot_file(uint32_t id);
uint32_t iot_file_count(void);
/// The path of `path` (relative to `dirfd`) relative to the root in `out`, or -1 when it is not
/// under the root. Lexical: "." and ".." are folded, symbolic links are not followed.
int iot_relative_path(int dirfd, const char *path, char *out, size_t size);
/// The absolute path of a root-relative path.
void iot_absolute_path(const char *relative, char *out, size_t size);
/// The id of the file at `relative` when it exists, snapshotting it (content recorded) the first
/// time it is seen; 0 when it does not exist. Under the lock.
uint32_t iot_file_for_path(const char *relative);
/// The id of the open descriptor's file (new id when the file is new; `created` says whether the
/// traced call created it, else a first sighting is snapshotted first). Under the lock.
uint32_t iot_file_for_fd(int fd, const char *relative, int created);
void iot_file_set_fd(int fd, uint32_t file, uint8_t mode);
const char *iot_file_path(uint32_t file);
int iot_file_is_directory(uint32_t file);
/// A rename or unlink under the root changed names: paths under `from` move to `to` (NULL: gone).
void iot_files_renamed(const char *from, const char *to);

// Mappings.c: shared writable mappings and their shadow copies.
/// Explicit changes keep a mapped file's shadow equal to what the trace has recorded.
void iot_shadow_write(uint32_t file, int64_t offset, const struct iovec *data, int count, size_t length);
void iot_shadow_resize(uint32_t file, int64_t size);
void iot_shadow_zero(uint32_t file, int64_t offset, int64_t length);
/// Records the blocks of `file` (0: every mapped file) changed through mappings since the last scan.
void iot_scan(uint32_t file);

#endif
