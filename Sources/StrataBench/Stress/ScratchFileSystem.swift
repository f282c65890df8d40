// A small real file system of its own for one full-disk round: tmpfs with a size limit, or, where
// tmpfs cannot be mounted, an ext4 image on a loop device. Mounting needs root (or
// CAP_SYS_ADMIN); without it `mount` throws `unsupported` saying what each attempt answered,
// never a simulated full disk.
//
// Invariants: a mounted file system is unmounted by `unmount()` (the scenario calls it in a
// `defer`, so an error in the round does not leave a mount behind); the tools (`mount`,
// `umount`, `mkfs.ext4`) run as real child processes with a deadline.

import Foundation

public final class ScratchFileSystem: @unchecked Sendable {
    // @unchecked: `mounted` changes only in `unmount`, called once by the round's owner.
    public let mountPoint: String
    /// "tmpfs" or "ext4 loop image".
    public let kind: String
    private let image: String?
    private let scratch: String
    private var mounted = true

    private init(mountPoint: String, kind: String, image: String?, scratch: String) {
        self.mountPoint = mountPoint
        self.kind = kind
        self.image = image
        self.scratch = scratch
    }

    /// Mounts a file system of `megabytes` MiB at `mountPoint` (created if missing). `scratch`
    /// holds the tools' output and the ext4 image; it must not be inside `mountPoint`.
    public static func mount(at mountPoint: String, megabytes: Int, scratch: String) throws -> ScratchFileSystem {
        try StressFiles.makeDirectory(mountPoint)
        let tmpfs = run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", mountPoint], scratch: scratch)
        if tmpfs == nil { return ScratchFileSystem(mountPoint: mountPoint, kind: "tmpfs", image: nil, scratch: scratch) }
        // tmpfs refused (a container without it, a kernel without it): an ext4 image on a loop
        // device fills up the same way.
        let image = (scratch as NSString).appendingPathComponent("fs.ext4")
        var loop = run("truncate", ["-s", "\(megabytes)M", image], scratch: scratch)
        if loop == nil { loop = run("mkfs.ext4", ["-q", "-F", "-m", "0", image], scratch: scratch) }
        if loop == nil { loop = run("mount", ["-o", "loop", image, mountPoint], scratch: scratch) }
        try? FileManager.default.removeItem(atPath: image)
        if loop == nil { return ScratchFileSystem(mountPoint: mountPoint, kind: "ext4 loop image", image: image, scratch: scratch) }
        throw BenchError(.unsupported, "full-disk needs a size-limited file system of its own and none could be mounted "
                         + "(uid \(getuid())): tmpfs: \(tmpfs ?? ""); ext4 loop image: \(loop ?? "")", path: mountPoint)
    }

    /// Unmounts (lazily if busy: a child that is still being reaped may hold a descriptor).
    public func unmount() {
        guard mounted else { return }
        mounted = false
        if Self.run("umount", [mountPoint], scratch: scratch) != nil {
            _ = Self.run("umount", ["-l", mountPoint], scratch: scratch)
        }
    }

    deinit { unmount() }

    /// Bytes free for an unprivileged writer.
    public var freeBytes: Int64 {
        var stats = statvfs()
        guard statvfs(mountPoint, &stats) == 0 else { return 0 }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    /// Fills the file system with `path` in 64 KiB writes until ENOSPC, and returns the bytes
    /// written. The data is real (not a hole), so the space is really taken.
    public static func fill(_ path: String) throws -> Int64 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw BenchError(.io, "cannot create the ballast: \(String(cString: strerror(errno)))", path: path)
        }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 65_536)
        var total: Int64 = 0
        var size = chunk.count
        while size >= 512 {
            let written = write(descriptor, chunk, size)
            if written > 0 { total += Int64(written); continue }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && errno != ENOSPC {
                throw BenchError(.io, "cannot write the ballast: \(String(cString: strerror(errno)))", path: path)
            }
            size /= 2 // full at this size: take the rest in smaller pieces
        }
        return total
    }

    /// nil when this process can mount a scratch file system; otherwise why not (for tests).
    public static func unavailability() -> String? {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("strata-bench-mount-probe-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            try StressFiles.makeDirectory(base)
            let mounted = try mount(at: (base as NSString).appendingPathComponent("fs"), megabytes: 1, scratch: base)
            mounted.unmount()
            return nil
        } catch let error as BenchError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// Runs a tool; nil on success, else what it said.
    static func run(_ tool: String, _ arguments: [String], scratch: String) -> String? {
        guard let path = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map({ "\($0)/\(tool)" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return "\(tool) not found" }
        let output = (scratch as NSString).appendingPathComponent("\(tool).out")
        do {
            let child = try ChildProcess(executable: path, arguments: arguments, stdout: output, stderr: output)
            let exit = child.wait(timeout: 30)
            if exit == .running { child.kill(); return "\(tool) did not finish in 30 s" }
            if exit == .exited(0) { return nil }
            let said = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(tool) \(exit): \(QuotedInput.clip(said))"
        } catch {
            return "\(error)"
        }
    }
}
