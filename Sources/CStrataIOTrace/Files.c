// Paths under the root and file ids. Paths are compared lexically ("." and ".." folded, links not
// followed), against the root as given and as realpath(3) resolves it, because getcwd(3) and
// /proc/self/fd report resolved paths while the traced program may use the given spelling.
#include "IOTraceInternal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *iot_root;
size_t iot_root_length;
static char root_given[PATH_MAX], root_real[PATH_MAX];
static struct iot_file *files; // files[0] unused: id 0 means "none"
static uint32_t file_count = 1, file_capacity;

/// Folds "//", "." and ".." of an absolute path in place.
static void normalise(char *path) {
    char out[PATH_MAX * 2];
    size_t length = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 1 && p[0] == '.') {
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (length > 0 && out[length - 1] != '/') length--;
            if (length > 0) length--;
        } else if (length + n + 2 < sizeof out) {
            out[length++] = '/';
            memcpy(out + length, p, n);
            length += n;
        }
        p += n;
    }
    if (length == 0) out[length++] = '/';
    out[length] = 0;
    memcpy(path, out, length + 1);
}

int iot_set_root(const char *root) {
    char absolute[PATH_MAX * 2];
    if (root[0] == '/') {
        snprintf(absolute, sizeof absolute, "%s", root);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) return -1;
        snprintf(absolute, sizeof absolute, "%s/%s", cwd, root);
    }
    normalise(absolute);
    if (strlen(absolute) >= PATH_MAX) return -1;
    strcpy(root_given, absolute);
    if (!realpath(root_given, root_real)) strcpy(root_real, root_given);
    iot_root = root_real;
    iot_root_length = strlen(root_real);
    return 0;
}

static const char *under(const char *path, const char *root) {
    size_t n = strlen(root);
    if (strncmp(path, root, n) != 0) return NULL;
    if (path[n] == 0) return ".";
    if (n == 1) return path + 1; // root "/"
    return path[n] == '/' ? path + n + 1 : NULL;
}

int iot_relative_path(int dirfd, const char *path, char *out, size_t size) {
    if (!path) return -1;
    char absolute[PATH_MAX * 2];
    if (path[0] == '/') {
        snprintf(absolute, sizeof absolute, "%s", path);
    } else {
        char base[PATH_MAX];
        uint32_t file = dirfd == AT_FDCWD ? 0 : iot_traced_fd(dirfd);
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base)) return -1;
        } else if (file) {
            iot_absolute_path(iot_file_path(file), base, sizeof base);
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n <= 0) return -1;
            base[n] = 0;
        }
        snprintf(absolute, sizeof absolute, "%s/%s", base, path);
    }
    normalise(absolute);
    const char *relative = under(absolute, root_real);
    if (!relative) relative = under(absolute, root_given);
    if (!relative || strlen(relative) >= size) return -1;
    strcpy(out, relative);
    return 0;
}

void iot_absolute_path(const char *relative, char *out, size_t size) {
    if (strcmp(relative, ".") == 0) snprintf(out, size, "%s", iot_root);
    else snprintf(out, size, "%s/%s", iot_root, relative);
}

struct iot_file *iot_file(uint32_t id) { return id > 0 && id < file_count ? &files[id] : NULL; }
uint32_t iot_file_count(void) { return file_count; }
const char *iot_file_path(uint32_t id) { return id > 0 && id < file_count ? files[id].path : "."; }
int iot_file_is_directory(uint32_t id) { return id > 0 && id < file_count && files[id].directory; }

static uint32_t find(dev_t dev, ino_t ino) {
    for (uint32_t i = 1; i < file_count; i++)
        if (!files[i].gone && files[i].dev == dev && files[i].ino == ino) return i;
    return 0;
}

static uint32_t add(const struct stat *st, const char *relative) {
    if (file_count >= file_capacity) {
        uint32_t capacity = file_capacity ? file_capacity * 2 : 64;
        struct iot_file *grown = realloc(files, sizeof *files * capacity);
        if (!grown) return 0;
        files = grown;
        file_capacity = capacity;
    }
    struct iot_file *f = &files[file_count];
    memset(f, 0, sizeof *f);
    f->dev = st->st_dev; f->ino = st->st_ino;
    f->path = strdup(relative);
    f->directory = S_ISDIR(st->st_mode);
    f->scan_fd = -1;
    return f->path ? file_count++ : 0;
}

/// Records a file that existed before the traced process touched it: its path and contents.
static void snapshot(uint32_t id, const char *relative) {
    struct iot_file *f = &files[id];
    struct iovec data[2] = {{(void *)relative, strlen(relative) + 1}, {NULL, 0}};
    if (f->directory) {
        iot_emit(IOTRACE_SNAPSHOT, IOTRACE_FLAG_DIRECTORY, id, 0, 0, 0, 0, 0, data, 1);
        return;
    }
    char absolute[PATH_MAX * 2];
    iot_absolute_path(relative, absolute, sizeof absolute);
    int fd = iot_real.open(absolute, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char *content = NULL;
    size_t length = 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 && (content = malloc((size_t)st.st_size))) {
        while (length < (size_t)st.st_size) {
            ssize_t n = pread(fd, content + length, (size_t)st.st_size - length, (off_t)length);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            length += (size_t)n;
        }
    }
    if (fd >= 0) iot_real.close(fd);
    data[1].iov_base = content;
    data[1].iov_len = length;
    iot_emit(IOTRACE_SNAPSHOT, 0, id, 0, 0, (int64_t)length, 0, 0, data, 2);
    free(content);
}

uint32_t iot_file_for_path(const char *relative) {
    char absolute[PATH_MAX * 2];
    iot_absolute_path(relative, absolute, sizeof absolute);
    struct stat st;
    if (lstat(absolute, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return 0;
    uint32_t id = find(st.st_dev, st.st_ino);
    if (id) return id;
    id = add(&st, relative);
    if (id) snapshot(id, relative);
    return id;
}

uint32_t iot_file_for_fd(int fd, const char *relative, int created) {
    struct stat st;
    if (fstat(fd, &st) != 0) return 0;
    uint32_t id = find(st.st_dev, st.st_ino);
    if (id) return id;
    id = add(&st, relative);
    if (id && !created) snapshot(id, relative);
    return id;
}

void iot_file_set_fd(int fd, uint32_t file, uint8_t mode) {
    if (fd < 0 || fd >= IOT_MAX_FDS) return;
    iot_fd_mode[fd] = mode;
    __atomic_store_n(&iot_fd_file[fd], file, __ATOMIC_RELEASE);
}

void iot_files_renamed(const char *from, const char *to) {
    size_t n = strlen(from);
    for (uint32_t i = 1; i < file_count; i++) {
        struct iot_file *f = &files[i];
        if (f->gone || strncmp(f->path, from, n) != 0 || (f->path[n] != 0 && f->path[n] != '/')) continue;
        if (!to) {
            if (f->path[n] == 0) f->gone = 1;
            continue;
        }
        char moved[PATH_MAX * 2];
        snprintf(moved, sizeof moved, "%s%s", to, f->path + n);
        char *copy = strdup(moved);
        if (copy) { free(f->path); f->path = copy; }
    }
}
