// A projection as a collection value: `Results<PersonView>` reads the root class's objects and
// gives each as a projection. Stored anywhere (a property, a collection element), a projection is
// its root object: every storage requirement is the root's, applied to `rootObject`.
extension Projection: RealmFetchable {
    public static var _strataFetchedClass: Object.Type { Root.self }

    public static var _strataShape: _PropertyShape { Root._strataShape }
    public static func _strataDefault() -> Self { Self(projecting: Root._strataDefault()) }
    public static func _strataGet(_ obj: Object, _ ordinal: Int) -> Self { Self(projecting: Root._strataGet(obj, ordinal)) }
    public static func _strataSet(_ obj: Object, _ ordinal: Int, _ value: Projection) {
        Root._strataSet(obj, ordinal, value.rootObject)
    }
    public func _strataStore(_ row: inout _RowBuilder, _ column: _Column) throws {
        try rootObject._strataStore(&row, column)
    }
    public var _strataAny: Any? { rootObject }
    public static func _strataFromAny(_ any: Any?) -> Self? {
        if let projection = any as? Self { return projection }
        return Root._strataFromAny(any).map { Self(projecting: $0) }
    }
    public static func _strataRead(_ row: _RowView, _ column: _Column) -> Self? {
        Root._strataRead(row, column).map { Self(projecting: $0) }
    }
    public static func _strataStoreNull(_ row: inout _RowBuilder, _ column: _Column) throws {
        try Root._strataStoreNull(&row, column)
    }
    public static func _strataDecodeElement(_ element: _ElementView) -> Self {
        Self(projecting: Root._strataDecodeElement(element))
    }
    public func _strataEncodeElement(_ out: inout _ElementBuffer) throws {
        try rootObject._strataEncodeElement(&out)
    }

    /// A projection is stored as its root object.
    public typealias PersistedType = Object
    public var _strataPersistedValue: Object { rootObject }
    public static func _strataFromPersisted(_ persisted: Object) -> Self? {
        (persisted as? Root).map { Self(projecting: $0) }
    }

    public static func _strataFromObject(_ object: Object) -> Self {
        Self(projecting: unsafeDowncast(object, to: Root.self))
    }
}
