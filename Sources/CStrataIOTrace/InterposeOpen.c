// The calls that give descriptors and names: open family, close, dup, rename, unlink. Each
// traced one holds the interposer's lock across the real call, so its record is in the order
// the calls took effect.
#include "IOTraceInternal.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int open_common(int dirfd, const char *path, int flags, mode_t mode) {
    iot_init();
    char relative[PATH_MAX];
    // O_TMPFILE makes a file with no name; only a later linkat could give it one (not traced).
    if ((flags & O_TMPFILE) == O_TMPFILE || !iot_enter()) return iot_real.openat(dirfd, path, flags, mode);
    if (iot_relative_path(dirfd, path, relative, sizeof relative) != 0) {
        iot_leave();
        return iot_real.openat(dirfd, path, flags, mode);
    }
    // A file seen for the first time is snapshotted before the call: O_TRUNC would empty it.
    uint32_t before = iot_file_for_path(relative);
    int fd = iot_real.openat(dirfd, path, flags, mode);
    int saved = errno;
    if (fd >= 0) {
        int created = !before && (flags & O_CREAT);
        uint32_t file = iot_file_for_fd(fd, relative, created);
        uint16_t marks = created ? IOTRACE_FLAG_CREATED : 0;
        if (iot_file_is_directory(file)) marks |= IOTRACE_FLAG_DIRECTORY;
        else if (before && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) marks |= IOTRACE_FLAG_TRUNCATED;
        iot_file_set_fd(fd, file, (uint8_t)(((flags & O_DSYNC) ? IOT_FD_SYNC : 0) | ((flags & O_APPEND) ? IOT_FD_APPEND : 0)));
        struct iovec data = {relative, strlen(relative)};
        iot_emit(IOTRACE_OPEN, marks, file, fd, 0, 0, (uint32_t)flags, 0, &data, 1);
        if (marks & IOTRACE_FLAG_TRUNCATED) iot_shadow_resize(file, 0);
    }
    iot_leave();
    errno = saved;
    return fd;
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

