// Thread-local words for Strata's per-thread state, as C11 `_Thread_local` variables.
//
// Swift has no thread-local storage of its own; pthread_getspecific/setspecific cost a call each
// plus the lazily created key's `swift_once`, and `Object.init` asks for its class's wrapper
// layout once per object created. These static inline accessors compile to one TLS load or store
// in the caller.
#ifndef CStrataThreadLocal_h
#define CStrataThreadLocal_h

#include <stdint.h>

/// The class (its metadata address) whose wrapper layout `Object.init` found last on this thread,
/// and that layout (an immortal Swift object, held without a retain); 0 / NULL until the first.
extern _Thread_local uintptr_t strata_tls_layout_type;
extern _Thread_local const void *strata_tls_layout;
/// This thread's identity number (0 until first asked).
extern _Thread_local int64_t strata_tls_thread_identity;
/// Tag number of the queue whose block this thread is known to be running (0 outside).
extern _Thread_local int64_t strata_tls_verified_queue;

/// Nonzero while this thread instantiates an object that is about to be bound to a stored row:
/// its declaration defaults are never read, so the ones that cost (the clock, random numbers) are
/// skipped.
extern _Thread_local int64_t strata_tls_materializing;

static inline int64_t strata_tls_get_materializing(void) { return strata_tls_materializing; }
static inline void strata_tls_set_materializing(int64_t value) { strata_tls_materializing = value; }

static inline uintptr_t strata_tls_get_layout_type(void) { return strata_tls_layout_type; }
static inline const void *strata_tls_get_layout(void) { return strata_tls_layout; }
static inline void strata_tls_set_layout(uintptr_t type, const void *layout) {
    strata_tls_layout_type = type;
    strata_tls_layout = layout;
}

static inline int64_t strata_tls_get_thread_identity(void) { return strata_tls_thread_identity; }
static inline void strata_tls_set_thread_identity(int64_t value) { strata_tls_thread_identity = value; }

static inline int64_t strata_tls_get_verified_queue(void) { return strata_tls_verified_queue; }
static inline void strata_tls_set_verified_queue(int64_t value) { strata_tls_verified_queue = value; }

#endif
