// The name of one crash state: enough, with the trace file, to rebuild it exactly.

/// A crash point (records 0..<crashPoint happened) and the choice made for what was pending.
/// Its string form, e.g. `k=120:dropped`, `k=120:kept`, `k=120:omit=2`, `k=120:seed=0x1f3a…`, reads back with
/// `init?(_:)`, so a failing state can be replayed from a log line.
public struct CrashStateID: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    public enum Variant: Hashable, Sendable {
        /// Every pending change lost: only what was flushed.
        case dropped
        /// Every pending change kept, in trace order (what the page cache held).
        case kept
        /// Every pending change kept but one: the `index`-th pending data change (in trace order)
        /// never reached the disk. ALICE's single-omission states: a later write (a meta slot)
        /// on disk without an earlier one it depends on (a page, the file's growth).
        case omit(index: Int)
        /// Each pending data change kept, dropped or torn, writes reordered, and a prefix of the
        /// pending name changes, all drawn from SplitMix64(seed).
        case random(seed: UInt64)
    }

    public let crashPoint: Int
    public let variant: Variant

    public init(crashPoint: Int, variant: Variant) {
        self.crashPoint = crashPoint
        self.variant = variant
    }

    public var description: String {
        switch variant {
        case .dropped: "k=\(crashPoint):dropped"
        case .kept: "k=\(crashPoint):kept"
        case .omit(let index): "k=\(crashPoint):omit=\(index)"
        case .random(let seed): "k=\(crashPoint):seed=0x\(String(seed, radix: 16))"
        }
    }

    public init?(_ description: String) {
        let parts = description.split(separator: ":")
        guard parts.count == 2, parts[0].hasPrefix("k="), let k = Int(parts[0].dropFirst(2)), k >= 0 else { return nil }
        switch parts[1] {
        case "dropped": variant = .dropped
        case "kept": variant = .kept
        case let text where text.hasPrefix("omit="):
            guard let index = Int(text.dropFirst(5)), index >= 0 else { return nil }
            variant = .omit(index: index)
        default:
            guard parts[1].hasPrefix("seed=0x"), let seed = UInt64(parts[1].dropFirst(7), radix: 16) else { return nil }
            variant = .random(seed: seed)
        }
        crashPoint = k
    }
}
