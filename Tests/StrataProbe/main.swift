// strata-probe: a child process that uses Strata (the object layer), for the cross-process
// notification tests of StrataTests (NotificationCrossProcessTests.swift).
//
// Commands (stdout lines are written one by one with write(2), so the parent sees each line as
// soon as it is printed):
//   write <path> <count> <durability>   opens the realm at <path>, adds ProbeItem objects with ids
//                                        1...count, one commit each, then sets `count = 42` and
//                                        `name = "changed"` on the object with id 0 in one more
//                                        commit; prints "done <version-count>".
// Exit status 0 on success, 2 on an error (printed as "error <description>"), 64 on bad usage.
//
// The model below must stay identical to the one in NotificationCrossProcessTests.swift: the
// schema is checked against the file at open.
import Foundation
import Strata
#if canImport(Glibc)
import Glibc
#endif

final class ProbeItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var count: Int
}

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func run(_ args: [String]) throws -> Int32 {
    guard args.count == 4, args[0] == "write", let count = Int(args[2]), count >= 0,
          let durability = Durability(rawValue: args[3]) else {
        say("usage: strata-probe write <path> <count> <full|unsafe>")
        return 64
    }
    var config = Realm.Configuration(fileURL: URL(fileURLWithPath: args[1]))
    config.durability = durability
    let realm = try Realm(configuration: config)
    for id in stride(from: 1, through: count, by: 1) {
        try realm.write {
            let item = ProbeItem()
            item.id = id
            item.name = "item \(id)"
            try realm.add(item)
        }
    }
    try realm.write {
        guard let first = realm.object(ofType: ProbeItem.self, forPrimaryKey: 0) else {
            throw Realm.Error(.invalidState, "the parent's object with id 0 is missing")
        }
        first.count = 42
        first.name = "changed"
    }
    say("done \(count + 1)")
    return 0
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    say("error \(error)")
    exit(2)
}
