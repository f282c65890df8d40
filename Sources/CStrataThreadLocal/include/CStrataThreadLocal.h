// Thread-local words for Strata's per-thread state, as C11 `_Thread_local` variables.
//
// Swift has no thread-local storage of its own; pthread_getspecific/setspecific cost a call each
// plus the lazily created key's `swift_once`, and the `@Persisted` ordinal counter takes one of
// each per property of every object created (measured: ~5% of a bulk insert of 1,000,000
// objects). These static inline accessors compile to one TLS load or store in the caller.
#ifndef C_STRATA_THREAD_LOCAL_H
#define C_STRATA_THREAD_LOCAL_H

#include <stdint.h>

/// Count of `@Persisted` wrappers initialised on this thread since the last `Object.init`.
extern _Thread_local int64_t strata_tls_ordinal;
/// This thread's identity number (0 until first asked).
extern _Thread_local int64_t strata_tls_thread_identity;
/// Tag number of the queue whose block this thread is known to be running (0 outside).
extern _Thread_local int64_t strata_tls_verified_queue;

/// Returns the ordinal for the next wrapper and counts it.
static inline int64_t strata_tls_next_ordinal(void) { return strata_tls_ordinal++; }
static inline void strata_tls_reset_ordinal(void) { strata_tls_ordinal = 0; }

static inline int64_t strata_tls_get_thread_identity(void) { return strata_tls_thread_identity; }
static inline void strata_tls_set_thread_identity(int64_t value) { strata_tls_thread_identity = value; }

static inline int64_t strata_tls_get_verified_queue(void) { return strata_tls_verified_queue; }
static inline void strata_tls_set_verified_queue(int64_t value) { strata_tls_verified_queue = value; }

#endif
