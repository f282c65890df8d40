// Page encryption: AES-256-GCM per page with a fresh random nonce per write, and an HMAC seal
// for meta slots.
//
// Keys: the user's 64-byte key is stretched with HKDF-SHA256 into three independent keys: the
// AES-256 page key, the HMAC-SHA256 meta key, and (from the meta key) a key-check value stored in
// the meta so that a wrong key fails at open with `.wrongKey` instead of as corrupt pages.
//
// On-disk page: nonce 12 bytes @0, tag 16 bytes @12, low 32 bits of the writing version @28,
// ciphertext of the 4064-byte payload @32. The additional authenticated data is the page number
// and the version bits, so a valid page copied to another offset fails authentication.
//
// Invariants:
// - Nonces are random (96 bits) per page write; never derived from the version, because a
//   version number can repeat after a crash rolls back to an older commit.
// - Keys are set up once per open; a page costs one seal or open call.

import Crypto
import Foundation

final class PageCipher: Sendable {
    private let pageKey: SymmetricKey
    private let metaKey: SymmetricKey
    /// Stored in the meta of encrypted files; compared at open.
    let keyCheck: [UInt8]

    init(key: [UInt8], path: String?) throws(StorageError) {
        guard key.count == 64 else {
            throw StorageError(.invalidKey, "an encryption key must be 64 bytes, got \(key.count)", path: path)
        }
        let master = SymmetricKey(data: key)
        let salt = Array("strata.storage.v1".utf8)
        pageKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                         info: Array("page-aes-256-gcm".utf8), outputByteCount: 32)
        metaKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                         info: Array("meta-hmac-sha256".utf8), outputByteCount: 32)
        keyCheck = Array(HMAC<SHA256>.authenticationCode(for: Array("strata key check".utf8), using: metaKey))
    }

    /// HMAC-SHA256 of `count` bytes (the meta seal).
    func seal(meta: UnsafeRawPointer, count: Int) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: UnsafeRawBufferPointer(start: meta, count: count), using: metaKey))
    }

    private static func aad(page: UInt32, versionBits: UInt32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8)
        withUnsafeBytes(of: page.littleEndian) { for i in 0..<4 { bytes[i] = $0[i] } }
        withUnsafeBytes(of: versionBits.littleEndian) { for i in 0..<4 { bytes[4 + i] = $0[i] } }
        return bytes
    }

    /// Encrypts the payload of `image` (a full plain page) into `sealed` (a full page) and
    /// returns the first 8 bytes of the tag, the page's commit checksum.
    func encrypt(page: UInt32, version: UInt64, from image: UnsafeRawPointer,
                 into sealed: UnsafeMutableRawPointer, path: String?) throws(StorageError) -> UInt64 {
        let versionBits = UInt32(truncatingIfNeeded: version)
        let payload = UnsafeRawBufferPointer(start: image + PageLayout.headerSize, count: PageLayout.payloadSize)
        var generator = SystemRandomNumberGenerator()
        var nonceBytes = [UInt8](repeating: 0, count: 12)
        // Two 64-bit draws (each may be a getrandom call) give 16 random bytes; 12 are used.
        let low: UInt64 = generator.next(), high: UInt64 = generator.next()
        for i in 0..<8 { nonceBytes[i] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(i))) }
        for i in 0..<4 { nonceBytes[8 + i] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(i))) }
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(payload, using: pageKey, nonce: AES.GCM.Nonce(data: nonceBytes),
                                   authenticating: PageCipher.aad(page: page, versionBits: versionBits))
        } catch {
            throw StorageError(.io, "encrypting page \(page) failed: \(error)", path: path)
        }
        let out = UnsafeMutableRawBufferPointer(start: sealed, count: PageLayout.pageSize)
        for i in 0..<12 { out[i] = nonceBytes[i] }
        let tag = box.tag
        guard tag.count == 16 else {
            throw StorageError(.io, "encrypting page \(page) produced a \(tag.count)-byte tag", path: path)
        }
        for (i, byte) in tag.enumerated() { out[12 + i] = byte }
        sealed.storeBytes(of: versionBits.littleEndian, toByteOffset: 28, as: UInt32.self)
        let ciphertext = box.ciphertext
        guard ciphertext.count == PageLayout.payloadSize else {
            throw StorageError(.io, "encrypting page \(page) produced \(ciphertext.count) bytes", path: path)
        }
        ciphertext.withUnsafeBytes { c in
            (sealed + PageLayout.headerSize).copyMemory(from: c.baseAddress ?? UnsafeRawPointer(sealed), byteCount: c.count)
        }
        return sealed.loadUnaligned(fromByteOffset: 12, as: UInt64.self)
    }

    /// The commit checksum of a sealed page (its tag prefix), without decrypting.
    static func commitChecksum(ofSealed sealed: UnsafeRawPointer) -> UInt64 {
        sealed.loadUnaligned(fromByteOffset: 12, as: UInt64.self)
    }

    /// Authenticates and decrypts `sealed` into the plain page image `image` (header: version bits
    /// @8, page number @16). Throws `.corruptPage` when authentication fails.
    func decrypt(page: UInt32, from sealed: UnsafeRawPointer, into image: UnsafeMutableRawPointer,
                 path: String?) throws(StorageError) {
        let versionBits = UInt32(littleEndian: sealed.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        let plain: Data
        do {
            let nonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(start: sealed, count: 12))
            let box = try AES.GCM.SealedBox(
                nonce: nonce,
                ciphertext: UnsafeRawBufferPointer(start: sealed + PageLayout.headerSize, count: PageLayout.payloadSize),
                tag: UnsafeRawBufferPointer(start: sealed + 12, count: 16))
            plain = try AES.GCM.open(box, using: pageKey,
                                     authenticating: PageCipher.aad(page: page, versionBits: versionBits))
        } catch {
            throw StorageError(.corruptPage, "page \(page) fails authentication (modified, torn or wrong key)", path: path)
        }
        guard plain.count == PageLayout.payloadSize else {
            throw StorageError(.corruptPage, "page \(page) decrypts to \(plain.count) bytes", path: path)
        }
        image.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.headerSize)
        image.storeBytes(of: UInt64(versionBits).littleEndian, toByteOffset: PageHeader.versionOffset, as: UInt64.self)
        image.storeBytes(of: page.littleEndian, toByteOffset: PageHeader.pageNumberOffset, as: UInt32.self)
        plain.withUnsafeBytes { p in
            guard let source = p.baseAddress else { return }
            (image + PageLayout.headerSize).copyMemory(from: source, byteCount: PageLayout.payloadSize)
        }
    }
}
