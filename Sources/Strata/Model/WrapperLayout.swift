// Which column each `@Persisted` wrapper of an object stands for, and which properties are
// declared without a wrapper in RealmSwift's older form (LegacyDeclarations.swift).
//
// A wrapper keeps its column index (its ordinal) so that a managed access reaches its column with
// one array index and no lookup. The ordinals are stamped by `Object.init`: Swift runs it only
// once every stored property of the whole class hierarchy holds its initial value, so each object
// stamps exactly its own wrappers. A property whose initial value creates another object
// (`@Persisted var dog: Dog? = Dog()`, or a helper that builds several) finishes that object,
// stamps included, before the outer object reaches `Object.init`; nothing is counted across
// objects, so nothing can interleave.
//
// Invariants:
// - A class's layout lists its `@Persisted` wrappers and its properties declared without one in
//   declaration order, superclass first, as `_forEachField` reports them; `ClassInfo` takes its
//   fields from the same layout, so the wrapper of `fields[i]` carries ordinal i, the index of its
//   column. A property without a wrapper has no ordinal to stamp: its accessor knows its column.
// - A wrapper the class names in `ignoredProperties()` is in no layout and never stamped: its
//   ordinal stays -1, so the wrapper keeps its value in memory, managed or not (Persisted.swift),
//   as the plain stored property the model asks for. A ported RealmSwift model marks such a
//   property `@Persisted` with the rest, and storing it would keep what the model discards.
// - Layouts are immutable and live as long as the process (the thread-local fast path holds one
//   without retaining it).
@_spi(Reflection) import Swift
import Synchronization
internal import CStrataThreadLocal

final class WrapperLayout: @unchecked Sendable {
    // @unchecked: immutable after init; the field accessors are never mutated.
    let fields: [AnyFieldIO]
    /// Each wrapper's ordinal and the byte offset, inside an instance, of its ordinal word.
    private let stamps: [(ordinal: Int32, offset: Int)]
    /// Byte offset, inside an instance, of each wrapper's `isBound` flag (ModelCodable.swift).
    private let boundOffsets: [Int]
    /// Whether an instance holds nothing of its own once managed: every stored property the
    /// class adds to `Object` is a `@Persisted` column read from the row, none keeps an accessor,
    /// none is ignored or declared without a wrapper (AccessorRebinding.swift).
    let holdsOnlyColumns: Bool

    private static let cache = Mutex<[ObjectIdentifier: WrapperLayout]>([:])

    private init(_ type: Object.Type) {
        var fields: [AnyFieldIO] = []
        var storedFields = 0
        let ignored = Set(type.ignoredProperties())
        // rawValue 1 is `.classType` (the static is a `var`, which Swift 6 rejects as shared state).
        _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { namePtr, offset, fieldType, _ in
            storedFields += 1
            if let persisted = fieldType as? any _PersistedField.Type {
                var name = String(cString: namePtr)
                if name.hasPrefix("_") { name.removeFirst() }  // the wrapper's storage is `_name`
                if !ignored.contains(name) { fields.append(persisted.makeFieldIO(name: name, offset: offset)) }
            } else if let legacy = fieldType as? any _LegacyDeclarable.Type {
                let name = String(cString: namePtr)
                if !ignored.contains(name) {
                    fields.append(legacy.makeLegacyFieldIO(name: name, offset: offset, column: fields.count))
                }
            }
            return true
        }
        self.fields = fields
        var baseFields = 0
        _forEachField(of: Object.self, options: _EachFieldOptions(rawValue: 1)) { _, _, _, _ in
            baseFields += 1
            return true
        }
        holdsOnlyColumns = storedFields - baseFields == fields.count
            && !fields.contains { $0.isLegacy || $0.keepsManagedAccessor }
        let wrappers = fields.enumerated().filter { !$0.element.isLegacy }
        stamps = wrappers.map { (Int32(truncatingIfNeeded: $0.offset), $0.element.offset + $0.element.ordinalOffsetInWrapper) }
        boundOffsets = wrappers.map { $0.element.offset + $0.element.boundOffsetInWrapper }
    }

    /// The layout of `type`, built the first time it is asked for.
    static func of(_ type: Object.Type) -> WrapperLayout {
        let id = ObjectIdentifier(type)
        if let hit = cache.withLock({ $0[id] }) { return hit }
        let made = WrapperLayout(type)
        return cache.withLock { layouts in
            if let hit = layouts[id] { return hit }
            layouts[id] = made
            return made
        }
    }

    /// Gives each wrapper of `object` its ordinal. Called by `Object.init` for every instance, so
    /// the layout of the class made last on this thread is found without taking the cache's lock.
    static func stamp(_ object: Object) {
        let layout = cached(for: object)
        let base = Unmanaged.passUnretained(object).toOpaque()
        layout.stamps.withUnsafeBufferPointer { stamps in
            for stamp in stamps { (base + stamp.offset).storeBytes(of: stamp.ordinal, as: Int32.self) }
        }
    }

    /// Marks each wrapper of `object` as belonging to a managed object (its value is stale from
    /// then on) or not. Called when an object of an `Encodable` class (`ClassInfo.marksBoundWrappers`)
    /// gets its binding, and when a failed `add` takes it back.
    static func mark(_ object: Object, bound: Bool) {
        let layout = cached(for: object)
        let base = Unmanaged.passUnretained(object).toOpaque()
        layout.boundOffsets.withUnsafeBufferPointer { offsets in
            for offset in offsets { (base + offset).storeBytes(of: bound, as: Bool.self) }
        }
    }

    /// The layout of `object`'s class; the class made last on this thread is found without
    /// taking the cache's lock.
    @inline(__always)
    private static func cached(for object: Object) -> WrapperLayout {
        let type = Swift.type(of: object)
        let key = UInt(bitPattern: ObjectIdentifier(type))
        let layout: WrapperLayout
        if strata_tls_get_layout_type() == key, let cached = strata_tls_get_layout() {
            layout = Unmanaged<WrapperLayout>.fromOpaque(cached).takeUnretainedValue()
        } else {
            layout = of(type)
            strata_tls_set_layout(key, Unmanaged.passUnretained(layout).toOpaque())
        }
        return layout
    }
}
