// The two-names check's writer, shared by the child that writes (`strata-probe append`,
// Tests/StrataProbe) and the test that starts two of them on one file under different names
// (Tests/StrataAPITests/FileUnderTwoNamesTests.swift).
//
// The protocol: the child opens the realm at the path it is given, prints `readyLine`, waits for
// a line on its standard input, then adds `ProbeItem`s firstID..<firstID + count, one commit
// each, and prints `doneLine(count:)`. The parent starts every child before it lets any write, so
// all have the file open, each through its own name, while they write.
import Foundation
import Strata

public enum NamedAppends {
    public static let command = "append"
    public static let readyLine = "ready"

    public static func arguments(path: String, firstID: Int, count: Int) -> [String] {
        [command, path, "\(firstID)", "\(count)"]
    }

    public static func doneLine(count: Int) -> String { "appended \(count)" }

    /// The child's side: parses the arguments after `command` (nil when they are not
    /// `<path> <first-id> <count>`), opens, reports ready through `say`, waits, writes, and
    /// returns the line to print.
    public static func append(_ arguments: [String], say: (String) -> Void) throws -> String? {
        guard arguments.count == 3, let first = Int(arguments[1]), let count = Int(arguments[2]), count >= 0 else { return nil }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[0])))
        say(readyLine)
        _ = readLine()
        for id in first..<(first + count) {
            try realm.write {
                let item = ProbeItem()
                item.id = id
                item.name = "item \(id)"
                realm.add(item)
            }
        }
        return doneLine(count: count)
    }
}
