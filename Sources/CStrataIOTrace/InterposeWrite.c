// The calls that change or flush a traced file's data, and the writer's acknowledgements. Each
// traced call holds the lock across the real call (records are in the order calls took effect),
// counts toward IOTRACE_FAIL_AT, and a failed or injected call is recorded FAILED with its errno.
#include "IOTraceInternal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>

/// Records `bytes` bytes of the pieces (a short write records only what was written).
static void record_write(uint32_t file, int fd, int64_t offset, const struct iovec *iov, int count, size_t bytes, int sync) {
    struct iovec stack[64];
    struct iovec *pieces = count <= 64 ? stack : malloc(sizeof(struct iovec) * (size_t)count);
    if (!pieces) return;
    int used = 0;
    for (size_t left = bytes; used < count && left > 0; used++) {
        pieces[used] = iov[used];
        if (pieces[used].iov_len > left) pieces[used].iov_len = left;
        left -= pieces[used].iov_len;
    }
    uint16_t flags = sync || (iot_fd_mode[fd] & IOT_FD_SYNC) ? IOTRACE_FLAG_SYNC : 0;
    iot_emit(IOTRACE_WRITE, flags, file, 0, offset, (int64_t)bytes, 0, 0, pieces, used);
    iot_shadow_write(file, offset, pieces, used, bytes);
    if (pieces != stack) free(pieces);
}

static void record_failure(uint16_t kind, int injected, int error, uint32_t file, int64_t offset, int64_t length, uint32_t aux) {
    uint16_t flags = IOTRACE_FLAG_FAILED | (injected ? IOTRACE_FLAG_INJECTED : 0);
    iot_emit(kind, flags, file, error, offset, length, aux, 0, NULL, 0);
}

static size_t total(const struct iovec *iov, int count) {
    size_t sum = 0;
    for (int i = 0; i < count; i++) sum += iov[i].iov_len;
    return sum;
}

/// The bytes on the acknowledgement descriptor: every mapped file is scanned first, so the
/// trace holds each store made before the writer acknowledged.
static ssize_t acknowledge(int fd, const void *buffer, size_t count) {
    if (!iot_enter()) return iot_real.write(fd, buffer, count);
    iot_scan(0);
    ssize_t result = iot_real.write(fd, buffer, count);
    int saved = errno;
    if (result > 0) {
        struct iovec data = {(void *)buffer, (size_t)result};
        iot_emit(IOTRACE_ACK, 0, 0, 0, 0, result, 0, 0, &data, 1);
    }
    iot_leave();
    errno = saved;
    return result;
}

/// write, writev, pwrite, pwritev, pwritev2: `offset` < 0 means the descriptor's position.
static ssize_t write_common(int fd, const struct iovec *iov, int count, off_t offset, int rwflags, int kind) {
    uint32_t file = iot_traced_fd(fd);
    if (file && iot_enter()) {
        int64_t at = offset >= 0 ? offset : lseek(fd, 0, SEEK_CUR);
        int injected = iot_should_fail(IOT_OP_WRITE);
        if (injected) {
            record_failure(IOTRACE_WRITE, 1, injected, file, at, (int64_t)total(iov, count), 0);
            iot_leave();
            errno = injected;
            return -1;
        }
        ssize_t result;
        switch (kind) {
        case 0: result = iot_real.write(fd, iov[0].iov_base, iov[0].iov_len); break;
        case 1: result = iot_real.pwrite(fd, iov[0].iov_base, iov[0].iov_len, offset); break;
        case 2: result = iot_real.writev(fd, iov, count); break;
        case 3: result = iot_real.pwritev(fd, iov, count, offset); break;
        default: result = iot_real.pwritev2(fd, iov, count, offset, rwflags); break;
        }
        int saved = errno;
        if (result >= 0) {
            // Where the bytes went: appends end at the file's end (Linux appends even a pwrite on
            // an O_APPEND descriptor); a plain write ends at the descriptor's new position.
            struct stat st;
            if ((iot_fd_mode[fd] & IOT_FD_APPEND) || (rwflags & RWF_APPEND)) {
                if (fstat(fd, &st) == 0) at = st.st_size - result;
            } else if (offset < 0) {
                at = lseek(fd, 0, SEEK_CUR) - result;
            }
            record_write(file, fd, at, iov, count, (size_t)result, (rwflags & (RWF_DSYNC | RWF_SYNC)) != 0);
        } else {
            record_failure(IOTRACE_WRITE, 0, saved, file, at, (int64_t)total(iov, count), 0);
        }
        iot_leave();
        errno = saved;
        return result;
    }
    switch (kind) {
    case 0: return iot_real.write(fd, iov[0].iov_base, iov[0].iov_len);
    case 1: return iot_real.pwrite(fd, iov[0].iov_base, iov[0].iov_len, offset);
    case 2: return iot_real.writev(fd, iov, count);
    case 3: return iot_real.pwritev(fd, iov, count, offset);
    default: return iot_real.pwritev2(fd, iov, count, offset, rwflags);
    }
}

