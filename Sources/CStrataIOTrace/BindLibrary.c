// Routes a library loaded with RTLD_DEEPBIND through the interposer.
//
// LD_PRELOAD puts the interposer first in the process's global scope, but a library opened with
// RTLD_DEEPBIND looks its symbols up in its own dependencies first, so its calls to pwrite64,
// fdatasync or open64 go straight to the C library and the trace never sees them (strata-bench
// opens SQLCipher that way, to keep its SQLite apart from the system SQLite GRDB links). A trace
// without them would show every acknowledged commit as lost. strata_iotrace_bind_library rewrites
// the library's resolved references to the functions the interposer defines — the GOT slots of
// its calls (JUMP_SLOT, GLOB_DAT) and the absolute pointers in its data (R_X86_64_64: SQLite
// keeps its system calls in such a table) — so the library is traced like the rest of the process.
#include "IOTraceInternal.h"
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

// The functions the interposer defines (its IOT_EXPORT definitions in the other files).
static const char *const interposed[] = {
    "open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2",
    "creat", "creat64", "close", "dup", "dup2", "dup3", "rename", "renameat", "renameat2",
    "unlinkat", "unlink", "rmdir", "remove", "write", "pwrite", "pwrite64", "writev", "pwritev",
    "pwritev64", "pwritev2", "pwritev64v2", "fsync", "fdatasync", "sync_file_range", "ftruncate",
    "ftruncate64", "fallocate", "fallocate64", "posix_fallocate", "posix_fallocate64", "mmap",
    "mmap64", "munmap", "msync",
};

static int is_interposed(const char *name) {
    for (size_t i = 0; i < sizeof interposed / sizeof interposed[0]; i++) {
        if (strcmp(name, interposed[i]) == 0) return 1;
    }
    return 0;
}

/// The interposer's own definition of `name`, or NULL (checked to lie in this very object, so a
/// definition earlier in the global scope is never taken for ours).
static void *own_definition(const char *name) {
    void *found = dlsym(RTLD_DEFAULT, name);
    Dl_info where, self;
    if (!found || !dladdr(found, &where) || !dladdr((void *)&own_definition, &self)) return NULL;
    return where.dli_fbase == self.dli_fbase ? found : NULL;
}

struct relro { ElfW(Addr) base; uintptr_t start, end; };

static int find_relro(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct relro *r = context;
    if (info->dlpi_addr != r->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            r->start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            r->end = r->start + info->dlpi_phdr[i].p_memsz;
        }
    }
    return 1;
}

/// Writes `value` into `slot`. The C library makes the RELRO range read-only after relocation,
/// rounded down to whole pages (a last partial page stays writable, and may hold writable data):
/// a slot on one of those pages is made writable for the write and read-only again, page by page.
static int patch(void **slot, void *value, const struct relro *relro) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)slot, first = relro->start & ~(page - 1), end = relro->end & ~(page - 1);
    if (at >= first && at < end) {
        void *its_page = (void *)(at & ~(page - 1));
        if (mprotect(its_page, page, PROT_READ | PROT_WRITE) != 0) return -1;
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        if (mprotect(its_page, page, PROT_READ) != 0) return -1;
    } else {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    }
    return 0;
}

static int patch_table(const ElfW(Rela) *table, size_t bytes, ElfW(Addr) base, const ElfW(Sym) *symbols,
                       const char *names, const struct relro *relro) {
    int patched = 0;
    for (size_t i = 0; table && i < bytes / sizeof *table; i++) {
        unsigned long type = ELF64_R_TYPE(table[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64) continue;
        const ElfW(Sym) *symbol = &symbols[ELF64_R_SYM(table[i].r_info)];
        if (symbol->st_shndx != SHN_UNDEF || symbol->st_name == 0) continue; // the library's own
        const char *name = names + symbol->st_name;
        if (!is_interposed(name)) continue;
        void *ours = own_definition(name);
        if (!ours) continue;
        void *value = type == R_X86_64_64 ? (char *)ours + table[i].r_addend : ours;
        if (patch((void **)(base + table[i].r_offset), value, relro) != 0) return -1;
        patched++;
    }
    return patched;
}

/// Rewrites the references of the library `handle` (from dlopen) to the interposer's functions.
/// Returns how many references now point at the interposer, 0 when tracing is off (nothing to
/// do), -1 when the library's tables could not be read or a slot could not be written.
IOT_EXPORT int strata_iotrace_bind_library(void *handle) {
    iot_init();
    if (!iot_enabled || !handle) return 0;
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return -1;
    ElfW(Addr) base = map->l_addr;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *plt = NULL, *data = NULL;
    size_t plt_bytes = 0, data_bytes = 0;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        // The C library relocates these addresses in place on x86-64; an unrelocated one is an
        // offset from the load address.
        ElfW(Addr) at = d->d_un.d_ptr < base ? base + d->d_un.d_ptr : d->d_un.d_ptr;
        switch (d->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)at; break;
        case DT_STRTAB: names = (const char *)at; break;
        case DT_JMPREL: plt = (const ElfW(Rela) *)at; break;
        case DT_PLTRELSZ: plt_bytes = d->d_un.d_val; break;
        case DT_RELA: data = (const ElfW(Rela) *)at; break;
        case DT_RELASZ: data_bytes = d->d_un.d_val; break;
        default: break;
        }
    }
    if (!symbols || !names) return -1;
    struct relro relro = { base, 0, 0 };
    dl_iterate_phdr(find_relro, &relro);
    int a = patch_table(plt, plt_bytes, base, symbols, names, &relro);
    int b = patch_table(data, data_bytes, base, symbols, names, &relro);
    return a < 0 || b < 0 ? -1 : a + b;
}
