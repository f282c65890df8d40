// The folder this test process keeps its temporary files in, removed at exit (CStrataTestScratch).
import CStrataTestScratch

/// The folder `FileManager.default.temporaryDirectory` points into for this test process; empty
/// when none could be made (then files go to the system's temporary directory and stay there).
public var testScratchFolder: String { String(cString: strata_test_scratch_root()) }
