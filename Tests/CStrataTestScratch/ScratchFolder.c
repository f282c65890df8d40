// One temporary folder per test process, removed when the process exits.
//
// The tests make their files under FileManager.default.temporaryDirectory (realms, damaged
// corpora, crash copies of hundreds of megabytes) and do not remove them one by one; a full run
// left about 2 GB behind. Before main, this makes a folder under the temporary directory, points
// TMPDIR at it (Foundation's temporaryDirectory reads TMPDIR), and removes it at exit.
//
// Invariants:
// - Child processes of a test (exit tests, helper executables) inherit TMPDIR: a test binary
//   started inside such a folder makes none of its own, so its files stay until the process that
//   made the folder exits (a child that stops on purpose never runs exit handlers).
// - Only the process that made the folder removes it (a forked child shares the handler).
#define _XOPEN_SOURCE 700
#include "CStrataTestScratch.h"
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_root[PATH_MAX];
static pid_t scratch_owner;

static int remove_entry(const char *path, const struct stat *status, int kind, struct FTW *walk) {
    (void)status; (void)kind; (void)walk;
    remove(path);
    return 0;
}

static void remove_scratch_root(void) {
    if (scratch_root[0] != '\0' && getpid() == scratch_owner) {
        nftw(scratch_root, remove_entry, 64, FTW_DEPTH | FTW_PHYS);
    }
}

__attribute__((constructor)) static void make_scratch_root(void) {
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0') base = "/tmp";
    if (strstr(base, "/strata-tests-") != NULL) return;  // inside a test process's folder already
    if (snprintf(scratch_root, sizeof scratch_root, "%s/strata-tests-XXXXXX", base) >= (int)sizeof scratch_root
        || mkdtemp(scratch_root) == NULL) {
        scratch_root[0] = '\0';
        return;
    }
    scratch_owner = getpid();
    setenv("TMPDIR", scratch_root, 1);
    atexit(remove_scratch_root);
}

const char *strata_test_scratch_root(void) { return scratch_root; }
