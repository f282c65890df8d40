// `strata-storage-probe bench-aead <count>`: the cost of sealing and opening one 4064-byte page
// payload with AES-256-GCM through swift-crypto's public API (`AES.GCM.seal`/`open`, which
// allocate the ciphertext/plaintext and set the key up per call) versus through its BoringSSL
// module directly with one long-lived AEAD context writing into a preallocated page (what
// PageCipher does). Decides whether PageCipher can drop the undeclared `CCryptoBoringSSL` import.

import Crypto
import CCryptoBoringSSL
import Foundation

func benchAEAD(count: Int) throws {
    let payloadSize = 4064
    let key = SymmetricKey(size: .bits256)
    let plain = [UInt8](repeating: 0x5A, count: payloadSize)
    let aad: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    var sink = 0

    // Public API.
    var start = monotonicSeconds()
    var boxes: [AES.GCM.SealedBox] = []
    for i in 0..<count {
        let box = try AES.GCM.seal(plain, using: key, nonce: AES.GCM.Nonce(), authenticating: aad)
        if i < 4 { boxes.append(box) }
        sink &+= Int(box.tag.first ?? 0)
    }
    let publicSeal = (monotonicSeconds() - start) / Double(count)
    start = monotonicSeconds()
    for i in 0..<count {
        let opened = try AES.GCM.open(boxes[i & 3], using: key, authenticating: aad)
        sink &+= Int(opened.first ?? 0)
    }
    let publicOpen = (monotonicSeconds() - start) / Double(count)

    // BoringSSL directly, one context, preallocated output.
    let context = UnsafeMutablePointer<EVP_AEAD_CTX>.allocate(capacity: 1)
    defer { CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context); context.deallocate() }
    CCryptoBoringSSL_EVP_AEAD_CTX_zero(context)
    _ = key.withUnsafeBytes { raw in
        CCryptoBoringSSL_EVP_AEAD_CTX_init(context, CCryptoBoringSSL_EVP_aead_aes_256_gcm(),
                                           raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 16, nil)
    }
    let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    let back = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    defer { out.deallocate(); back.deallocate() }
    var nonce = [UInt8](repeating: 0, count: 12)
    /// Seconds per direct seal of `size` bytes; with `freshNonce`, each seal first draws its nonce
    /// with a RAND_bytes call of its own (the engine draws 4 KiB of nonces at a time instead).
    func timeDirectSeal(size: Int, freshNonce: Bool) -> Double {
        let start = monotonicSeconds()
        for _ in 0..<count {
            if freshNonce { _ = CCryptoBoringSSL_RAND_bytes(&nonce, 12) }
            var tagLength = 0
            _ = plain.withUnsafeBufferPointer { p in
                CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(context, out + 32, out + 12, &tagLength, 16, nonce, 12,
                                                           p.baseAddress, size, nil, 0, aad, aad.count)
            }
            sink &+= Int(out[12])
        }
        return (monotonicSeconds() - start) / Double(count)
    }
    let directSeal = timeDirectSeal(size: payloadSize, freshNonce: true)
    start = monotonicSeconds()
    for _ in 0..<count {
        _ = CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(context, back, nonce, 12, out + 32, payloadSize,
                                                      out + 12, 16, aad, aad.count)
        sink &+= Int(back[0])
    }
    let directOpen = (monotonicSeconds() - start) / Double(count)
    say(String(format: "aead 4064 B: public API seal %.2f µs open %.2f µs; BoringSSL direct seal %.2f µs (a RAND_bytes nonce each) open %.2f µs (sink %d)",
               publicSeal * 1e6, publicOpen * 1e6, directSeal * 1e6, directOpen * 1e6, sink & 1))

    // Direct seals by payload size: the fixed cost per call against the cost per byte (what
    // sparse sealing of half-empty pages saves).
    var line = "direct seal by size:"
    for size in [64, 256, 1024, 2048, 4064] {
        line += String(format: " %d B %.3f µs;", size, timeDirectSeal(size: size, freshNonce: false) * 1e6)
    }
    say(line + " (sink \(sink & 1))")
}
