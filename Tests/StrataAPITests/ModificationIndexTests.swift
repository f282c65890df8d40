// Where a modification is reported: at the object's index in the collection as it was before the
// write, like a deletion, while an insertion is at its index after the write. That is the order
// a table view's batch update takes (delete and reload the rows it shows, insert the rows it
// will show), and what RealmSwift reports, so code ported from it reloads the right rows.
import Foundation
import Strata
import StrataTestSupport
import Testing

final class RosterPerson: Object {
    @Persisted var name = ""
    @Persisted var rank = 0
    @Persisted var team: RosterTeam?
}

final class RosterTeam: Object {
    @Persisted var members: List<RosterPerson>
    @Persisted var squad: MutableSet<RosterPerson>
    @Persisted var calls: List<String>
    @Persisted(originProperty: "team") var roster: LinkingObjects<RosterPerson>
}

@Suite("Modification indices")
struct ModificationIndexTests {
    typealias Change = (deletions: [Int], insertions: [Int], modifications: [Int])
    /// A person's own properties: every person links to the team, whose lists each write
    /// below changes, and that change of a linked object would modify every person.
    static let own = ["name", "rank"]

    /// A realm holding one team of Ann, Bob and Cy (ranks 0, 1, 2) in every collection.
    private func roster() throws -> (Realm, RosterTeam, [RosterPerson]) {
        var configuration = Realm.Configuration(inMemoryIdentifier: "roster-\(UUID())")
        configuration.objectTypes = [RosterPerson.self, RosterTeam.self]
        let realm = try Realm(configuration: configuration)
        let team = RosterTeam()
        let people = ["Ann", "Bob", "Cy"].enumerated().map { RosterPerson(value: ["name": $1, "rank": $0]) }
        try realm.write {
            realm.add(team)
            for person in people {
                person.team = team
                team.members.append(person)
                team.squad.insert(person)
            }
            team.calls.append(objectsIn: ["hut", "hike", "go"])
        }
        return (realm, team, people)
    }

    private func record<C>(_ change: RealmCollectionChange<C>, into log: inout [Change]) {
        if case let .update(_, deletions, insertions, modifications) = change {
            log.append((deletions, insertions, modifications))
        }
    }

    @Test func resultsReportTheModifiedObjectWhereItWas() throws {
        let (realm, _, people) = try roster()
        var log: [Change] = []
        let token = realm.objects(RosterPerson.self).sorted(byKeyPath: "rank").observe(keyPaths: Self.own) { record($0, into: &log) }
        defer { token.invalidate() }
        // Ann (0) goes and Cy (2), now at 1, is renamed: Cy was at 2.
        try realm.write {
            realm.delete(people[0])
            people[2].name = "Cyd"
        }
        try #require(log.count == 1)
        #expect(log[0].deletions == [0] && log[0].insertions.isEmpty && log[0].modifications == [2])
        // An insertion before a modified object does not shift it either.
        try realm.write {
            realm.add(RosterPerson(value: ["name": "Abe", "rank": -1]))
            people[1].name = "Bo"
        }
        try #require(log.count == 2)
        #expect(log[1].deletions.isEmpty && log[1].insertions == [0] && log[1].modifications == [0])
    }

    @Test func listsAndSetsOfObjectsReportTheModifiedObjectWhereItWas() throws {
        let (realm, team, people) = try roster()
        var members: [Change] = [], squad: [Change] = []
        let a = team.members.observe(keyPaths: Self.own) { record($0, into: &members) }
        let b = team.squad.observe(keyPaths: Self.own) { record($0, into: &squad) }
        defer { a.invalidate(); b.invalidate() }
        // A set has its own order: where Ann and Cy were in it before the write.
        let before = team.squad.map(\.name)
        let annWas = try #require(before.firstIndex(of: "Ann")), cyWas = try #require(before.firstIndex(of: "Cy"))
        try realm.write {
            team.members.remove(at: 0)
            team.squad.remove(people[0])
            people[2].rank = 9
        }
        try #require(members.count == 1)
        #expect(members[0].deletions == [0] && members[0].insertions.isEmpty && members[0].modifications == [2])
        try #require(squad.count == 1)
        #expect(squad[0].deletions == [annWas] && squad[0].modifications == [cyWas])
    }

    @Test func aListOfValuesReportsTheReplacedValueWhereItWas() throws {
        let (realm, team, _) = try roster()
        var log: [Change] = []
        let token = team.calls.observe { record($0, into: &log) }
        defer { token.invalidate() }
        try realm.write {
            team.calls.remove(at: 0)
            team.calls[1] = "stop"  // "go", at 2 before the write
        }
        try #require(log.count == 1)
        #expect(log[0].deletions == [0] && log[0].insertions.isEmpty && log[0].modifications == [2])
    }

    @Test func linkingObjectsReportTheModifiedObjectWhereItWas() throws {
        let (realm, team, people) = try roster()
        var log: [Change] = []
        let token = team.roster.sorted(byKeyPath: "rank").observe(keyPaths: Self.own) { record($0, into: &log) }
        defer { token.invalidate() }
        try realm.write {
            people[0].team = nil
            people[2].name = "Cyd"
        }
        try #require(log.count == 1)
        #expect(log[0].deletions == [0] && log[0].modifications == [2])
    }

    @Test func sectionedResultsReportTheModifiedObjectWhereItWas() throws {
        let (realm, _, people) = try roster()
        try realm.write { realm.add(RosterPerson(value: ["name": "Al", "rank": 3])) }
        let sections = realm.objects(RosterPerson.self).sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        var log: [[IndexPath]] = []
        let token = sections.observe(keyPaths: Self.own) { change in
            if case let .update(_, _, _, modifications, _, _) = change { log.append(modifications) }
        }
        defer { token.invalidate() }
        // Sections A (Al, Ann), B (Bob), C (Cy). A goes; Cy, in section 2 before, is modified.
        try realm.write {
            realm.delete(realm.objects(RosterPerson.self).filter("name BEGINSWITH 'A'"))
            people[2].rank = 7
        }
        try #require(log.count == 1)
        #expect(log[0] == [IndexPath(item: 0, section: 2)])
    }
}
