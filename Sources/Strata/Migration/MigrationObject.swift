// MigrationObject: the dictionary-style view of one object inside a migration block.
//
// Two kinds:
// - old: the object as stored before the migration, decoded from a copy of its row with the OLD
//   schema (read-only; setting a value records `.invalidArgument`).
// - new: the managed object of the code's class in the migration's write transaction; reads and
//   writes go through the normal accessors, except the primary key, which a migration may change
//   (its index is rebuilt and checked for duplicates before the commit).
//
// Invariants: a MigrationObject is only used inside the migration block, on the opening thread.
// Unknown property names read as nil and, when set, record `.invalidArgument` (thrown when the
// block returns: the block itself cannot throw).
import Foundation

/// One object inside a migration block, read and written by property name.
///
/// ``Migration/enumerateObjects(ofType:_:)`` hands the block two views of each object: the *old*
/// one decodes the row with the schema stored in the file and is read-only; the *new* one is the
/// object of the code's class in the migration's write, so a value set there is stored (a
/// migration may even change a primary key, checked for duplicates before the commit). An unknown
/// property name reads as `nil`; setting it, or setting anything on the old view, makes the
/// migration fail with `Realm.Error` code `.invalidArgument` when the block returns.
public final class MigrationObject: CustomStringConvertible {
    enum Backing {
        case old(schema: ObjectSchema, layout: RowLayout, row: [UInt8])
        case new(object: Object, info: ClassInfo, table: Int)
    }

    let backing: Backing
    let key: UInt64
    unowned let context: MigrationContext

    init(_ backing: Backing, key: UInt64, context: MigrationContext) {
        self.backing = backing
        self.key = key
        self.context = context
    }

    /// The schema this view decodes with (old or new).
    public var objectSchema: ObjectSchema {
        switch backing {
        case .old(let schema, _, _): return schema
        case .new(_, let info, _): return info.schema
        }
    }

    public var description: String {
        let values = objectSchema.properties.map { "\($0.name) = \(String(describing: self[$0.name] ?? "nil"))" }
        return "\(objectSchema.className) { \(values.joined(separator: "; ")) }"
    }

    /// The value of a property, read or written by name.
    ///
    /// Reading gives `nil` for a `nil` value and for an unknown name; on the old view, collection
    /// properties read as `nil` and a link reads as the new view of the linked object. Writing is
    /// allowed on the new view only; on the old view, or for an unknown name, it makes the migration
    /// fail with `Realm.Error` code `.invalidArgument` once the block returns.
    ///
    /// - Parameter name: the property's name in this view's schema.
    public subscript(name: String) -> Any? {
        get {
            switch backing {
            case .old(let schema, let layout, let row):
                guard let c = schema.properties.firstIndex(where: { $0.name == name }) else { return nil }
                return context.decodeOld(schema.properties[c], layout.columns[c], row)
            case .new(let object, _, _):
                return object.value(forKey: name)
            }
        }
        set {
            switch backing {
            case .old(let schema, _, _):
                context.fail(.invalidArgument, "the old '\(schema.className)' object is read-only in a migration (set '\(name)' on the new object)")
            case .new(let object, let info, let table):
                context.set(newValue, name: name, on: object, info: info, table: table, key: key)
            }
        }
    }
}
