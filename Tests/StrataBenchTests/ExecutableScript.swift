import Foundation
import Testing

/// A shell script a test runs as a child. Written through a close-on-exec descriptor: a child
/// another test starts meanwhile must not keep the script open for writing, or running the
/// script fails with ETXTBSY ("Text file busy").
enum ExecutableScript {
    static func write(_ path: String, body: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0, "cannot create \(path)")
        let bytes = Array(("#!/bin/sh\n" + body + "\n").utf8)
        let written = Foundation.write(descriptor, bytes, bytes.count)
        close(descriptor)
        try #require(written == bytes.count, "cannot write \(path)")
    }
}
