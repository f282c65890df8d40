// `strata schema`: the classes a file stores, as Swift-like declarations or as JSON.
import Foundation
import Strata

public enum SchemaListing {
    /// One `class` block per class, properties in declaration (storage) order.
    public static func swift(_ schema: [ObjectSchema]) -> String {
        schema.map { s in
            let header = "class \(s.className): \(s.isEmbedded ? "EmbeddedObject" : "Object") {"
            let body = s.allProperties.map { "    " + declaration($0) }
            return ([header] + body + ["}"]).joined(separator: "\n")
        }.joined(separator: "\n\n") + "\n"
    }

    static func declaration(_ p: Property) -> String {
        let element = p.objectClassName ?? swiftType(p.type)
        let optional = p.isOptional && p.type != .any ? "?" : ""
        if p.type == .linkingObjects {
            return "@Persisted(originProperty: \"\(p.linkOriginPropertyName ?? "?")\") var \(p.name): LinkingObjects<\(element)>"
        }
        let type: String
        switch p.collection {
        case .none: type = element + (p.type == .object ? "?" : optional)
        case .list: type = "List<\(element)\(optional)>"
        case .set: type = "MutableSet<\(element)\(optional)>"
        case .map: type = "Map<String, \(element)\(p.type == .object ? "?" : optional)>"
        }
        let attribute = p.isPrimary ? "@Persisted(primaryKey: true)" : p.isIndexed ? "@Persisted(indexed: true)" : "@Persisted"
        return "\(attribute) var \(p.name): \(type)"
    }

    static func swiftType(_ t: PropertyType) -> String {
        switch t {
        case .int: "Int"
        case .bool: "Bool"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .decimal128: "Decimal128"
        case .objectId: "ObjectId"
        case .uuid: "UUID"
        case .any: "AnyRealmValue"
        case .object, .linkingObjects: "Object"
        }
    }

    public static func json(_ schema: [ObjectSchema]) -> String {
        JSONValue.array(schema.map { s in
            .object([
                ("name", .string(s.className)),
                ("embedded", .bool(s.isEmbedded)),
                ("properties", .array(s.allProperties.map { p in
                    var members: [(String, JSONValue)] = [
                        ("name", .string(p.name)),
                        ("type", .string(p.type.description)),
                        ("collection", .string(collectionName(p.collection))),
                        ("optional", .bool(p.isOptional)),
                        ("primaryKey", .bool(p.isPrimary)),
                        ("indexed", .bool(p.isIndexed)),
                    ]
                    if let target = p.objectClassName { members.append(("objectClass", .string(target))) }
                    if let origin = p.linkOriginPropertyName { members.append(("originProperty", .string(origin))) }
                    return .object(members)
                })),
            ])
        }).text() + "\n"
    }

    static func collectionName(_ c: CollectionKind) -> String {
        switch c {
        case .none: "none"
        case .list: "list"
        case .set: "set"
        case .map: "map"
        }
    }
}

extension SchemaListing {
    /// The schema written by `json(_:)`, read back (for `strata import --schema`).
    public static func parse(_ text: String, source: String) throws(ToolError) -> [ObjectSchema] {
        func fail(_ what: String) -> ToolError { ToolError("\(source): \(what)") }
        guard case .array(let classes) = try JSONParser.parse(text, source: source) else { throw fail("expected an array of classes") }
        return try classes.map { (c) throws(ToolError) -> ObjectSchema in
            guard case .object(let m) = c, case .string(let name)? = m.first(where: { $0.0 == "name" })?.1,
                  case .array(let props)? = m.first(where: { $0.0 == "properties" })?.1 else {
                throw fail("a class is {\"name\": …, \"embedded\": …, \"properties\": [...]}")
            }
            let embedded = m.first(where: { $0.0 == "embedded" })?.1 == .bool(true)
            let properties = try props.map { (p) throws(ToolError) -> Property in
                guard case .object(let pm) = p, case .string(let pname)? = pm.first(where: { $0.0 == "name" })?.1,
                      case .string(let typeName)? = pm.first(where: { $0.0 == "type" })?.1,
                      let type = PropertyType.allCases.first(where: { $0.description == typeName }) else {
                    throw fail("a property of '\(name)' lacks a name or a known type")
                }
                func flag(_ key: String) -> Bool { pm.first(where: { $0.0 == key })?.1 == .bool(true) }
                func text(_ key: String) -> String? {
                    if case .string(let s)? = pm.first(where: { $0.0 == key })?.1 { return s }
                    return nil
                }
                let collection: CollectionKind
                switch text("collection") ?? "none" {
                case "none": collection = .none
                case "list": collection = .list
                case "set": collection = .set
                case "map": collection = .map
                case let other: throw fail("'\(name).\(pname)' has an unknown collection '\(other)'")
                }
                return Property(name: pname, type: type, collection: collection, isOptional: flag("optional"),
                                objectClassName: text("objectClass"), isPrimary: flag("primaryKey"), isIndexed: flag("indexed"),
                                originProperty: text("originProperty"))
            }
            return ObjectSchema(className: name, properties: properties, embedded: embedded)
        }
    }
}
