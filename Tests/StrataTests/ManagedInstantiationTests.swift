// Objects handed out for stored rows are instantiated under a per-thread mark that skips the
// costly declaration defaults (Model/ManagedInstantiation.swift); objects an application makes
// still get the current date, a random UUID and a new ObjectId, and managed reads give the stored
// values, never the skipped defaults.
import Foundation
import Synchronization
import Testing
@testable import Strata
import StrataTestSupport

final class InstantiationProbe: Object {
    @Persisted var created: Date
    @Persisted var token: UUID
    @Persisted var stamp: ObjectId
    @Persisted var n = 0

    /// Whether the mark was set, for each instantiation since the last `takeMarks()`.
    static let marks = Mutex<[Bool]>([])

    static func takeMarks() -> [Bool] { marks.withLock { let m = $0; $0.removeAll(); return m } }

    required init() {
        super.init()
        let active = ManagedInstantiation.isActive
        InstantiationProbe.marks.withLock { $0.append(active) }
    }
}

@Suite(.serialized) struct ManagedInstantiationTests {
    @Test func storedRowsAreInstantiatedUnderTheMarkAndReadTheirStoredValues() throws {
        let realm = try Realm(configuration: memoryConfig())
        _ = InstantiationProbe.takeMarks()
        let made = (0..<3).map { i -> InstantiationProbe in
            let o = InstantiationProbe()
            o.created = Date(timeIntervalSince1970: 1_000_000 + Double(i))
            o.n = i
            return o
        }
        // (The first use of the class may make one more probe object, also unmarked.)
        let madeMarks = InstantiationProbe.takeMarks()
        #expect(madeMarks.count >= 3 && !madeMarks.contains(true), "an application's objects never see the mark")
        let tokens = made.map(\.token), stamps = made.map(\.stamp)
        try realm.write { realm.add(made) }
        _ = InstantiationProbe.takeMarks()

        let read = Array(realm.objects(InstantiationProbe.self).sorted(byKeyPath: "n"))
        #expect(read.count == 3)
        #expect(InstantiationProbe.takeMarks() == [true, true, true])
        #expect(read.map(\.created) == (0..<3).map { Date(timeIntervalSince1970: 1_000_000 + Double($0)) })
        #expect(read.map(\.token) == tokens)
        #expect(read.map(\.stamp) == stamps)

        // The mark is gone afterwards: a new object gets the time it was made and fresh values.
        let before = Date()
        let fresh = InstantiationProbe()
        #expect(InstantiationProbe.takeMarks() == [false])
        #expect(fresh.created >= before.addingTimeInterval(-0.05))
        #expect(!tokens.contains(fresh.token) && !stamps.contains(fresh.stamp))
        #expect(!ManagedInstantiation.isActive)
    }

    @Test func theMarkIsRestoredAfterNestedInstantiation() {
        #expect(!ManagedInstantiation.isActive)
        let outer: InstantiationProbe = ManagedInstantiation.make {
            let inner: InstantiationProbe = ManagedInstantiation.make { InstantiationProbe() }
            #expect(ManagedInstantiation.isActive, "still inside the outer instantiation")
            _ = inner
            return InstantiationProbe()
        }
        _ = outer
        #expect(!ManagedInstantiation.isActive)
        #expect(InstantiationProbe.takeMarks() == [true, true])
    }
}
