// The default schema: every `Object` subclass the program declares, as RealmSwift lists them for a
// configuration without `objectTypes` (it asks the Objective-C runtime for every class).
//
// How, on Linux: the Swift compiler records each type the program declares in the
// `swift5_type_metadata` section of its image (a list of 32-bit relative pointers to type
// descriptors; the linker may add continuations named `swift5_type_metadata_2`…). For every loaded
// image that is not part of the system or the toolchain, the section is found from the image's
// ELF section headers (read from its file) and its load address; each non-generic class
// descriptor with a superclass has its metadata accessor called, and the classes that are
// `Object` subclasses are kept.
//
// Invariants:
// - Reading only: the section lists types, and a metadata accessor only instantiates the class's
//   metadata (as the first use of the class would). Nothing is registered with a realm.
// - Anything that does not look as expected (a file that cannot be read, no section, a
//   descriptor of another kind) is skipped: the result is then the classes found, never a
//   failure. Classes already used in the process are always included.
// - Scanned once per process, on first need.
// - A class whose `_realmIgnoreClass()` is true is not a default-schema class (RealmSwift's rule).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

enum ModelDiscovery {
    /// Every model class of the program (see the file header), in no particular order.
    static var modelClasses: [Object.Type] { found }

    /// The class infos of the model classes that describe a valid model, one per class name
    /// (the first found), with the schema each class has in code.
    static var validClassInfos: [ClassInfo] {
        var names = Set<String>()
        return found.compactMap { type in
            guard let info = try? ClassInfo.of(type), names.insert(info.schema.className).inserted else { return nil }
            return info
        }
    }

    private static let found: [Object.Type] = scan()

    private static func scan() -> [Object.Type] {
        var out: [Object.Type] = []
        var seen = Set<ObjectIdentifier>()
        for (path, bias) in loadedImages() where !isSystemImage(path) {
            for section in typeSections(ofFile: path) {
                guard let start = UnsafeRawPointer(bitPattern: bias &+ UInt(section.address)) else { continue }
                for i in 0..<(section.size / 4) {
                    guard let type = modelClass(record: start + i * 4), seen.insert(ObjectIdentifier(type)).inserted else { continue }
                    out.append(type)
                }
            }
        }
        return out
    }

    /// The class a type record stands for, when it is a model class.
    private static func modelClass(record: UnsafeRawPointer) -> Object.Type? {
        let raw = record.loadUnaligned(as: Int32.self)
        let target = record + Int(raw & ~3)
        let descriptor: UnsafeRawPointer
        switch raw & 3 {
        case 0: descriptor = target
        case 1:
            guard let indirect = target.loadUnaligned(as: UnsafeRawPointer?.self) else { return nil }
            descriptor = indirect
        default: return nil
        }
        let flags = descriptor.loadUnaligned(as: UInt32.self)
        let kindClass: UInt32 = 16, isGeneric: UInt32 = 0x80
        guard flags & 0x1F == kindClass, flags & isGeneric == 0 else { return nil }
        // TypeContextDescriptor: flags, parent, name, access function, fields; then the class's
        // superclass (a relative pointer to its mangled name, zero for a root class).
        guard descriptor.loadUnaligned(fromByteOffset: 20, as: Int32.self) != 0 else { return nil }
        let accessorOffset = descriptor.loadUnaligned(fromByteOffset: 12, as: Int32.self)
        guard accessorOffset != 0 else { return nil }
        let accessor = unsafeBitCast(descriptor + 12 + Int(accessorOffset),
                                     to: (@convention(c) (Int) -> UnsafeRawPointer?).self)
        guard let metadata = accessor(0) else { return nil }
        let cls: AnyClass = unsafeBitCast(metadata, to: AnyClass.self)
        guard let model = cls as? Object.Type, model != Object.self, model != EmbeddedObject.self,
              model != DynamicObject.self, !model._realmIgnoreClass() else { return nil }
        return model
    }

    /// The loaded images: their paths and load biases (through the C library's
    /// `dl_iterate_phdr`, looked up at run time as Swift's Glibc module does not declare it).
    private static func loadedImages() -> [(String, UInt)] {
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
        typealias Iterate = @convention(c) (Callback, UnsafeMutableRawPointer?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "dl_iterate_phdr") else { return [] }
        let iterate = unsafeBitCast(symbol, to: Iterate.self)
        var images: [(String, UInt)] = []
        _ = withUnsafeMutablePointer(to: &images) { pointer in
            iterate({ info, _, data in
                guard let info, let data else { return 0 }
                // struct dl_phdr_info: dlpi_addr (the load bias), then dlpi_name.
                let bias = info.load(as: UInt.self)
                let name = info.load(fromByteOffset: MemoryLayout<UInt>.size, as: UnsafePointer<CChar>?.self)
                    .map { String(cString: $0) } ?? ""
                data.assumingMemoryBound(to: [(String, UInt)].self).pointee
                    .append((name.isEmpty ? "/proc/self/exe" : name, bias))
                return 0
            }, UnsafeMutableRawPointer(pointer))
        }
        return images
    }

    /// Libraries of the system and the toolchain declare no models.
    private static func isSystemImage(_ path: String) -> Bool {
        path.hasPrefix("/lib") || path.hasPrefix("/usr/lib") || path.contains("linux-vdso")
            || path.hasSuffix("libswiftCore.so") || path.contains("/usr/lib/swift/")
    }

    /// Where the type-record sections of an ELF file (`swift5_type_metadata`, and its
    /// continuations `swift5_type_metadata_2`…) are loaded, relative to the image, and their sizes.
    private static func typeSections(ofFile path: String) -> [(address: UInt64, size: Int)] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? file.close() }
        func read(_ offset: UInt64, _ count: Int) -> Data? {
            do {
                try file.seek(toOffset: offset)
                let data = try file.read(upToCount: count) ?? Data()
                return data.count == count ? data : nil
            } catch { return nil }
        }
        guard let header = read(0, 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), header[4] == 2 else { return [] }
        func u16(_ d: Data, _ at: Int) -> UInt16 { d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt16.self) } }
        func u32(_ d: Data, _ at: Int) -> UInt32 { d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        func u64(_ d: Data, _ at: Int) -> UInt64 { d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) } }
        let sectionsAt = u64(header, 0x28), entrySize = Int(u16(header, 0x3A)), count = Int(u16(header, 0x3C))
        let namesIndex = Int(u16(header, 0x3E))
        guard entrySize >= 64, count > 0, count < 65_536, namesIndex < count,
              let table = read(sectionsAt, entrySize * count) else { return [] }
        let namesHeader = table.subdata(in: namesIndex * entrySize..<(namesIndex + 1) * entrySize)
        let namesSize = Int(u64(namesHeader, 32))
        guard namesSize < 1 << 24, let names = read(u64(namesHeader, 24), namesSize) else { return [] }
        let prefix = Array("swift5_type_metadata".utf8)
        var sections: [(address: UInt64, size: Int)] = []
        for i in 0..<count {
            let entry = table.subdata(in: i * entrySize..<(i + 1) * entrySize)
            let nameAt = names.startIndex + Int(u32(entry, 0))
            guard nameAt + prefix.count <= names.endIndex,
                  names[nameAt..<nameAt + prefix.count].elementsEqual(prefix) else { continue }
            let rest = names[(nameAt + prefix.count)...].prefix { $0 != 0 }
            guard rest.isEmpty || rest.first == UInt8(ascii: "_") else { continue }
            sections.append((u64(entry, 16), Int(u64(entry, 32))))
        }
        return sections
    }
}
