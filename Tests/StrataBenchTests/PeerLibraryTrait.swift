import Foundation
import Testing
import StrataBench

/// Whether a peer engine's suite runs. When its library is absent the suite is reported as
/// skipped with the install line (never passed silently); under CI (`CI=true`) it runs anyway,
/// so an absent library fails at the engine's open with its "unavailable" error.
enum PeerLibrary {
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static func shouldTest(_ kind: EngineKind) -> Bool {
        Engines.isAvailable(kind) || inCI
    }

    static func reason(_ kind: EngineKind) -> Comment {
        Comment(rawValue: "\(kind.rawValue): \(Engines.unavailability(kind) ?? "available") — not tested on this machine")
    }
}
