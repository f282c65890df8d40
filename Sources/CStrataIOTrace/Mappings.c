// Writable shared mappings of traced files, and the shadow copies that turn stores through them
// into `write` records. Strata commits pages through a MAP_SHARED window and SQLite maps its -shm
// file; a store is no system call, so each mapped file keeps a copy of what the trace already
// holds, and a scan (pread through our own descriptor sees the page cache) records every 4 KiB
// block that differs. Scans run before a flush of that file, before an ack, before munmap and at
// exit: a mapped write is therefore unflushed until the next flush of its file, as on a disk.
#include "IOTraceInternal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mapping {
    char *address;
    size_t length;
    uint32_t file;
    off_t offset;
};

static struct mapping *mappings;
static size_t mapping_count, mapping_capacity;
/// Scan buffer: large reads cost one system call per MiB, not per block. Used under the lock.
static unsigned char chunk[1 << 20];

static int reserve_shadow(struct iot_file *f, size_t size) {
    if (size <= f->shadow_capacity) return 0;
    size_t capacity = f->shadow_capacity ? f->shadow_capacity : IOT_BLOCK;
    while (capacity < size) capacity *= 2;
    unsigned char *grown = realloc(f->shadow, capacity);
    if (!grown) return -1;
    f->shadow = grown;
    f->shadow_capacity = capacity;
    return 0;
}

void iot_shadow_resize(uint32_t file, int64_t size) {
    struct iot_file *f = iot_file(file);
    if (!f || f->maps == 0 || size < 0 || reserve_shadow(f, (size_t)size) != 0) return;
    if ((size_t)size > f->shadow_size) memset(f->shadow + f->shadow_size, 0, (size_t)size - f->shadow_size);
    f->shadow_size = (size_t)size;
}

void iot_shadow_write(uint32_t file, int64_t offset, const struct iovec *data, int count, size_t length) {
    struct iot_file *f = iot_file(file);
    if (!f || f->maps == 0 || offset < 0) return;
    if ((size_t)offset + length > f->shadow_size) iot_shadow_resize(file, offset + (int64_t)length);
    if ((size_t)offset + length > f->shadow_size) return;
    size_t at = (size_t)offset;
    for (int i = 0; i < count && length > 0; i++) {
        size_t n = data[i].iov_len < length ? data[i].iov_len : length;
        memcpy(f->shadow + at, data[i].iov_base, n);
        at += n; length -= n;
    }
}

void iot_shadow_zero(uint32_t file, int64_t offset, int64_t length) {
    struct iot_file *f = iot_file(file);
    if (!f || f->maps == 0 || offset < 0 || length <= 0 || (size_t)offset >= f->shadow_size) return;
    size_t end = (size_t)(offset + length) < f->shadow_size ? (size_t)(offset + length) : f->shadow_size;
    memset(f->shadow + offset, 0, end - (size_t)offset);
}

