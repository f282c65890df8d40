// The cross-process notification check's model and protocol, shared by the child that writes
// (`strata-probe write`, Tests/StrataProbe) and the test that observes the writes
// (Tests/StrataAPITests/NotificationCrossProcessTests.swift): one declaration, so the schema both
// sides check at open and the commits the observer waits for cannot drift apart.
//
// The protocol: the parent creates the file holding `ProbeItem` 0; the child, started with
// `arguments(path:count:durability:)`, adds items 1...count in one commit each, then changes
// item 0's `count` and `name` to `changedCount` and `changedName` in one more commit, and prints
// `doneLine(count:)`. The observer must see every item and the change without calling refresh.
import Foundation
import Strata

/// The one object class of the cross-process notification check.
public final class ProbeItem: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var count: Int
}

public enum CrossProcessWrites {
    /// The probe's command for this check.
    public static let command = "write"
    /// What the child's last commit sets on item 0.
    public static let changedCount = 42
    public static let changedName = "changed"

    /// The probe's arguments for a child that writes `count` items to the file at `path`.
    public static func arguments(path: String, count: Int, durability: Durability) -> [String] {
        [command, path, "\(count)", durability.rawValue]
    }

    /// What the child prints once all its commits are made (one per item plus the change to item 0).
    public static func doneLine(count: Int) -> String { "done \(count + 1)" }

    /// The child's side: parses the arguments after `command` (nil when they are not
    /// `<path> <count> <durability>`), makes the commits and returns the line to print.
    public static func writeItems(_ arguments: [String]) throws -> String? {
        guard arguments.count == 3, let count = Int(arguments[1]), count >= 0,
              let durability = Durability(rawValue: arguments[2]) else { return nil }
        var config = Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[0]))
        config.durability = durability
        let realm = try Realm(configuration: config)
        for id in stride(from: 1, through: count, by: 1) {
            try realm.write {
                let item = ProbeItem()
                item.id = id
                item.name = "item \(id)"
                realm.add(item)
            }
        }
        try realm.write {
            guard let first = realm.object(ofType: ProbeItem.self, forPrimaryKey: 0) else {
                throw Realm.Error(.invalidState, "the parent's object with id 0 is missing")
            }
            first.count = changedCount
            first.name = changedName
        }
        return doneLine(count: count)
    }
}
