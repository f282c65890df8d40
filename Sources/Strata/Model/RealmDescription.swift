// How objects and collections print (`description`, `print(dog)`), in RealmSwift's format, so
// that logs and debugger output read the same after a port:
//
//     Dog {
//         name = Rex;
//         owner = Person {
//             name = Ann;
//         };
//         tags = List<string> <0x600000c0a2e0> (
//             [0] good,
//             [1] loud
//         );
//     }
//
// Invariants:
// - Nesting stops at a depth of 5 (`<Maximum depth exceeded>`), so a cycle of links prints.
// - A collection prints at most 100 elements, then how many it skipped.
// - Values print as Foundation prints them in RealmSwift: a Bool as 0/1, a Float to 7 significant
//   digits and a Double to 16 (`NSNumber`'s `%0.7g` and `%0.16g`: `1.23`, `12.3`, `4`), a
//   Decimal128 as realm-core writes it (`1.23E6`, Decimal128Text.swift), nil as `(null)`, data as
//   its first bytes in hex and its length; an enum or a custom-persisted value as its stored form
//   (what key-value coding reads).
// - Classes print by their Swift names, as RealmSwift's `objectSchema.className` names them, even
//   when `_realmObjectName()` stores them under another name.
// - Linking-objects properties are not printed (they are computed, not stored).
import Foundation

/// A value that prints itself to a bounded depth (objects and collections).
protocol DescribableToDepth {
    func description(depth: Int) -> String
}

extension Object: DescribableToDepth {}

enum RealmDescription {
    /// How deep `description` nests objects and collections.
    static let maxDepth = 5
    /// How many elements a collection prints.
    static let maxElements = 100

    /// `Class {\n\tname = value;\n…}` with the properties of `schema` read by `value`.
    static func object(_ schema: ObjectSchema, named className: String, depth: Int, value: (String) -> Any?) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        var text = "\(className) {\n"
        for property in schema.allProperties where property.type != .linkingObjects {
            let sub = describe(value(property.name), depth: depth - 1)
            text += "\t\(property.name) = \(indented(sub));\n"
        }
        return text + "}"
    }

    /// `Name<Type> <0x…> (\n\t[0] element,\n…\n)`.
    static func collection<S: Sequence>(_ name: String, of typeName: String, address: String,
                                        count: Int, elements: S, depth: Int) -> String {
        listing("\(name)<\(typeName)> <\(address)>", count: count, depth: depth,
                items: elements.enumerated().lazy.map { (label: "\t[\($0.offset)] ", value: $0.element as Any?) })
    }

    /// `Map<string, Type> <0x…> (\n[key]: value,\n…\n)`: RealmSwift does not indent the entries.
    static func map<S: Sequence>(of typeName: String, address: String, count: Int,
                                 entries: S, depth: Int) -> String where S.Element == (key: String, value: Any?) {
        listing("Map<string, \(typeName)> <\(address)>", count: count, depth: depth,
                items: entries.lazy.map { (label: "[\($0.key)]: ", value: $0.value) })
    }

    /// `header (\n<label>value,\n…\n)` for the first `maxElements` of `count` items, each value
    /// printed one level deeper, then how many were skipped.
    private static func listing<S: Sequence>(_ header: String, count: Int, depth: Int, items: S) -> String
    where S.Element == (label: String, value: Any?) {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        let lines = items.prefix(maxElements).map { $0.label + indented(describe($0.value, depth: depth - 1)) }
        var text = header + " (\n" + lines.joined(separator: ",\n")
        if count > maxElements { text += "\n\t... \(count - maxElements) objects skipped." }
        return text + "\n)"
    }

    /// One value, as a property or an element prints it.
    static func describe(_ value: Any?, depth: Int) -> String {
        guard let value, !(value is NSNull) else { return "(null)" }
        switch value {
        case let nested as DescribableToDepth: return nested.description(depth: depth)
        case let mixed as AnyRealmValue:
            return mixed == .none ? "(null)" : describe(mixed._strataAny, depth: depth)
        // Key-value coding reads numbers as `NSNumber`s, which also cast to `Double` (a Float's
        // 1.23 as 1.2300000190734863): the type they were made from decides the digits.
        case let n as NSNumber where type(of: value) is NSNumber.Type: return number(n)
        case let b as Bool: return b ? "1" : "0"
        case let d as Double: return number(d, digits: 16)
        case let f as Float: return number(Double(f), digits: 7)
        case let data as Data: return bytes(data)
        case let id as ObjectId: return id.stringValue
        case let uuid as UUID: return uuid.uuidString
        case let optional as _BoxedOptional: return describe(optional._unwrappedAny, depth: depth)
        default: return "\(value)"
        }
    }

    /// The address RealmSwift prints for a collection: the instance's for a class, else a stable
    /// hash of what the value stands for.
    static func address(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }

    static func address(hashing value: some Hashable) -> String {
        "0x" + String(UInt(bitPattern: value.hashValue) >> 4, radix: 16)
    }

    /// The name RealmSwift prints for an element type: a class's Swift name, or the stored type's name.
    static func typeName(of shape: _PropertyShape) -> String {
        if let objectType = shape.objectType { return swiftName(of: objectType) }
        switch shape.type {
        case .objectId: return "object id"
        case .any: return "mixed"
        default: return shape.type.description
        }
    }

    /// A nested description indented one level deeper.
    private static func indented(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n\t")
    }

    /// The name RealmSwift prints for a model class: its Swift name (`objectSchema.className`
    /// there), whatever name `_realmObjectName()` stores it under.
    static func swiftName(of type: Object.Type) -> String {
        type is DynamicObject.Type ? type.className() : String(describing: type)
    }

    /// A number as `NSNumber`'s `description` prints it on Apple platforms: floating-point to 7
    /// (a `Float`) or 16 (a `Double`) significant digits, integers as themselves and Booleans as
    /// 0 and 1 (Foundation's own `description` of them).
    private static func number(_ value: NSNumber) -> String {
        switch UInt8(bitPattern: value.objCType.pointee) {
        case UInt8(ascii: "f"): return number(Double(value.floatValue), digits: 7)
        case UInt8(ascii: "d"): return number(value.doubleValue, digits: 16)
        default: return value.description
        }
    }

    /// `%0.{digits}g`: `1.23`, `12.3`, `4`, `1e+16`, `nan`, `inf`.
    private static func number(_ value: Double, digits: Int) -> String {
        String(format: "%0.\(digits)g", value)
    }

    /// `<61626364 65 — 5 total bytes>`: at most the first 24 bytes, in groups of four.
    private static func bytes(_ data: Data) -> String {
        let shown = data.prefix(24)
        var hex = ""
        for (i, byte) in shown.enumerated() {
            if i > 0, i % 4 == 0 { hex += " " }
            hex += String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return "<\(hex) — \(data.count) total bytes>"
    }
}

