// Page encryption: AES-256-GCM per page with a fresh random nonce per write, and an
// authentication tag for meta slots.
//
// Keys: the user's 64-byte key is stretched with HKDF-SHA256 into independent keys: the AES-256
// page key, the AES-256 meta-seal key, the HMAC-SHA256 meta key (the meta seal of format ≤ 2 slots,
// still verified when reading older files), and (from the HMAC key) a key-check value stored in
// the meta so that a wrong key fails at open with `.wrongKey` instead of as corrupt pages.
//
// Meta seal (format 3 slots, MetaSlot.swift): GMAC — AES-256-GCM with the sealed meta bytes as
// additional data and no plaintext — under its own key and a fresh random nonce per seal (nonce
// 12 bytes, then tag 16 bytes, in the slot's seal area). Measured: HMAC-SHA256 of a small commit's
// ~300 meta bytes was ~10% of an encrypted small commit's CPU (eight SHA-256 blocks, two of them
// for the key pads); GMAC runs on the carry-less multiply instructions at a fraction of that.
// The nonce is random, never fixed: two GMAC tags under one key and nonce would reveal the hash key.
//
// On-disk page: nonce 12 bytes @0, tag 16 bytes @12, low 32 bits of the writing version @28,
// then the ciphertext @32. The additional authenticated data is the page number and the version
// bits, so a valid page copied to another offset fails authentication. The ciphertext is either
// - of the whole 4064-byte payload (bit 0 of the nonce's first byte clear), or
// - from storage format 6, of the payload's compact form (CompactPage.swift: a tree page without
//   its free space), when bit 0 of the nonce's first byte is set: the ciphertext's length L is
//   the page's last two bytes, and the bytes between the ciphertext and them are zero. The flag
//   is part of the nonce and L is part of GCM's own input, so changing either fails the tag; the
//   zero bytes are checked. What a compact page shows is how many bytes it holds, never what they
//   are; that is the price of sealing only them (measured: a one-reading encrypted commit without
//   a flush cost 19.2% over a plain one with whole pages, 14.0% compact; medians of five rounds).
// Builds of format 5 and before sealed every page whole with a fully random nonce, so about half
// of their pages have the flag set. Such a page is recognised because its last bytes give no
// length below 4001 after zero bytes, or, with odds of 2^-128 against, because the compact
// reading fails its tag; it is then read whole.
//
// Invariants:
// - Nonces are random (96 bits) per page write; never derived from the version, because a
//   version number can repeat after a crash rolls back to an older commit.
// - Keys are set up once per open; a page costs one seal or open call, written straight into the
//   destination page.
//
// Why BoringSSL directly (`CCryptoBoringSSL`, the C module swift-crypto vendors) and not
// `AES.GCM.seal`/`open`: measured in release on this machine (`strata-storage-probe bench-aead`,
// 4064-byte payload), the public API costs 4.8 µs per seal and 2.0 µs per open (it sets the key up
// per call and allocates the ciphertext/plaintext), the direct calls with one long-lived context
// 1.8 µs and 0.6 µs — the public API would more than double the encryption overhead of commits.
// swift-crypto does not vend `CCryptoBoringSSL` as a product, so SwiftPM cannot declare it; the
// module is always built and visible because the `Crypto` product depends on it (checked: debug
// and release builds from an empty .build). The imports are `internal`, so no client of
// StrataStorage ever needs the C module: it stays an implementation detail of this file.

internal import Crypto
internal import CCryptoBoringSSL
import Foundation

