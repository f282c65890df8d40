// A VFS that counts SQLite's flushes: it wraps the default VFS, lets it open every file, and
// gives the file a copy of its method table whose xSync counts before it calls the original.
//
// Invariants:
// - Nothing but xOpen differs from the wrapped VFS (same pAppData, sizes, path rules), and every
//   file method but xSync is the wrapped one, so SQLite behaves exactly as without the wrapper.
// - One copy per distinct method table (the unix VFS has a handful); a table entry is complete
//   before the count that publishes it is stored, so xSync's lookup needs no lock.
#include "CStrataBenchCounters.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>

static sqlite3_vfs *wrapped;
static sqlite3_vfs counting;
static atomic_llong syncs;
static int install_status = SQLITE_OK;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

enum { max_tables = 16 };
static struct {
    const sqlite3_io_methods *original;
    sqlite3_io_methods copy;
} tables[max_tables];
static atomic_int table_count;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static const sqlite3_io_methods *original_of(const sqlite3_io_methods *copy) {
    int count = atomic_load(&table_count);
    for (int i = 0; i < count; i++) {
        if (&tables[i].copy == copy) return tables[i].original;
    }
    return NULL;
}

static int counting_sync(sqlite3_file *file, int flags) {
    atomic_fetch_add(&syncs, 1);
    const sqlite3_io_methods *original = original_of(file->pMethods);
    return original ? original->xSync(file, flags) : SQLITE_IOERR_FSYNC;
}

static const sqlite3_io_methods *counting_methods(const sqlite3_io_methods *original) {
    const sqlite3_io_methods *result = original;
    pthread_mutex_lock(&tables_lock);
    int count = atomic_load(&table_count);
    for (int i = 0; i < count; i++) {
        if (tables[i].original == original) { result = &tables[i].copy; goto done; }
    }
    // A full table (never with SQLite's own VFSes) leaves further files uncounted, not broken.
    if (count < max_tables && original->xSync != NULL) {
        tables[count].original = original;
        tables[count].copy = *original;
        tables[count].copy.xSync = counting_sync;
        result = &tables[count].copy;
        atomic_store(&table_count, count + 1);
    }
done:
    pthread_mutex_unlock(&tables_lock);
    return result;
}

static int counting_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    int status = wrapped->xOpen(wrapped, name, file, flags, out_flags);
    if (file->pMethods != NULL) file->pMethods = counting_methods(file->pMethods);
    return status;
}

static void install(void) {
    wrapped = sqlite3_vfs_find(NULL);
    if (wrapped == NULL) { install_status = SQLITE_ERROR; return; }
    counting = *wrapped;
    counting.zName = "strata-bench-counting";
    counting.pNext = NULL;
    counting.xOpen = counting_open;
    install_status = sqlite3_vfs_register(&counting, 1);
}

int strata_bench_sqlite_count_syncs(void) {
    pthread_once(&install_once, install);
    return install_status;
}

long long strata_bench_sqlite_syncs(void) {
    return atomic_load(&syncs);
}