// MARK: - The collections

extension Sequence {
    /// `Name<Type> <address> (…)` of these `count` elements, stored as `shape` describes.
    func elementsDescription(_ name: String, of shape: _PropertyShape, count: Int, address: String, depth: Int) -> String {
        RealmDescription.collection(name, of: RealmDescription.typeName(of: shape), address: address,
                                    count: count, elements: lazy.map { $0 as Any? }, depth: depth)
    }
}

extension List: DescribableToDepth {
    func description(depth: Int) -> String {
        elementsDescription("List", of: Element._strataShape, count: count, address: RealmDescription.address(of: self), depth: depth)
    }
}

extension MutableSet: DescribableToDepth {
    func description(depth: Int) -> String {
        elementsDescription("MutableSet", of: Element._strataShape, count: count, address: RealmDescription.address(of: self), depth: depth)
    }
}

extension Results: DescribableToDepth {
    func description(depth: Int) -> String {
        elementsDescription("Results", of: Element._strataShape, count: count, address: RealmDescription.address(of: cache), depth: depth)
    }
}

extension LinkingObjects: DescribableToDepth {
    func description(depth: Int) -> String {
        elementsDescription("LinkingObjects", of: Element._strataShape, count: count, address: RealmDescription.address(hashing: ObjectIdentifier(Element.self)), depth: depth)
    }
}

extension AnyRealmCollection: DescribableToDepth {
    func description(depth: Int) -> String {
        // `as? AnyObject` always succeeds on Linux (a value is boxed anew each time), so ask the
        // dynamic type whether the wrapped collection is an instance with an address.
        let address = type(of: base) is AnyObject.Type ? RealmDescription.address(of: base as AnyObject)
            : RealmDescription.address(hashing: ObjectIdentifier(Element.self))
        return elementsDescription("AnyRealmCollection", of: Element._strataShape, count: count, address: address, depth: depth)
    }
}

extension Map: DescribableToDepth {
    func description(depth: Int) -> String {
        RealmDescription.map(of: RealmDescription.typeName(of: Value._strataShape),
                             address: RealmDescription.address(of: self), count: count,
                             entries: self.lazy.map { (key: "\($0.key)", value: $0.value as Any?) }, depth: depth)
    }
}
