// What a class declares by overriding class methods: RealmSwift's older way to declare a primary
// key and indexes (`primaryKey()`, `indexedProperties()`), and the names the file stores
// properties under (`propertiesMapping()`). Discovery asks the class; the base implementations of
// the first two, which answer from the schema being discovered, answer "nothing declared" while
// it asks.
//
// Invariants: an override only adds; a primary key declared both ways must be the same property;
// a mapping names persisted properties only.

enum SchemaOverrides {
    @TaskLocal static var isAsking = false

    /// Marks the properties `type`'s overrides name as primary key or indexed.
    ///
    /// - Throws: `.invalidSchema` for a name that is no property, or a primary key that differs
    ///   from the declared one.
    static func apply(of type: Object.Type, to properties: inout [Property]) throws(Realm.Error) {
        let (primaryKey, indexed) = $isAsking.withValue(true) { (type.primaryKey(), type.indexedProperties()) }
        let className = type.className()
        if let primaryKey {
            guard let i = properties.firstIndex(where: { $0.name == primaryKey }) else {
                throw Realm.Error(.invalidSchema, "'\(className).primaryKey()' names '\(primaryKey)', which is not a persisted property")
            }
            if let declared = properties.first(where: \.isPrimary), declared.name != primaryKey {
                throw Realm.Error(.invalidSchema, "'\(className)' declares '\(declared.name)' as its primary key and names '\(primaryKey)' in primaryKey()")
            }
            properties[i].isPrimary = true
            properties[i].isIndexed = true
        }
        for name in indexed {
            guard let i = properties.firstIndex(where: { $0.name == name }) else {
                throw Realm.Error(.invalidSchema, "'\(className).indexedProperties()' names '\(name)', which is not a persisted property")
            }
            properties[i].isIndexed = true
        }
    }

    /// Gives the properties `type.propertiesMapping()` names their column names.
    ///
    /// - Throws: `.invalidSchema` for a name that is no persisted property.
    static func applyColumnNames(of type: Object.Type, to properties: inout [Property]) throws(Realm.Error) {
        for (name, column) in type.propertiesMapping().sorted(by: { $0.key < $1.key }) {
            guard let i = properties.firstIndex(where: { $0.name == name }) else {
                throw Realm.Error(.invalidSchema, "'\(type.className()).propertiesMapping()' maps '\(name)', which is not a persisted property")
            }
            properties[i].columnName = column
        }
    }
}
