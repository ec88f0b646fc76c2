/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shoal/fast.h — the state table that inline fast paths read, and the
 * helpers they are built from. Included by the generated shmem.h.
 *
 * The table's symbol carries the ABI version in its name, so a program
 * compiled against another layout fails to link instead of misreading it.
 * The library keeps `heap_size` and `data_size` at 0 whenever the inline
 * paths must not be taken (before init, under SHMEM_DEBUG so the checked
 * out-of-line routines run, or for peers reached only over the network),
 * which costs the fast path nothing: the range test simply fails.
 */
#ifndef SHOAL_FAST_H
#define SHOAL_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SHOAL_FAST_ABI 2

struct shmemi_fast_state {
    uintptr_t heap_base;   /* this PE's symmetric heap */
    size_t heap_size;      /* 0: inline paths off */
    uintptr_t data_base;   /* this PE's global/static data (page-aligned) */
    size_t data_size;      /* 0: inline paths off */
    int n_pes;             /* world size */
    int amo_local;         /* CPU atomics are the job's atomicity domain */
    int debug;             /* the library's own bindings' slow path (SHMEM_DEBUG,
                              SHMEM_PROFILE); the inline paths do not read it */
    int order_local;       /* fence/quiet of the default context are memory
                              fences (every peer by shared memory) */
    char **heap_peer;      /* [n_pes] peer heap mapped here, NULL if not node-local */
    char **data_peer;      /* [n_pes] peer data mapped here, NULL if not node-local */
    /* The tables reads (g, get) use: the two above, or tables of NULLs
     * while a node-local peer may have writes in flight through libfabric
     * that a copy from its memory would not wait for (mixed jobs); the
     * library swaps them, so they are loaded atomically. */
    char **heap_read_peer;
    char **data_read_peer;
};

extern struct shmemi_fast_state shmemi_fast_v2;
#define shmemi_fast shmemi_fast_v2

#if defined(__GNUC__)
#define SHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SHMEMI_LIKELY(x) (x)
#define SHMEMI_UNLIKELY(x) (x)
#endif

/* Address of [addr, addr+len) on `pe` in this process, or NULL when the
 * inline path cannot serve it (the out-of-line routine then decides).
 * `read` (a constant at every call) picks the read tables. */
static inline void *shmemi_fast_addr_for(const void *addr, size_t len, int pe, int read)
{
    struct shmemi_fast_state *f = &shmemi_fast;
    uintptr_t a = (uintptr_t)addr, off;
    char *base;

    if ((unsigned)pe >= (unsigned)f->n_pes)
        return NULL;
    off = a - f->heap_base;
    if (off < f->heap_size && len <= f->heap_size - off) {
        base = (read ? __atomic_load_n(&f->heap_read_peer, __ATOMIC_RELAXED) : f->heap_peer)[pe];
        return base ? base + off : NULL;
    }
    off = a - f->data_base;
    if (off < f->data_size && len <= f->data_size - off) {
        base = (read ? __atomic_load_n(&f->data_read_peer, __ATOMIC_RELAXED) : f->data_peer)[pe];
        return base ? base + off : NULL;
    }
    return NULL;
}

static inline void *shmemi_fast_addr(const void *addr, size_t len, int pe)
{
    return shmemi_fast_addr_for(addr, len, pe, 0);
}

/* Puts and gets of at least this many bytes leave the inline path even to
 * a mapped peer: the library copies them (streaming stores once a copy
 * outgrows the core's cache, src/base/copy.h), and a call costs nothing
 * next to such a copy. */
#define SHMEMI_FAST_COPY_MAX ((size_t)256 << 10)

/* shmemi_fast_addr for a put's or get's copy of `len` bytes. */
static inline void *shmemi_fast_copy_addr(const void *addr, size_t len, int pe)
{
    return len < SHMEMI_FAST_COPY_MAX ? shmemi_fast_addr(addr, len, pe) : NULL;
}

/* A copy whose destination lies 1 to 63 bytes past its source modulo
 * 4 KiB. glibc's memcpy hands copies from 2 KiB to the CPU's string copy
 * (rep movsb), which AMD's cores run 1.3-1.7 times slower at that
 * distance than at any other: a get into a buffer from malloc, 16 bytes
 * into its page, from a page-aligned symmetric object (and a put from a
 * source that far before its destination). The library copies those with
 * vector loads that run ahead of the stores (src/base/copy.c); elsewhere
 * it is memcpy. Exported beside the table. */
#define SHMEMI_FAST_NEAR_MIN ((size_t)2 << 10)
#ifdef __cplusplus
extern "C"
#endif
void shmemi_copy_near(void *dst, const void *src, size_t n);

static inline int shmemi_fast_copy_is_near(const void *dst, const void *src, size_t n)
{
    return SHMEMI_UNLIKELY(n >= SHMEMI_FAST_NEAR_MIN) && (((uintptr_t)dst - (uintptr_t)src - 1) & 4095) < 63;
}

/* The copy of the inline put and get. */
static inline void shmemi_fast_copy(void *dst, const void *src, size_t n)
{
    if (shmemi_fast_copy_is_near(dst, src, n))
        shmemi_copy_near(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* shmemi_fast_addr for a read (g, get): NULL while reads must wait. */
static inline const void *shmemi_fast_read_addr(const void *addr, size_t len, int pe)
{
    return shmemi_fast_addr_for(addr, len, pe, 1);
}

/* shmemi_fast_copy_addr for a get's copy. */
static inline const void *shmemi_fast_read_copy_addr(const void *addr, size_t len, int pe)
{
    return len < SHMEMI_FAST_COPY_MAX ? shmemi_fast_read_addr(addr, len, pe) : NULL;
}

/* shmem_fence/shmem_quiet when every peer is node-local: the copies and
 * CPU atomics are done, only their visibility order is left. A full fence:
 * memcpy may use weakly ordered streaming stores. Returns 0 when the
 * library must do it. */
static inline int shmemi_fast_order(void)
{
    if (!shmemi_fast.order_local)
        return 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* Same, for an AMO: only when CPU atomics are the atomicity domain. */
static inline void *shmemi_fast_amo_addr(const void *addr, size_t len, int pe)
{
    return shmemi_fast.amo_local ? shmemi_fast_addr(addr, len, pe) : NULL;
}

#endif /* SHOAL_FAST_H */