final class PageCipher: @unchecked Sendable {
    // @unchecked: the AEAD context is initialised once and then only used through BoringSSL's
    // const seal/open calls, which are safe to run concurrently; the keys are immutable.
    /// Derives the key check value stored in the meta (HMAC-SHA-256 of a fixed text).
    private let metaKey: SymmetricKey
    private let context: UnsafeMutablePointer<EVP_AEAD_CTX>
    /// AES-256-GCM under the meta-seal key, used only with empty plaintext (GMAC of the meta).
    private let metaContext: UnsafeMutablePointer<EVP_AEAD_CTX>
    /// Stored in the meta of encrypted files; compared at open.
    let keyCheck: [UInt8]
    /// Random bytes drawn 4 KiB at a time and handed out 12 per nonce (guarded by `nonceLock`):
    /// every nonce is still fresh CSPRNG output, at a fraction of a RAND_bytes call per page.
    private let nonceLock = PosixLock()
    private let nonceBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4092)
    private var nonceOffset = 4092
    /// Whether pages are sealed in compact form where they have one (format 6). Off only to make
    /// files as builds of format 5 wrote them, for the tests that show those files are read.
    let sealsCompactly: Bool

    init(key: [UInt8], path: String?, sealsCompactly: Bool = true) throws(StorageError) {
        self.sealsCompactly = sealsCompactly
        guard key.count == 64 else {
            throw StorageError(.invalidKey, "an encryption key must be 64 bytes, got \(key.count)", path: path)
        }
        let master = SymmetricKey(data: key)
        let salt = Array("strata.storage.v1".utf8)
        let pageKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                             info: Array("page-aes-256-gcm".utf8), outputByteCount: 32)
        metaKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                         info: Array("meta-hmac-sha256".utf8), outputByteCount: 32)
        keyCheck = Array(HMAC<SHA256>.authenticationCode(for: Array("strata key check".utf8), using: metaKey))
        let metaSealKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                                 info: Array("meta-aes-256-gmac".utf8), outputByteCount: 32)
        context = .allocate(capacity: 1)
        metaContext = .allocate(capacity: 1)
        CCryptoBoringSSL_EVP_AEAD_CTX_zero(context)
        CCryptoBoringSSL_EVP_AEAD_CTX_zero(metaContext)
        let ok = pageKey.withUnsafeBytes { raw -> Int32 in
            CCryptoBoringSSL_EVP_AEAD_CTX_init(context, CCryptoBoringSSL_EVP_aead_aes_256_gcm(),
                                               raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 16, nil)
        }
        let metaOK = metaSealKey.withUnsafeBytes { raw -> Int32 in
            CCryptoBoringSSL_EVP_AEAD_CTX_init(metaContext, CCryptoBoringSSL_EVP_aead_aes_256_gcm(),
                                               raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 16, nil)
        }
        guard ok == 1, metaOK == 1 else {
            // cleanup of a zeroed or initialised context is safe either way
            CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
            CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(metaContext)
            context.deallocate()
            metaContext.deallocate()
            throw StorageError(.io, "cannot set up AES-256-GCM", path: path)
        }
    }

    deinit {
        CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
        CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(metaContext)
        context.deallocate()
        metaContext.deallocate()
        nonceBuffer.initialize(repeating: 0, count: 4092)  // do not leave unused nonces in freed memory
        nonceBuffer.deallocate()
    }

    /// Writes 12 fresh random bytes to `out`.
    private func nextNonce(into out: UnsafeMutablePointer<UInt8>) -> Bool {
        nonceLock.withLock { () -> Bool in
            if nonceOffset + 12 > 4092 {
                guard CCryptoBoringSSL_RAND_bytes(nonceBuffer, 4092) == 1 else { return false }
                nonceOffset = 0
            }
            out.update(from: nonceBuffer + nonceOffset, count: 12)
            (nonceBuffer + nonceOffset).update(repeating: 0, count: 12)  // a nonce is used once
            nonceOffset += 12
            return true
        }
    }

    /// Bytes of the GMAC meta seal: nonce, then tag.
    static let metaTagSize = 12 + 16

    /// Seals `count` bytes at `meta` with GMAC under a fresh nonce, writing nonce and tag (28
    /// bytes) to `seal`. False only if BoringSSL fails (no random bytes).
    func sealTag(meta: UnsafeRawPointer, count: Int, into seal: UnsafeMutableRawPointer) -> Bool {
        let out = seal.assumingMemoryBound(to: UInt8.self)
        guard nextNonce(into: out) else { return false }
        var tagLength = 0
        let ok = CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
            metaContext, nil, out + 12, &tagLength, 16, out, 12, nil, 0, nil, 0,
            meta.assumingMemoryBound(to: UInt8.self), count)
        return ok == 1 && tagLength == 16
    }

    /// Whether the nonce and tag at `seal` authenticate `count` bytes at `meta` (constant time:
    /// BoringSSL compares the tag).
    func tagVerifies(meta: UnsafeRawPointer, count: Int, seal: UnsafeRawPointer) -> Bool {
        let input = seal.assumingMemoryBound(to: UInt8.self)
        let ok = CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
            metaContext, nil, input, 12, nil, 0, input + 12, 16,
            meta.assumingMemoryBound(to: UInt8.self), count)
        return ok == 1
    }

    /// Additional authenticated data: page number and version bits (8 bytes, little endian).
    @inline(__always)
    private static func aad(page: UInt32, versionBits: UInt32) -> UInt64 {
        (UInt64(versionBits) << 32 | UInt64(page)).littleEndian
    }

    /// Set in the first nonce byte of a page sealed in compact form.
    static let compactFlag: UInt8 = 1
    /// Where a compact page keeps its ciphertext's length (the page's last two bytes).
    static let compactLengthOffset = PageLayout.pageSize - 2

    /// Encrypts the payload of `image` (a full plain page) into `sealed` (a full page), in compact
    /// form where it has one, and returns the first 8 bytes of the tag, the page's commit checksum.
    func encrypt(page: UInt32, version: UInt64, from image: UnsafeRawPointer,
                 into sealed: UnsafeMutableRawPointer, path: String?) throws(StorageError) -> UInt64 {
        let versionBits = UInt32(truncatingIfNeeded: version)
        let out = sealed.assumingMemoryBound(to: UInt8.self)
        // A fresh random 96-bit nonce from BoringSSL's CSPRNG.
        guard nextNonce(into: out) else {
            throw StorageError(.io, "no random bytes for the nonce of page \(page)", path: path)
        }
        let aad = PageCipher.aad(page: page, versionBits: versionBits)
        // The compact form is built in the sealed page itself and encrypted in place (BoringSSL
        // allows `out == in` exactly): no scratch page, which would be a heap allocation per seal.
        var input = image + PageLayout.headerSize
        var length = PageLayout.payloadSize
        let ciphertext = out + PageLayout.headerSize
        if sealsCompactly {
            // (A page sealed over itself is sealed whole: its compact form would overwrite it.)
            if image != UnsafeRawPointer(sealed), let compact = CompactPage.compact(input, into: UnsafeMutableRawPointer(ciphertext)) {
                input = UnsafeRawPointer(ciphertext)
                length = compact
                out[0] |= PageCipher.compactFlag
            } else {
                out[0] &= ~PageCipher.compactFlag
            }
        }
        let sealedOK = seal(input, count: length, nonceAndTag: out, into: ciphertext, aad: aad)
        if sealedOK && length < PageLayout.payloadSize {
            let end = PageLayout.headerSize + length
            (sealed + end).initializeMemory(as: UInt8.self, repeating: 0, count: PageCipher.compactLengthOffset - end)
            sealed.storeBytes(of: UInt16(length).littleEndian, toByteOffset: PageCipher.compactLengthOffset, as: UInt16.self)
        }
        guard sealedOK else {
            throw StorageError(.io, "encrypting page \(page) failed", path: path)
        }
        sealed.storeBytes(of: versionBits.littleEndian, toByteOffset: 28, as: UInt32.self)
        return sealed.loadUnaligned(fromByteOffset: 12, as: UInt64.self)
    }

    /// AES-256-GCM of `count` bytes under the nonce at `nonceAndTag` (the tag goes after it).
    private func seal(_ input: UnsafeRawPointer, count: Int, nonceAndTag: UnsafeMutablePointer<UInt8>,
                      into output: UnsafeMutablePointer<UInt8>, aad: UInt64) -> Bool {
        var aad = aad
        var tagLength = 0
        let ok = withUnsafeBytes(of: &aad) { ad -> Int32 in
            CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
                context, output, nonceAndTag + 12, &tagLength, 16, nonceAndTag, 12,
                input.assumingMemoryBound(to: UInt8.self), count, nil, 0,
                ad.bindMemory(to: UInt8.self).baseAddress, ad.count)
        }
        return ok == 1 && tagLength == 16
    }

    /// Whether `count` bytes of ciphertext at `input` (nonce and tag in the page's header)
    /// authenticate, decrypting them to `output`.
    private func open(_ sealed: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutableRawPointer, aad: UInt64) -> Bool {
        var aad = aad
        let ok = withUnsafeBytes(of: &aad) { ad -> Int32 in
            CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
                context, output.assumingMemoryBound(to: UInt8.self), sealed, 12,
                sealed + PageLayout.headerSize, count, sealed + 12, 16,
                ad.bindMemory(to: UInt8.self).baseAddress, ad.count)
        }
        return ok == 1
    }

    /// The length of a compact page's ciphertext, when the page is marked compact and looks like
    /// one (length in range, zeros up to it); nil otherwise.
    static func compactLength(of sealed: UnsafeRawPointer) -> Int? {
        guard sealed.load(as: UInt8.self) & compactFlag != 0 else { return nil }
        let length = Int(UInt16(littleEndian: sealed.loadUnaligned(fromByteOffset: compactLengthOffset, as: UInt16.self)))
        guard length >= TreeLayout.headerSize, length <= PageLayout.payloadSize - CompactPage.minimumSaving else { return nil }
        var at = PageLayout.headerSize + length
        var bits: UInt64 = 0
        while at + 8 <= compactLengthOffset {
            bits |= sealed.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            at += 8
        }
        while at < compactLengthOffset {
            bits |= UInt64(sealed.load(fromByteOffset: at, as: UInt8.self))
            at += 1
        }
        return bits == 0 ? length : nil
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
        let input = sealed.assumingMemoryBound(to: UInt8.self)
        let aad = PageCipher.aad(page: page, versionBits: versionBits)
        let payload = image + PageLayout.headerSize
        if let length = PageCipher.compactLength(of: sealed), open(input, count: length, into: payload, aad: aad) {
            try CompactPage.expand(payload, length: length, page: page, path: path)
        } else if !open(input, count: PageLayout.payloadSize, into: payload, aad: aad) {
            throw StorageError(.corruptPage, "page \(page) fails authentication (modified, torn or wrong key)", path: path)
        }
        image.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.headerSize)
        image.storeBytes(of: UInt64(versionBits).littleEndian, toByteOffset: PageHeader.versionOffset, as: UInt64.self)
        image.storeBytes(of: page.littleEndian, toByteOffset: PageHeader.pageNumberOffset, as: UInt32.self)
    }
}
