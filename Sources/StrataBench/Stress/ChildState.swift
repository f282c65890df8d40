// What a running child is doing, read from outside while it is stuck: its last line on the ack
// pipe, its scheduler state and the kernel function it sleeps in (/proc/<pid>/status State,
// /proc/<pid>/wchan), and the tail of its stderr. Read before the child is killed: that is the
// evidence of a stall or deadlock.

import Foundation

public enum ChildState {
    /// One line: "pid 123: last 'ack p1.w0-57', State S (sleeping), wchan futex_wait_queue, stderr: …".
    public static func describe(_ writer: WriterChild) -> String {
        let pid = writer.process.pid
        let last = writer.lastLine
        var parts = ["pid \(pid): last line '\(QuotedInput.clip(last.isEmpty ? "(none)" : last))'"]
        parts.append("State \(state(pid) ?? "?")")
        parts.append("wchan \(wchan(pid) ?? "?")")
        let tail = stderrTail(writer.stderrPath)
        if !tail.isEmpty { parts.append("stderr: \(QuotedInput.clip(tail))") }
        return parts.joined(separator: ", ")
    }

    /// The State field of /proc/<pid>/status ("S (sleeping)"), nil when unreadable.
    public static func state(_ pid: pid_t) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("State:") {
            return line.dropFirst("State:".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// /proc/<pid>/wchan: where the main thread sleeps in the kernel ("0" when running).
    public static func wchan(_ pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The last three lines of a stderr file, joined by " / ".
    static func stderrTail(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(3).joined(separator: " / ")
    }
}