IOT_EXPORT ssize_t write(int fd, const void *buffer, size_t count) {
    iot_init();
    if (iot_enabled && fd == iot_ack_fd) return acknowledge(fd, buffer, count);
    if (!iot_traced_fd(fd)) return iot_real.write(fd, buffer, count);
    struct iovec one = {(void *)buffer, count};
    return write_common(fd, &one, 1, -1, 0, 0);
}
IOT_EXPORT ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    iot_init();
    if (!iot_traced_fd(fd)) return iot_real.pwrite(fd, buffer, count, offset);
    struct iovec one = {(void *)buffer, count};
    return write_common(fd, &one, 1, offset, 0, 1);
}
IOT_EXPORT ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) { return pwrite(fd, buffer, count, offset); }
IOT_EXPORT ssize_t writev(int fd, const struct iovec *iov, int count) {
    iot_init();
    return write_common(fd, iov, count, -1, 0, 2);
}
IOT_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    iot_init();
    return write_common(fd, iov, count, offset, 0, 3);
}
IOT_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) { return pwritev(fd, iov, count, offset); }
IOT_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int count, off_t offset, int flags) {
    iot_init();
    // Offset -1 writes at the position, RWF_APPEND at the end: the recorded offset is read after.
    return write_common(fd, iov, count, offset, flags, 4);
}
IOT_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int count, off_t offset, int flags) {
    return pwritev2(fd, iov, count, offset, flags);
}

/// fsync, fdatasync, sync_file_range: the file's mapped stores are recorded first.
static int flush_common(int fd, int kind, off_t offset, off_t length, unsigned int flags) {
    iot_init();
    uint32_t file = iot_traced_fd(fd);
    if (!file || !iot_enter()) {
        if (kind == IOTRACE_FSYNC) return iot_real.fsync(fd);
        if (kind == IOTRACE_FDATASYNC) return iot_real.fdatasync(fd);
        return iot_real.sync_file_range(fd, offset, length, flags);
    }
    iot_scan(file);
    int injected = iot_should_fail(IOT_OP_FLUSH);
    if (injected) {
        record_failure((uint16_t)kind, 1, injected, file, offset, length, flags);
        iot_leave();
        errno = injected;
        return -1;
    }
    int result = kind == IOTRACE_FSYNC ? iot_real.fsync(fd)
        : kind == IOTRACE_FDATASYNC ? iot_real.fdatasync(fd) : iot_real.sync_file_range(fd, offset, length, flags);
    int saved = errno;
    if (result == 0) iot_emit((uint16_t)kind, 0, file, 0, offset, length, flags, 0, NULL, 0);
    else record_failure((uint16_t)kind, 0, saved, file, offset, length, flags);
    iot_leave();
    errno = saved;
    return result;
}

IOT_EXPORT int fsync(int fd) { return flush_common(fd, IOTRACE_FSYNC, 0, 0, 0); }
IOT_EXPORT int fdatasync(int fd) { return flush_common(fd, IOTRACE_FDATASYNC, 0, 0, 0); }
IOT_EXPORT int sync_file_range(int fd, off_t offset, off_t length, unsigned int flags) {
    return flush_common(fd, IOTRACE_SYNC_FILE_RANGE, offset, length, flags);
}

/// ftruncate, fallocate, posix_fallocate (`posix` returns the errno instead of setting it).
static int size_common(int fd, int kind, int mode, off_t offset, off_t length, int posix) {
    iot_init();
    uint32_t file = iot_traced_fd(fd);
    if (!file || !iot_enter()) {
        if (kind == IOTRACE_TRUNCATE) return iot_real.ftruncate(fd, length);
        return posix ? iot_real.posix_fallocate(fd, offset, length) : iot_real.fallocate(fd, mode, offset, length);
    }
    int injected = iot_should_fail(IOT_OP_WRITE);
    if (injected) {
        record_failure((uint16_t)kind, 1, injected, file, offset, length, (uint32_t)mode);
        iot_leave();
        if (posix) return injected;
        errno = injected;
        return -1;
    }
    int result, error;
    if (kind == IOTRACE_TRUNCATE) {
        result = iot_real.ftruncate(fd, length);
        error = result == 0 ? 0 : errno;
    } else if (posix) {
        result = iot_real.posix_fallocate(fd, offset, length);
        error = result;
    } else {
        result = iot_real.fallocate(fd, mode, offset, length);
        error = result == 0 ? 0 : errno;
    }
    int saved = errno;
    if (error) {
        record_failure((uint16_t)kind, 0, error, file, offset, length, (uint32_t)mode);
    } else {
        iot_emit((uint16_t)kind, 0, file, 0, offset, length, (uint32_t)mode, 0, NULL, 0);
        if (kind == IOTRACE_TRUNCATE) {
            iot_shadow_resize(file, length);
        } else {
            if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) iot_shadow_zero(file, offset, length);
            struct stat st;
            if (!(mode & FALLOC_FL_KEEP_SIZE) && fstat(fd, &st) == 0) iot_shadow_resize(file, st.st_size);
        }
    }
    iot_leave();
    errno = saved;
    return result;
}

IOT_EXPORT int ftruncate(int fd, off_t length) { return size_common(fd, IOTRACE_TRUNCATE, 0, 0, length, 0); }
IOT_EXPORT int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }
IOT_EXPORT int fallocate(int fd, int mode, off_t offset, off_t length) { return size_common(fd, IOTRACE_FALLOCATE, mode, offset, length, 0); }
IOT_EXPORT int fallocate64(int fd, int mode, off_t offset, off_t length) { return fallocate(fd, mode, offset, length); }
IOT_EXPORT int posix_fallocate(int fd, off_t offset, off_t length) { return size_common(fd, IOTRACE_FALLOCATE, 0, offset, length, 1); }
IOT_EXPORT int posix_fallocate64(int fd, off_t offset, off_t length) { return posix_fallocate(fd, offset, length); }
