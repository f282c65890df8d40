// The prefetch hint is a static inline function in include/CStrataPrefetch.h; a C target needs
// one source file.
#include "CStrataPrefetch.h"
