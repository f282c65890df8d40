// Definitions of the thread-local words declared in CStrataThreadLocal.h.
#include "CStrataThreadLocal.h"

_Thread_local int64_t strata_tls_ordinal = 0;
_Thread_local int64_t strata_tls_thread_identity = 0;
_Thread_local int64_t strata_tls_verified_queue = 0;
