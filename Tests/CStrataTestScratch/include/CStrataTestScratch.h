#ifndef C_STRATA_TEST_SCRATCH_H
#define C_STRATA_TEST_SCRATCH_H

/// The folder this test process keeps its temporary files in (TMPDIR points to it), removed with
/// everything in it when the process exits; empty when none could be made.
const char *strata_test_scratch_root(void);

#endif
