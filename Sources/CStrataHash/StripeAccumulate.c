// See include/CStrataHash.h. The loop mirrors `stripeHash64` in StripeHash.swift exactly:
// whole blocks of 16 stripes (64 bytes each, keyed from secret + 8 * stripe) each followed by a
// scramble (keys at secret + 128), then the stripes left before the last one, then the last 64
// bytes at count - 64 keyed from secret + 121. Per 64-bit lane: acc += swap-in-pair(d) +
// lo32(d ^ k) * hi32(d ^ k); scramble: acc = ((acc ^ (acc >> 47)) ^ k) * 0x9E3779B1 (mod 2^64).
#include "CStrataHash.h"

#if defined(__x86_64__)
#include <immintrin.h>

static const uint64_t prime32 = 0x9E3779B1u;

__attribute__((target("avx2")))
static void accumulate_avx2(const uint8_t *data, size_t count, const uint8_t *secret, uint64_t acc[8]) {
    __m256i lo = _mm256_loadu_si256((const __m256i *)acc);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(acc + 4));
    const __m256i p = _mm256_set1_epi64x((long long)prime32);
#define STRIPE(ptr, key) do { \
        __m256i d0 = _mm256_loadu_si256((const __m256i *)(ptr)); \
        __m256i d1 = _mm256_loadu_si256((const __m256i *)((ptr) + 32)); \
        __m256i k0 = _mm256_xor_si256(d0, _mm256_loadu_si256((const __m256i *)(key))); \
        __m256i k1 = _mm256_xor_si256(d1, _mm256_loadu_si256((const __m256i *)((key) + 32))); \
        __m256i m0 = _mm256_mul_epu32(k0, _mm256_srli_epi64(k0, 32)); \
        __m256i m1 = _mm256_mul_epu32(k1, _mm256_srli_epi64(k1, 32)); \
        lo = _mm256_add_epi64(lo, _mm256_add_epi64(_mm256_shuffle_epi32(d0, 0x4E), m0)); \
        hi = _mm256_add_epi64(hi, _mm256_add_epi64(_mm256_shuffle_epi32(d1, 0x4E), m1)); \
    } while (0)
#define SCRAMBLE(a, key) do { \
        __m256i x = _mm256_xor_si256(_mm256_xor_si256(a, _mm256_srli_epi64(a, 47)), \
                                     _mm256_loadu_si256((const __m256i *)(key))); \
        a = _mm256_add_epi64(_mm256_mul_epu32(x, p), \
                             _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), p), 32)); \
    } while (0)
    size_t last = count - 64;
    size_t full = (last + 63) >> 6;
    size_t offset = 0;
    while (full >= 16) {
        for (int s = 0; s < 16; s++) { STRIPE(data + offset, secret + 8 * s); offset += 64; }
        full -= 16;
        SCRAMBLE(lo, secret + 128);
        SCRAMBLE(hi, secret + 160);
    }
    for (size_t s = 0; s < full; s++) { STRIPE(data + offset, secret + 8 * s); offset += 64; }
    STRIPE(data + last, secret + 121);
#undef STRIPE
#undef SCRAMBLE
    _mm256_storeu_si256((__m256i *)acc, lo);
    _mm256_storeu_si256((__m256i *)(acc + 4), hi);
}

__attribute__((target("avx512f")))
static void accumulate_avx512(const uint8_t *data, size_t count, const uint8_t *secret, uint64_t acc[8]) {
    __m512i a = _mm512_loadu_si512((const void *)acc);
    const __m512i p = _mm512_set1_epi64((long long)prime32);
    // Swap the two 64-bit words of each 128-bit pair: dword order 2,3,0,1 within each pair.
#define STRIPE(ptr, key) do { \
        __m512i d = _mm512_loadu_si512((const void *)(ptr)); \
        __m512i k = _mm512_xor_si512(d, _mm512_loadu_si512((const void *)(key))); \
        __m512i m = _mm512_mul_epu32(k, _mm512_srli_epi64(k, 32)); \
        a = _mm512_add_epi64(a, _mm512_add_epi64(_mm512_shuffle_epi32(d, (_MM_PERM_ENUM)0x4E), m)); \
    } while (0)
    size_t last = count - 64;
    size_t full = (last + 63) >> 6;
    size_t offset = 0;
    while (full >= 16) {
        for (int s = 0; s < 16; s++) { STRIPE(data + offset, secret + 8 * s); offset += 64; }
        full -= 16;
        __m512i x = _mm512_xor_si512(_mm512_xor_si512(a, _mm512_srli_epi64(a, 47)),
                                     _mm512_loadu_si512((const void *)(secret + 128)));
        a = _mm512_add_epi64(_mm512_mul_epu32(x, p),
                             _mm512_slli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(x, 32), p), 32));
    }
    for (size_t s = 0; s < full; s++) { STRIPE(data + offset, secret + 8 * s); offset += 64; }
    STRIPE(data + last, secret + 121);
#undef STRIPE
    _mm512_storeu_si512((void *)acc, a);
}

static int detected = -1;

int strata_stripe_vector_level(void) {
    // A benign race: every thread computes the same value.
    int level = __atomic_load_n(&detected, __ATOMIC_RELAXED);
    if (level >= 0) return level;
    __builtin_cpu_init();
    level = __builtin_cpu_supports("avx512f") ? 2 : (__builtin_cpu_supports("avx2") ? 1 : 0);
    __atomic_store_n(&detected, level, __ATOMIC_RELAXED);
    return level;
}

int strata_stripe_accumulate(const void *data, size_t count, const void *secret, uint64_t acc[8], int level) {
    if (count < 64 || level < 1 || level > strata_stripe_vector_level()) return -1;
    if (level == 2) accumulate_avx512((const uint8_t *)data, count, (const uint8_t *)secret, acc);
    else accumulate_avx2((const uint8_t *)data, count, (const uint8_t *)secret, acc);
    return 0;
}

#else

int strata_stripe_vector_level(void) { return 0; }

int strata_stripe_accumulate(const void *data, size_t count, const void *secret, uint64_t acc[8], int level) {
    (void)data; (void)count; (void)secret; (void)acc; (void)level;
    return -1;
}

#endif
