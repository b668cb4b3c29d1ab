/* CPUID leaf 02H cache and TLB descriptors (pmu/cache.h). */
#include "cache.h"
