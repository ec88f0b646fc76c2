/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/malloc.c — shmem_malloc and friends: collective over the
 * world team. Every PE makes the same allocator call, so every PE gets
 * the same offset (or the same failure) without talking to the others.
 */
#include <stdint.h>
#include <string.h>

#include "base/env.h"
#include "memory/alloc.h"
#include "memory/heap.h"
#include "memory/map.h"
#include "transport/transport.h"
#include "base/world.h"
#include "shmemi.h"

static void *offset_to_ptr(size_t off)
{
    return (void *)(shmemi_map.seg_base[SHMEMI_SEG_HEAP] + off);
}

/* Heap offset of a pointer returned by the allocator, or fatal. */
static size_t ptr_to_offset(const char *routine, const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr, o = a - shmemi_map.seg_base[SHMEMI_SEG_HEAP];

    if (o >= shmemi_map.seg_size[SHMEMI_SEG_HEAP] || !shmemi_alloc_size(o))
        shmemi_fatal(routine, "ptr %p was not returned by a symmetric allocation routine "
                     "(or was already freed)", ptr);
    return o;
}

/* The block [off, off + size) is taken: back it and let node-local peers
 * map it, before anyone may touch it (every PE gets here with the same
 * block, so the high-water mark stays symmetric without a message). */
static void reach(size_t off, size_t size, const char *routine)
{
    if (shmemi_heap_reach(off + size, routine))
        shmemi_transport_rebase();
}

/* One line, once per job (PE 0), since every PE fails alike. */
static void warn_exhausted(const char *routine, size_t size)
{
    if (shmemi_world.my_pe == 0)
        shmemi_warn(routine, "cannot allocate %zu bytes: the symmetric heap has %zu bytes, the largest "
                    "free block %zu; raise SHMEM_SYMMETRIC_SIZE", size,
                    shmemi_map.seg_size[SHMEMI_SEG_HEAP], shmemi_alloc_largest_free());
}

static void *sym_alloc(const char *routine, size_t size, size_t align, int zero, long hints)
{
    size_t off;
    void *p = NULL;

    shmemi_check_init(routine);
    if (size == 0)
        return NULL;
    off = shmemi_alloc(size, align);
    if (off == SHMEMI_ALLOC_FAILED)
        warn_exhausted(routine, size);
    else {
        reach(off, size, routine);
        p = offset_to_ptr(off);
        if (zero)
            memset(p, 0, size);
    }
    if (!(hints & SHMEMX_MALLOC_NO_BARRIER))
        shmemi_barrier_all();
    return p;
}

void *shmemi_malloc(size_t size)
{
    return sym_alloc("shmem_malloc", size, SHMEMI_ALLOC_MIN_ALIGN, 0, 0);
}

void *shmemi_malloc_with_hints(size_t size, long hints)
{
    /* Placement hints change nothing: all heap memory is alike (mapped
     * by node-local peers, registered once with libfabric), so every hint
     * value is accepted. SHMEMX_MALLOC_NO_BARRIER drops the closing
     * barrier: the allocator is private to each PE and deterministic, so
     * every PE still gets the same offset, and each maps the block on
     * its peers before it returns (shmemi_heap_reach), so a peer's early
     * write lands in the block before its owner allocates it (malloc does
     * not clear it). */
    return sym_alloc("shmem_malloc_with_hints", size, SHMEMI_ALLOC_MIN_ALIGN, 0, hints);
}

void *shmemi_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        shmemi_check_init("shmem_calloc");
        warn_exhausted("shmem_calloc", SIZE_MAX);
        shmemi_barrier_all();
        return NULL;
    }
    return sym_alloc("shmem_calloc", count * size, SHMEMI_ALLOC_MIN_ALIGN, 1, 0);
}

void *shmemi_align(size_t alignment, size_t size)
{
    shmemi_check_init("shmem_align");
    /* Any power of two (1.4 allowed those below sizeof(void *)); the
     * allocator rounds small ones up to its minimum alignment. */
    if (!alignment || (alignment & (alignment - 1)))
        shmemi_fatal("shmem_align", "alignment %zu is not a power of two", alignment);
    /* Offsets are aligned by the allocator; the address only up to the
     * heap's own alignment. Beyond it, fail alike on every PE. */
    if (alignment > shmemi_map.heap_base_align) {
        if (shmemi_settings.debug && shmemi_world.my_pe == 0)
            shmemi_warn("shmem_align", "alignment %zu is larger than the symmetric heap's base alignment "
                        "%zu: returning NULL", alignment, shmemi_map.heap_base_align);
        shmemi_barrier_all();
        return NULL;
    }
    return sym_alloc("shmem_align", size, alignment, 0, 0);
}

void shmemi_free(void *ptr)
{
    shmemi_check_init("shmem_free");
    /* Entry barrier: no PE may still be using the block when it goes. */
    shmemi_barrier_all();
    if (ptr)
        shmemi_alloc_free(ptr_to_offset("shmem_free", ptr));
}

void *shmemi_realloc(void *ptr, size_t size)
{
    const char *routine = "shmem_realloc";
    size_t off, old, noff;
    void *p;

    shmemi_check_init(routine);
    if (!ptr)
        return sym_alloc(routine, size, SHMEMI_ALLOC_MIN_ALIGN, 0, 0);
    if (size == 0) {
        shmemi_free(ptr);
        return NULL;
    }
    off = ptr_to_offset(routine, ptr);
    old = shmemi_alloc_size(off);
    if (shmemi_alloc_resize(off, size) == 0) {
        reach(off, size, routine);
        p = ptr;
    } else {
        noff = shmemi_alloc(size, SHMEMI_ALLOC_MIN_ALIGN);
        if (noff == SHMEMI_ALLOC_FAILED) {
            warn_exhausted(routine, size);
            p = NULL; /* the old block stays valid */
        } else {
            reach(noff, size, routine);
            p = offset_to_ptr(noff);
            memcpy(p, ptr, old < size ? old : size);
            shmemi_alloc_free(off);
        }
    }
    shmemi_barrier_all();
    return p;
}
