// The accumulator loop of StrataStorage's stripe hash (Pages/StripeHash.swift) on wider vector
// units than Swift's portable SIMD2 code reaches (SSE2, two lanes per instruction): AVX2 (four)
// and AVX-512F (eight), chosen at run time from what the CPU supports. The arithmetic is the
// same wrapping integer arithmetic lane by lane, so every variant gives the same accumulators:
// the hash is an on-disk format and must not depend on the CPU (StripeHashDispatchTests).
#ifndef CSTRATAHASH_H
#define CSTRATAHASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 2: AVX-512F, 1: AVX2, 0: neither (the caller runs its portable loop). Decided once.
int strata_stripe_vector_level(void);

/// Runs the stripe loop over `count` (>= 64) bytes at `data` with the 192-byte `secret`, on
/// `acc` (8 lanes, initialised by the caller; lane i is accumulator i/2's element i%2).
/// `level` selects the variant (1 or 2, never above `strata_stripe_vector_level()`).
/// Returns 0 when it ran, -1 when `level` is not available here (acc untouched).
int strata_stripe_accumulate(const void *data, size_t count, const void *secret, uint64_t acc[8], int level);

#ifdef __cplusplus
}
#endif

#endif
