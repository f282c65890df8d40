// strata-probe: a child process that uses Strata (the object layer), for the tests of StrataTests
// that need a second process: cross-process notifications, damaged files, killed copies.
//
// Commands (stdout lines are written one by one with write(2), so the parent sees each line as
// soon as it is printed):
//   write <path> <count> <durability>   the writer of the cross-process notification check
//                                        (Tests/StrataCrossProcess: adds ProbeItem objects 1...count,
//                                        one commit each, then changes object 0; prints
//                                        "done <commit-count>").
//   append <path> <first-id> <count>     the two-names check's writer (Tests/StrataCrossProcess:
//                                        prints "ready", waits for a line on stdin, adds ProbeItem
//                                        objects first-id..., one commit each; prints
//                                        "appended <count>").
//   build <path> <plain|encrypted>       writes the corpus file (Tests/StrataCorpus); prints
//                                        "version <k> <digest>" after each of its commits.
//   read <path> <plain|encrypted>        opens it and reads everything; prints "digest <hex>
//                                        <items> <entries>", or "error <code> <message>" (exit 3)
//                                        when a throwing call fails with a Realm.Error.
//   touch <path> <plain|encrypted>       adds one CorpusMarker in one commit; prints "done".
//   main-runloop <path> <plain|encrypted> <on|off>
//                                        autorefresh on the main run loop, with autorefresh on or
//                                        off (MainRunLoopAutorefresh.swift).
//   main-async-write <path> <plain|encrypted>
//                                        asynchronous writes of a realm of the main thread, run
//                                        from the main run loop (MainThreadAsyncWrite.swift).
//   hold <path> <plain|encrypted> <what> opens and reads everything, prints "ready", waits for a
//                                        line on stdin, refreshes, then reads <what> (items, count,
//                                        list, lookup) and prints "read <hex>".
//   copy-loop <path> <plain|encrypted> <destination-prefix>
//                                        writes copies <prefix>0, <prefix>1, … until killed,
//                                        printing "copied <i>" after each.
//   compact-loop <path> <plain|encrypted> opens the realm with compaction on launch and closes it,
//                                        until killed, printing "compacted <i>" after each.
//   compact-limited <path> <plain|encrypted> <bytes>
//                                        with files limited to <bytes> (RLIMIT_FSIZE: a full disk
//                                        without mounting one), opens the realm with compaction on
//                                        launch asked for and reads everything (as `read`).
// Exit status 0 on success, 2 on an error (printed as "error <description>"), 3 on a Realm.Error
// in `read`, 64 on bad usage. A read that meets damage stops the process (a signal) with a
// "Strata:" message on stderr.
//
// The corpus model (Tests/StrataCorpus) and the notification check's model and commits
// (Tests/StrataCrossProcess) are declared once for this child and the tests.
import Foundation
import Strata
import StrataCorpus
import StrataCrossProcess
#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func hex(_ v: UInt64) -> String { String(v, radix: 16) }

func usage() -> Int32 {
    say("usage: strata-probe write|append|build|read|touch|main-runloop|main-async-write|hold|copy-loop|compact-loop|compact-limited <path> … (see the file header)")
    return 64
}

func run(_ args: [String]) throws -> Int32 {
    guard let command = args.first else { return usage() }
    let rest = Array(args.dropFirst())
    if command == NamedAppends.command {
        guard let done = try NamedAppends.append(rest, say: say) else { return usage() }
        say(done)
        return 0
    }
    if command == CrossProcessWrites.command {
        guard let done = try CrossProcessWrites.writeItems(rest) else { return usage() }
        say(done)
        return 0
    }
    guard rest.count >= 2, ["plain", "encrypted"].contains(rest[1]) else { return usage() }
    let config = Corpus.configuration(path: rest[0], encrypted: rest[1] == "encrypted")
    switch (command, rest.count) {
    case ("build", 2):
        let realm = try Realm(configuration: config)
        for (k, d) in try Corpus.build(realm).enumerated() { say("version \(k + 1) \(hex(d))") }
    case ("read", 2):
        do {
            let realm = try Realm(configuration: config)
            let r = Corpus.readAll(realm)
            say("digest \(hex(r.digest)) \(r.items) \(r.entries)")
        } catch let e as Realm.Error {
            say("error \(e.code.rawValue) \(e.message)")
            return 3
        }
    case ("main-runloop", 3):
        guard ["on", "off"].contains(rest[2]) else { return usage() }
        for line in try MainRunLoopAutorefresh.run(config, autorefresh: rest[2] == "on") { say(line) }
    case ("main-async-write", 2):
        for line in try MainThreadAsyncWrite.run(config) { say(line) }
    case ("touch", 2):
        let realm = try Realm(configuration: config)
        try realm.write {
            let m = CorpusMarker()
            m.id = (realm.objects(CorpusMarker.self).max(ofProperty: "id") as Int? ?? 0) + 1
            realm.add(m)
        }
        say("done")
    case ("hold", 3):
        let realm = try Realm(configuration: config)
        _ = Corpus.readAll(realm)
        say("ready")
        _ = readLine()
        realm.refresh()
        var d = Digest()
        switch rest[2] {
        case "items": for o in realm.objects(CorpusItem.self) { d.add(o.name) }
        case "count": d.add(realm.objects(CorpusItem.self).count)
        case "list": for o in realm.objects(CorpusOwner.self) { for e in o.entries { d.add(e.id) } }
        case "lookup": for id in 0..<Corpus.itemCount { d.add(realm.object(ofType: CorpusItem.self, forPrimaryKey: id)?.id ?? -1) }
        default: return usage()
        }
        say("read \(hex(d.value))")
    case ("copy-loop", 3):
        let realm = try Realm(configuration: config)
        var i = 0
        while true {
            try realm.writeCopy(toFile: URL(fileURLWithPath: rest[2] + "\(i)"), encryptionKey: config.encryptionKey)
            say("copied \(i)")
            i += 1
        }
    case ("compact-loop", 2):
        var c = config
        c.shouldCompactOnLaunch = { _, _ in true }
        var i = 0
        while true {
            do { _ = try Realm(configuration: c) }  // closed again at the end of the scope
            say("compacted \(i)")
            i += 1
        }
    case ("compact-limited", 3):
        guard let limit = rlim_t(rest[2]) else { return usage() }
        signal(SIGXFSZ, SIG_IGN)  // a write past the limit then fails with EFBIG instead of killing
        var l = rlimit(rlim_cur: limit, rlim_max: limit)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &l) == 0 else { throw Realm.Error(.invalidState, "setrlimit failed") }
        var c = config
        c.shouldCompactOnLaunch = { _, _ in true }
        do {
            let realm = try Realm(configuration: c)
            let r = Corpus.readAll(realm)
            say("digest \(hex(r.digest)) \(r.items) \(r.entries)")
        } catch let e as Realm.Error {
            say("error \(e.code.rawValue) \(e.message)")
            return 3
        }
    default:
        return usage()
    }
    return 0
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    say("error \(error)")
    exit(2)
}