IOT_EXPORT int open(const char *path, int flags, ...) {
    va_list a; va_start(a, flags); mode_t mode = mode_argument(flags, a); va_end(a);
    return open_common(AT_FDCWD, path, flags, mode);
}
IOT_EXPORT int open64(const char *path, int flags, ...) {
    va_list a; va_start(a, flags); mode_t mode = mode_argument(flags, a); va_end(a);
    return open_common(AT_FDCWD, path, flags, mode);
}
IOT_EXPORT int openat(int dirfd, const char *path, int flags, ...) {
    va_list a; va_start(a, flags); mode_t mode = mode_argument(flags, a); va_end(a);
    return open_common(dirfd, path, flags, mode);
}
IOT_EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
    va_list a; va_start(a, flags); mode_t mode = mode_argument(flags, a); va_end(a);
    return open_common(dirfd, path, flags, mode);
}
// The _FORTIFY_SOURCE entry points (no mode: they are used only without O_CREAT).
IOT_EXPORT int __open_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0); }
IOT_EXPORT int __open64_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0); }
IOT_EXPORT int __openat_2(int dirfd, const char *path, int flags) { return open_common(dirfd, path, flags, 0); }
IOT_EXPORT int __openat64_2(int dirfd, const char *path, int flags) { return open_common(dirfd, path, flags, 0); }
IOT_EXPORT int creat(const char *path, mode_t mode) { return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
IOT_EXPORT int creat64(const char *path, mode_t mode) { return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

IOT_EXPORT int close(int fd) {
    iot_init();
    uint32_t file = iot_traced_fd(fd);
    if (!file || !iot_enter()) return iot_real.close(fd);
    iot_file_set_fd(fd, 0, 0);
    int result = iot_real.close(fd);
    int saved = errno;
    iot_emit(IOTRACE_CLOSE, 0, file, fd, 0, 0, 0, 0, NULL, 0);
    iot_leave();
    errno = saved;
    return result;
}

/// A duplicate of a traced descriptor is traced as the same file (and `to`, if it was traced,
/// was closed by the call).
static int duplicated(int from, int to) {
    if (to < 0 || to >= IOT_MAX_FDS || !iot_enter()) return to;
    uint32_t file = iot_traced_fd(from);
    iot_file_set_fd(to, file, file && from < IOT_MAX_FDS ? iot_fd_mode[from] : 0);
    iot_leave();
    return to;
}

IOT_EXPORT int dup(int fd) {
    iot_init();
    int result = iot_real.dup(fd);
    return iot_traced_fd(fd) && result >= 0 ? duplicated(fd, result) : result;
}
IOT_EXPORT int dup2(int fd, int to) {
    iot_init();
    int result = iot_real.dup2(fd, to);
    int saved = errno;
    if (result >= 0 && result != fd && (iot_traced_fd(fd) || iot_traced_fd(to))) duplicated(fd, result);
    errno = saved;
    return result;
}
IOT_EXPORT int dup3(int fd, int to, int flags) {
    iot_init();
    int result = iot_real.dup3(fd, to, flags);
    int saved = errno;
    if (result >= 0 && (iot_traced_fd(fd) || iot_traced_fd(to))) duplicated(fd, result);
    errno = saved;
    return result;
}

static int rename_common(int olddir, const char *old, int newdir, const char *new, unsigned int flags, int two) {
    iot_init();
    if (!iot_enter())
        return two ? iot_real.renameat2(olddir, old, newdir, new, flags) : iot_real.renameat(olddir, old, newdir, new);
    char from[PATH_MAX], to[PATH_MAX];
    int tracedFrom = iot_relative_path(olddir, old, from, sizeof from) == 0;
    int tracedTo = iot_relative_path(newdir, new, to, sizeof to) == 0;
    // Both names get ids before the call (a first sighting is snapshotted) so that a crash state
    // without this rename still has the file it replaced.
    uint32_t file = tracedFrom ? iot_file_for_path(from) : 0;
    uint32_t replaced = tracedTo ? iot_file_for_path(to) : 0;
    if (replaced == file) replaced = 0;
    int result = two ? iot_real.renameat2(olddir, old, newdir, new, flags) : iot_real.renameat(olddir, old, newdir, new);
    int saved = errno;
    if (result == 0 && tracedFrom && tracedTo) {
        if (flags & RENAME_EXCHANGE) {
            iot_files_renamed(from, "\x01");
            iot_files_renamed(to, from);
            iot_files_renamed("\x01", to);
        } else {
            if (replaced) iot_files_renamed(to, NULL);
            iot_files_renamed(from, to);
        }
        struct iovec data[2] = {{from, strlen(from) + 1}, {to, strlen(to)}};
        iot_emit(IOTRACE_RENAME, 0, file, 0, 0, 0, flags, replaced, data, 2);
    } else if (result == 0 && tracedFrom) {
        // Moved out of the root: for the trace, the name is gone.
        iot_files_renamed(from, NULL);
        struct iovec data = {from, strlen(from)};
        iot_emit(IOTRACE_UNLINK, 0, file, 0, 0, 0, 0, 0, &data, 1);
    } else if (result == 0 && tracedTo) {
        // Moved in: the file it replaced is gone, and the newcomer is snapshotted as it is.
        if (replaced) {
            iot_files_renamed(to, NULL);
            struct iovec data = {to, strlen(to)};
            iot_emit(IOTRACE_UNLINK, 0, replaced, 0, 0, 0, 0, 0, &data, 1);
        }
        iot_file_for_path(to);
    }
    iot_leave();
    errno = saved;
    return result;
}

IOT_EXPORT int rename(const char *old, const char *new) { return rename_common(AT_FDCWD, old, AT_FDCWD, new, 0, 0); }
IOT_EXPORT int renameat(int od, const char *old, int nd, const char *new) { return rename_common(od, old, nd, new, 0, 0); }
IOT_EXPORT int renameat2(int od, const char *old, int nd, const char *new, unsigned int flags) {
    return rename_common(od, old, nd, new, flags, 1);
}

IOT_EXPORT int unlinkat(int dirfd, const char *path, int flags) {
    iot_init();
    char relative[PATH_MAX];
    if (!iot_enter()) return iot_real.unlinkat(dirfd, path, flags);
    if (iot_relative_path(dirfd, path, relative, sizeof relative) != 0) {
        iot_leave();
        return iot_real.unlinkat(dirfd, path, flags);
    }
    uint32_t file = iot_file_for_path(relative);
    int result = iot_real.unlinkat(dirfd, path, flags);
    int saved = errno;
    if (result == 0 && file) {
        iot_files_renamed(relative, NULL);
        struct iovec data = {relative, strlen(relative)};
        iot_emit(IOTRACE_UNLINK, 0, file, 0, 0, 0, (uint32_t)flags, 0, &data, 1);
    }
    iot_leave();
    errno = saved;
    return result;
}
IOT_EXPORT int unlink(const char *path) { return unlinkat(AT_FDCWD, path, 0); }
IOT_EXPORT int rmdir(const char *path) { return unlinkat(AT_FDCWD, path, AT_REMOVEDIR); }
IOT_EXPORT int remove(const char *path) {
    int result = unlinkat(AT_FDCWD, path, 0);
    return result != 0 && errno == EISDIR ? unlinkat(AT_FDCWD, path, AT_REMOVEDIR) : result;
}
