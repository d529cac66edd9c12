// Counts heap allocations made by the Benchmarks process, in process, with no tool around it.
//
// This target is linked into the Benchmarks executable only (never into the library or the tests).
// An executable's own definition of `malloc` wins over libc's for every shared library the process
// loads (the Swift runtime, Foundation, Dispatch), so defining the allocation entry points here
// sees every allocation, from every thread. Each one forwards to glibc's exported `__libc_*`
// implementation, which needs no `dlsym` (whose own allocations would recurse into us) and keeps
// working under valgrind, which replaces those too. Counting costs one relaxed atomic load when
// off and one relaxed atomic add when on; frees are not counted.
#include "AllocationCounter.h"

// A sanitizer's runtime defines malloc itself (linked statically into the executable), so under
// one this target defines nothing and reports that it does not count.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ALLOCATION_COUNTER_SANITIZED)

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_bool counting;
static atomic_uint_fast64_t count;

static inline void note_allocation(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    }
}

int allocation_counter_available(void) { return 1; }

void allocation_counter_start(void) {
    atomic_store_explicit(&count, 0, memory_order_relaxed);
    atomic_store_explicit(&counting, 1, memory_order_seq_cst);
}

uint64_t allocation_counter_stop(void) {
    atomic_store_explicit(&counting, 0, memory_order_seq_cst);
    return atomic_load_explicit(&count, memory_order_relaxed);
}

size_t allocation_counter_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

void *malloc(size_t size) {
    note_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note_allocation();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // The checks glibc's posix_memalign makes before it allocates.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    note_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

#else

int allocation_counter_available(void) { return 0; }
void allocation_counter_start(void) {}
uint64_t allocation_counter_stop(void) { return 0; }
size_t allocation_counter_bytes_in_use(void) { return 0; }

#endif
