// `bench-open`: what verifying every stored page at open costs (see Bench.swift's usage).
//
// Each round opens the same file twice, once verifying every stored page and once only the
// newest commits (the order alternates between rounds), and closes it again; the difference of
// the two opens is the verification, reported as MB/s of the file's pages.

import Foundation
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

func benchOpen(dir: String, megabytes: Int, encrypted: Bool, rounds: Int, cold: Bool) throws {
    let path = dir + "/bench-open.strata"
    do {
        let file = try benchFile(dir, "bench-open.strata", durability: .unsafe, encrypted: encrypted)
        try fillLivePages(file, megabytes: megabytes)
        file.close()
    }
    var info = stat()
    stat(path, &info)
    let fileMB = Double(info.st_size) / 1e6
    func timedOpen(_ verification: OpenVerification) throws -> Double {
        if cold { dropPageCache() }
        let start = monotonicSeconds()
        let file = try StorageFile.open(StorageOptions(path: path, durability: .unsafe,
                                                       encryptionKey: encrypted ? benchKey : nil,
                                                       openVerification: verification))
        let elapsed = monotonicSeconds() - start
        file.close()
        return elapsed
    }
    var full: [Double] = []
    var light: [Double] = []
    for round in 0..<max(1, rounds) {
        if round % 2 == 0 {
            full.append(try timedOpen(.allPages))
            light.append(try timedOpen(.newestCommitsOnly))
        } else {
            light.append(try timedOpen(.newestCommitsOnly))
            full.append(try timedOpen(.allPages))
        }
    }
    let median = { (values: [Double]) -> Double in values.sorted()[values.count / 2] }
    let verification = max(1e-9, median(full) - median(light))
    say(String(format: "open %@ %.1f MB%@: every page %.2f ms, newest commits only %.2f ms (medians of %d): verification %.1f MB/s",
               encrypted ? "encrypted" : "plain", fileMB, cold ? " (cold cache)" : "", median(full) * 1e3,
               median(light) * 1e3, full.count, fileMB / verification))
    try? StorageFile.deleteFiles(path: path)
}

private func dropPageCache() {
    sync()
    let fd = open("/proc/sys/vm/drop_caches", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, "3", 1)
    close(fd)
}
