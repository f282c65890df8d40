// A child process of the stress harness: `strata-bench` itself, started with posix_spawn so that
// it can be given a pipe at a chosen descriptor (the writer's ack pipe), extra environment (the
// power-loss scenario's LD_PRELOAD), and its output in files; waited for with a deadline; killed
// with a real SIGKILL.
//
// Invariants: every descriptor the parent opens is close-on-exec, so a child inherits only what
// it is given; the child's stdin is /dev/null; a child is always reaped (`wait`), never left a
// zombie, and `kill` of a reaped child does nothing (its pid may belong to another process).

import Foundation

/// The running executable, for starting children of the same build.
public enum SelfExecutable {
    /// /proc/self/exe resolved; `BenchError(.io)` when it cannot be read.
    public static func path() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else {
            throw BenchError(.io, "cannot read /proc/self/exe: \(String(cString: strerror(errno)))", path: "/proc/self/exe")
        }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// How a child ended.
public enum ChildExit: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)
    /// Still running at the deadline (it was not killed: the caller decides).
    case running
}

public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `pid` and `reaped` change only in `wait`/`kill`, which the owner calls from one
    // thread at a time.
    public let pid: pid_t
    private var reaped: ChildExit?

    /// Starts `executable` with `arguments`. `environment` is added to this process's.
    /// `pipeTo`: a pipe whose write end the child gets at that descriptor; its read end is
    /// returned in `readEnd` (the caller closes it). `stdout`/`stderr`: files for those streams
    /// (created or truncated), /dev/null when nil.
    public init(executable: String, arguments: [String], environment: [String: String] = [:], pipeTo childDescriptor: Int32? = nil,
                stdout: String? = nil, stderr: String? = nil, readEnd: UnsafeMutablePointer<Int32>? = nil) throws {
        var fds: [Int32] = [-1, -1]
        if childDescriptor != nil {
            // pipe2(O_CLOEXEC) is not imported (it needs _GNU_SOURCE); the flag is set right after,
            // and the harness starts its children from one thread, so no spawn sees the gap.
            guard pipe(&fds) == 0 else { throw BenchError(.io, "pipe failed: \(String(cString: strerror(errno)))") }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        defer { if fds[1] >= 0 { close(fds[1]) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let childDescriptor {
            // dup2 clears close-on-exec on the copy: the child keeps exactly this end.
            posix_spawn_file_actions_adddup2(&actions, fds[1], childDescriptor)
        }
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // Own process group: a Ctrl-C at the terminal reaches the parent only, which stops between
        // rounds, instead of killing the children mid-round (a checker dying of SIGINT would
        // count as a crash). Default dispositions: the parent ignores SIGINT/SIGTERM (it takes
        // them through dispatch sources) and an ignored signal would otherwise stay ignored in the
        // child; with SIGPIPE at its default, a writer whose parent died ends at its next line.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        var status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        // ETXTBSY: the executable was just written and another thread's fork still holds a
        // descriptor of it open until that child's exec; it goes away in moments.
        for _ in 0..<100 where status == ETXTBSY {
            usleep(10_000)
            status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        }
        guard status == 0 else {
            if fds[0] >= 0 { close(fds[0]) }
            throw BenchError(.io, "cannot start \(executable): \(String(cString: strerror(status)))", path: executable)
        }
        pid = child
        if let readEnd { readEnd.pointee = fds[0] }
    }

    /// Waits up to `timeout` seconds (nil: forever) for the child to end.
    @discardableResult
    public func wait(timeout: Double? = nil) -> ChildExit {
        if let reaped { return reaped }
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if result == pid {
                // WIFEXITED / WTERMSIG, which Swift does not import (macros).
                let exit: ChildExit = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
                reaped = exit
                return exit
            }
            if result < 0 && errno != EINTR {
                reaped = .exited(-1)
                return .exited(-1)
            }
            if let deadline, Date() >= deadline { return .running }
            if deadline != nil { usleep(2_000) }
        }
    }

    /// SIGKILL, then reap. Returns how the child ended (it may have ended before the signal).
    @discardableResult
    public func kill() -> ChildExit {
        if let reaped { return reaped }
        Glibc.kill(pid, SIGKILL)
        return wait()
    }

    /// Whether the child has ended (reaps it if so).
    public var hasEnded: Bool { wait(timeout: 0) != .running }
}