static void scan_file(uint32_t id) {
    struct iot_file *f = iot_file(id);
    struct stat st;
    if (!f || f->maps == 0 || f->scan_fd < 0 || fstat(f->scan_fd, &st) != 0) return;
    size_t size = (size_t)st.st_size;
    for (size_t base = 0; base < size; base += sizeof chunk) {
        size_t want = size - base < sizeof chunk ? size - base : sizeof chunk, got = 0;
        while (got < want) {
            ssize_t n = pread(f->scan_fd, chunk + got, want - got, (off_t)(base + got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        for (size_t block = 0; block < got; block += IOT_BLOCK) {
            size_t at = base + block, n = got - block < IOT_BLOCK ? got - block : IOT_BLOCK;
            if (at + n <= f->shadow_size && memcmp(f->shadow + at, chunk + block, n) == 0) continue;
            struct iovec data = {chunk + block, n};
            iot_emit(IOTRACE_WRITE, IOTRACE_FLAG_MAPPED, id, 0, (int64_t)at, (int64_t)n, 0, 0, &data, 1);
            iot_shadow_write(id, (int64_t)at, &data, 1, n);
        }
    }
    if (size < f->shadow_size) f->shadow_size = size;
}

void iot_scan(uint32_t file) {
    if (file) { scan_file(file); return; }
    for (uint32_t id = 1; id < iot_file_count(); id++) scan_file(id);
}

static void load_shadow(struct iot_file *f) {
    struct stat st;
    f->shadow_size = 0;
    if (fstat(f->scan_fd, &st) != 0 || reserve_shadow(f, (size_t)st.st_size) != 0) return;
    while (f->shadow_size < (size_t)st.st_size) {
        ssize_t n = pread(f->scan_fd, f->shadow + f->shadow_size, (size_t)st.st_size - f->shadow_size, (off_t)f->shadow_size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        f->shadow_size += (size_t)n;
    }
}

IOT_EXPORT void *mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset) {
    iot_init();
    void *p = iot_real.mmap(address, length, prot, flags, fd, offset);
    uint32_t file = iot_traced_fd(fd);
    int shared = (flags & MAP_TYPE) == MAP_SHARED || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE;
    if (p == MAP_FAILED || !file || !(prot & PROT_WRITE) || !shared || !iot_enter()) return p;
    int saved = errno;
    struct iot_file *f = iot_file(file);
    if (mapping_count == mapping_capacity) {
        size_t capacity = mapping_capacity ? mapping_capacity * 2 : 16;
        struct mapping *grown = realloc(mappings, sizeof *mappings * capacity);
        if (grown) { mappings = grown; mapping_capacity = capacity; }
    }
    if (f && mapping_count < mapping_capacity) {
        if (f->scan_fd < 0) {
            f->scan_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
            load_shadow(f);
        }
        f->maps += 1;
        struct mapping m = {p, length, file, offset};
        mappings[mapping_count] = m;
        __atomic_store_n(&mapping_count, mapping_count + 1, __ATOMIC_RELEASE);
        iot_emit(IOTRACE_MMAP, 0, file, 0, offset, (int64_t)length, (uint32_t)prot, 0, NULL, 0);
    }
    errno = saved;
    iot_leave();
    return p;
}
IOT_EXPORT void *mmap64(void *a, size_t l, int p, int f, int fd, off_t o) { return mmap(a, l, p, f, fd, o); }

static int overlaps(const struct mapping *m, const char *address, size_t length) {
    return address < m->address + m->length && m->address < address + length;
}

IOT_EXPORT int munmap(void *address, size_t length) {
    iot_init();
    if (__atomic_load_n(&mapping_count, __ATOMIC_ACQUIRE) == 0 || !iot_enter()) return iot_real.munmap(address, length);
    char *a = address;
    for (size_t i = 0; i < mapping_count; i++)
        if (overlaps(&mappings[i], a, length)) scan_file(mappings[i].file);
    int result = iot_real.munmap(address, length);
    int saved = errno;
    for (size_t i = 0; result == 0 && i < mapping_count;) {
        struct mapping *m = &mappings[i];
        if (!overlaps(m, a, length)) { i++; continue; }
        char *start = a > m->address ? a : m->address;
        char *end = a + length < m->address + m->length ? a + length : m->address + m->length;
        iot_emit(IOTRACE_MUNMAP, 0, m->file, 0, m->offset + (start - m->address), end - start, 0, 0, NULL, 0);
        if (start == m->address && end == m->address + m->length) {
            struct iot_file *f = iot_file(m->file);
            if (f && --f->maps == 0) {
                iot_real.close(f->scan_fd);
                f->scan_fd = -1;
                free(f->shadow);
                f->shadow = NULL;
                f->shadow_size = f->shadow_capacity = 0;
            }
            mappings[i] = mappings[mapping_count - 1];
            __atomic_store_n(&mapping_count, mapping_count - 1, __ATOMIC_RELEASE);
            continue;
        }
        // A partial unmap: keep the part before or after it (a hole in the middle keeps the
        // whole range, which only makes later scans look at a little more).
        if (start == m->address) {
            m->offset += end - m->address;
            m->length -= (size_t)(end - m->address);
            m->address = end;
        } else if (end == m->address + m->length) {
            m->length = (size_t)(start - m->address);
        }
        i++;
    }
    errno = saved;
    iot_leave();
    return result;
}

IOT_EXPORT int msync(void *address, size_t length, int flags) {
    iot_init();
    if (__atomic_load_n(&mapping_count, __ATOMIC_ACQUIRE) == 0 || !iot_enter()) return iot_real.msync(address, length, flags);
    char *a = address;
    struct mapping m = {0};
    for (size_t i = 0; i < mapping_count; i++)
        if (overlaps(&mappings[i], a, length)) { m = mappings[i]; break; }
    if (!m.file) { iot_leave(); return iot_real.msync(address, length, flags); }
    scan_file(m.file);
    char *start = a > m.address ? a : m.address;
    char *end = a + length < m.address + m.length ? a + length : m.address + m.length;
    int64_t offset = m.offset + (start - m.address), span = end - start;
    int injected = iot_should_fail(IOT_OP_FLUSH);
    if (injected) {
        iot_emit(IOTRACE_MSYNC, IOTRACE_FLAG_FAILED | IOTRACE_FLAG_INJECTED, m.file, injected, offset, span, (uint32_t)flags, 0, NULL, 0);
        iot_leave();
        errno = injected;
        return -1;
    }
    int result = iot_real.msync(address, length, flags);
    int saved = errno;
    iot_emit(IOTRACE_MSYNC, result == 0 ? 0 : IOTRACE_FLAG_FAILED, m.file, result == 0 ? 0 : saved, offset, span, (uint32_t)flags, 0, NULL, 0);
    iot_leave();
    errno = saved;
    return result;
}
