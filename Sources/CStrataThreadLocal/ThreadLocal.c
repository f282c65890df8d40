// Definitions of the thread-local words declared in CStrataThreadLocal.h.
#include "CStrataThreadLocal.h"

_Thread_local uintptr_t strata_tls_layout_type = 0;
_Thread_local const void *strata_tls_layout = 0;
_Thread_local int64_t strata_tls_thread_identity = 0;
_Thread_local int64_t strata_tls_verified_queue = 0;
_Thread_local int64_t strata_tls_materializing = 0;
