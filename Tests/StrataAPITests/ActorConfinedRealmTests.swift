// Realms confined to an actor (`Realm(configuration:actor:)`, `Realm.open`), and observation
// delivered on an actor (`observe(on: actor)`): used on the actor only, notified there of commits
// made anywhere, without a refresh call.
import Foundation
import Strata
import StrataTestSupport
import Testing

/// An actor that records what its realm and its observers see.
actor DogShelter {
    let configuration: Realm.Configuration
    private(set) var realm: Realm?
    private(set) var counts: [Int] = []
    private(set) var names: [String] = []
    var token: NotificationToken?

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func open() async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func openAgainIsTheSameInstance() async throws -> Bool {
        // RealmSwift's download setting, which a realm without synchronization ignores.
        let again = try await Realm(configuration: configuration, actor: self)
        let downloading = try await Realm(configuration: configuration, actor: self, downloadBeforeOpen: .always)
        return again == realm && downloading == realm
    }

    func addDog(_ id: String) throws {
        guard let realm else { return }
        try realm.write { realm.create(Dog.self, value: ["id": id, "name": id]) }
    }

    func dogCount() -> Int { realm?.objects(Dog.self).count ?? -1 }

    func observeDogs() {
        token = realm?.objects(Dog.self).observe { [weak self] change in
            guard let self else { return }
            let count: Int
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): count = dogs.count
            case .error: count = -1
            }
            // The actor's realm delivers on the actor.
            self.assumeIsolated { $0.counts.append(count) }
        }
    }

    func record(_ count: Int) { counts.append(count) }

    func smuggledRealm() -> SmuggledRealm { SmuggledRealm(realm: realm) }
    func record(name: String) { names.append(name) }

    func refreshedAsync() async -> Bool { await realm?.asyncRefresh() ?? false }

    func openedWithOpen() async throws -> Int {
        let realm = try await Realm.open(configuration: configuration)
        let same = try await Realm(configuration: configuration, downloadBeforeOpen: .never)
        return realm == same ? realm.objects(Dog.self).count : -1
    }
}

struct SmuggledRealm: @unchecked Sendable {
    let realm: Realm?
}

/// Waits (up to 10 s) until `condition` holds.
private func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<1_000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}

@Suite("Actor-confined realms")
struct ActorConfinedRealmTests {
    private func configuration() -> Realm.Configuration {
        var configuration = tempConfig("actor")
        configuration.objectTypes = [Dog.self, Person.self]
        return configuration
    }

    @Test func anActorsRealmIsUsedOnTheActorAndCached() async throws {
        let kennel = DogShelter(configuration: configuration())
        try await kennel.open()
        try await kennel.addDog("rex")
        #expect(await kennel.dogCount() == 1)
        #expect(try await kennel.openAgainIsTheSameInstance())
        #expect(try await kennel.openedWithOpen() == 1)
    }

    @Test func observersOfAnActorsRealmHearCommitsMadeElsewhere() async throws {
        let configuration = configuration()
        let kennel = DogShelter(configuration: configuration)
        try await kennel.open()
        await kennel.observeDogs()
        #expect(await eventually { await kennel.counts == [0] })
        try runOnNewThread {
            let realm = try? Realm(configuration: configuration)
            _ = try? realm?.write { realm?.create(Dog.self, value: ["id": "ace", "name": "Ace"]) }
        }
        #expect(await eventually { await kennel.counts == [0, 1] })
        #expect(await kennel.dogCount() == 1)
    }

    @Test func asyncRefreshMovesToTheNewestVersion() async throws {
        let configuration = configuration()
        let kennel = DogShelter(configuration: configuration)
        try await kennel.open()
        _ = await kennel.dogCount()
        try runOnNewThread {
            let realm = try? Realm(configuration: configuration)
            _ = try? realm?.write { realm?.create(Dog.self, value: ["id": "cy", "name": "Cy"]) }
        }
        // The actor's realm may have been advanced by its watcher already; either way it now
        // sees the commit.
        _ = await kennel.refreshedAsync()
        #expect(await kennel.dogCount() == 1)
    }

    @MainActor @Test func resultsAndObjectsAreObservedOnAnActor() async throws {
        let configuration = configuration()
        let kennel = DogShelter(configuration: configuration)
        // Async code on the main actor opens a realm confined to it (it may hop threads).
        let realm = try await Realm.open(configuration: configuration)
        let dog = try realm.write { realm.create(Dog.self, value: ["id": "rex", "name": "Rex"]) }
        let resultsToken = await realm.objects(Dog.self).observe(on: kennel) { kennel, change in
            kennel.assertIsolated()
            if case .update(let dogs, _, _, _) = change { kennel.record(dogs.count) }
            if case .initial(let dogs) = change { kennel.record(dogs.count) }
        }
        let objectToken = await dog.observe(keyPaths: [\Dog.name], on: kennel) { (kennel: isolated DogShelter, change: ObjectChange<Dog>) in
            if case .change(let changed, _) = change { kennel.record(name: changed.name) }
        }
        #expect(await eventually { await kennel.counts == [1] })
        try realm.write {
            dog.name = "Rex II"
            realm.create(Dog.self, value: ["id": "ace", "name": "Ace"])
        }
        #expect(await eventually { await kennel.counts == [1, 2] })
        #expect(await eventually { await kennel.names == ["Rex II"] })
        resultsToken.invalidate()
        objectToken.invalidate()
    }

    @Test func anUnmanagedCollectionObservedOnAnActorStops() async {
        await #expect(processExitsWith: .failure) {
            let kennel = DogShelter(configuration: Realm.Configuration(inMemoryIdentifier: "actor-unmanaged"))
            _ = await List<Int>().observe(on: kennel) { _, _ in }
        }
    }

    @Test func aTaskCancelledBeforeObservationRegistersNothing() async throws {
        let configuration = configuration()
        let kennel = DogShelter(configuration: configuration)
        let outcome = LockedBox<Bool?>(nil)
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            let realm = try await Realm.open(configuration: configuration)
            let token = await realm.objects(Dog.self).observe(on: kennel) { kennel, _ in kennel.record(99) }
            outcome.set(token.invalidate())
        }
        _ = await task.result
        #expect(outcome.get() == false)
        #expect(await kennel.counts.isEmpty)
    }

    @Test func invalidatingReportsWhetherItStoppedAnObservation() async throws {
        let kennel = DogShelter(configuration: configuration())
        try await kennel.open()
        await kennel.observeDogs()
        let token = try #require(await kennel.token)
        #expect(token.invalidate())
        #expect(!token.invalidate())
    }

    @Test func openingOutsideAnActorThrows() async throws {
        let configuration = configuration()
        let error = await #expect(throws: Realm.Error.self) {
            try await Task.detached { _ = try await Realm.open(configuration: configuration) }.value
        }
        #expect(error?.code == .invalidState)
    }

    @Test func anActorsRealmUsedOffTheActorStops() async {
        await #expect(processExitsWith: .failure) {
            let kennel = DogShelter(configuration: Realm.Configuration(inMemoryIdentifier: "actor-misuse"))
            try await kennel.open()
            // Swift refuses to move the realm off its actor; the misuse needs an unchecked box.
            let smuggled = await kennel.smuggledRealm()
            let thread = Thread { _ = smuggled.realm?.objects(Dog.self).count }
            thread.start()
            while !thread.isFinished { usleep(1_000) }
        }
    }
}
