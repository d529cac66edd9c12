#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/// Whether this build counts allocations: 1 on Linux with glibc, where this target replaces
/// malloc and friends for the whole Benchmarks process; 0 elsewhere and under a sanitizer (the
/// counts then read 0).
int allocation_counter_available(void);

/// Starts counting: every malloc, calloc, realloc, aligned_alloc, memalign and posix_memalign
/// call made by any thread of the process from now on adds one.
void allocation_counter_start(void);

/// Stops counting and returns how many allocation calls were made since the last start.
uint64_t allocation_counter_stop(void);

/// Bytes held by allocations not freed yet, in every arena of the heap and in blocks mapped on
/// their own (glibc's `mallinfo2`): what a structure costs is the difference while it lives. 0 where
/// the counter is not available.
size_t allocation_counter_bytes_in_use(void);

#endif
