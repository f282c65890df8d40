// MigrationObject: the objects a migration block reads and writes by property name. As in
// RealmSwift they are DynamicObjects, so code written for one (`old?.name`, `new?["age"] = 3`,
// passing a new view where a DynamicObject is expected) works for the other.
//
// A DynamicObject made by a migration carries a MigrationView, which decides its reads and writes:
// - old: the object as stored before the migration, decoded from a copy of its row with the OLD
//   schema (read-only; setting a value records `.invalidArgument`).
// - new: the managed object of the code's class in the migration's write transaction; reads and
//   writes go through the normal accessors, except the primary key, which a migration may change
//   (its index is rebuilt and checked for duplicates before the commit). Its binding is the
//   object's, so equality and `isSameObject(as:)` hold between views of the same stored object.
// - failed: what `create` hands back when it could not create the object; the migration has
//   already failed, so reads give nil and writes do nothing.
//
// Invariants: unknown property names read as nil and, when set, record `.invalidArgument` (thrown
// when the block returns: the block itself cannot throw). The context is held weakly: once the
// migration is over an old view reads nil and a new view is an ordinary managed DynamicObject.
import Foundation

/// One object inside a migration block, read and written by property name: RealmSwift's
/// `MigrationObject`, which is a ``DynamicObject``.
///
/// ``Migration/enumerateObjects(ofType:_:)`` hands the block two views of each object: the *old*
/// one decodes the row with the schema stored in the file and is read-only; the *new* one is the
/// object of the code's class in the migration's write, so a value set there is stored (a
/// migration may even change a primary key, checked for duplicates before the commit). An unknown
/// property name reads as `nil`; setting it, or setting anything on the old view, makes the
/// migration fail with `Realm.Error` code `.invalidArgument` when the block returns.
public typealias MigrationObject = DynamicObject

struct MigrationView {
    enum Backing {
        case old(schema: ObjectSchema, layout: RowLayout, row: [UInt8])
        case new(object: Object, info: ClassInfo, table: Int)
        case failed
    }

    let backing: Backing
    let key: UInt64
    weak var context: MigrationContext?

    var objectSchema: ObjectSchema {
        switch backing {
        case .old(let schema, _, _): return schema
        case .new(_, let info, _): return info.schema
        case .failed: return ObjectSchema(className: "MigrationObject", properties: [], isEmbedded: false)
        }
    }

    func value(forKey name: String) -> Any? {
        switch backing {
        case .old(let schema, let layout, let row):
            guard let context, let c = schema.allProperties.firstIndex(where: { $0.name == name }) else { return nil }
            return context.decodeOld(schema.allProperties[c], layout.columns[c], row)
        case .new(let object, let info, _):
            // A collection of links holds dynamic objects, as a dynamic object's does (and as
            // RealmSwift gives it: `List<DynamicObject>`).
            if let c = info.columnIndex(named: name), info.schema.allProperties[c].type == .object,
               info.schema.allProperties[c].collection != .none {
                return DynamicObject.view(of: object).typedValue(forKey: name)
            }
            // Inside a migration a link reads as the linked object's new view, as RealmSwift hands out.
            let value = object.typedValue(forKey: name)
            if let linked = value as? Object, !(linked is DynamicObject), let context, let binding = linked._binding {
                return context.newView(className: binding.info.schema.className, key: binding.key) ?? value
            }
            return value
        case .failed:
            return nil
        }
    }

    func setValue(_ value: Any?, forKey name: String) {
        guard let context else { return }
        switch backing {
        case .old(let schema, _, _):
            context.fail(.invalidArgument, "the old '\(schema.className)' object is read-only in a migration (set '\(name)' on the new object)")
        case .new(let object, let info, let table):
            context.set(value, name: name, on: object, info: info, table: table, key: key)
        case .failed:
            return
        }
    }
}

extension DynamicObject {
    /// A migration's view of an object (see ``MigrationObject``).
    static func migrating(_ backing: MigrationView.Backing, key: UInt64, context: MigrationContext) -> DynamicObject {
        let view = DynamicObject()
        view.migrationView = MigrationView(backing: backing, key: key, context: context)
        if case .new(let object, _, _) = backing { view._binding = object._binding }
        return view
    }

    /// The object this new view stands for; nil for an old view or a failed creation.
    var migratedObject: Object? {
        if case .new(let object, _, _)? = migrationView?.backing { return object }
        return nil
    }
}
