// The Realm configuration a Strata case opens, built in one place for the sensors engine and the
// read store: `memory` is Realm's in-memory realm (which Strata keeps as memOnly, said once, here),
// `full` and `unsafe` a file in the case's directory, and the case's key when encrypted.

import Foundation
import Strata

struct StrataConfiguration {
    let realm: Realm.Configuration
    /// The store's file; nil in memory.
    let path: String?

    init(_ configuration: EngineConfiguration, objectTypes: [Object.Type], fileName: String, memoryName: String) {
        var config = Realm.Configuration(objectTypes: objectTypes)
        switch configuration.durability {
        case .memory:
            config.inMemoryIdentifier = "\(memoryName)-\(UUID().uuidString)"
            path = nil
        case .full, .unsafe:
            config.durability = configuration.durability == .full ? .full : .unsafe
            let path = (configuration.directory as NSString).appendingPathComponent(fileName)
            config.fileURL = URL(fileURLWithPath: path)
            self.path = path
        }
        config.encryptionKey = configuration.encryptionKey.map { Data($0) }
        realm = config
    }

    /// The settings the store really runs with, for the CSV's `engine_settings`.
    var effectiveSettings: String {
        "durability=\(realm.effectiveDurability.rawValue);encryption=\(realm.encryptionKey == nil ? "off" : "on")"
    }
}
