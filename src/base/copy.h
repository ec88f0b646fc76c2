/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/copy.h — the copy behind node-local puts and gets (and the
 * collectives' copies between mapped peers). Below the L2's size, memcpy.
 * Copies too large to stay in this PE's share of the last-level cache are
 * written with non-temporal (streaming) stores: those skip reading each
 * destination line before writing it and leave the cache to the data
 * still in use. Between the two, the cached copies glibc and the CPU's
 * own string copy (`rep movsb`) make differ by ±20% from one CPU to the
 * next and one size to the next, so each PE times both on its first
 * copies of each size class and keeps the faster (base/copy.c says the
 * rules, docs/design.md the figures).
 */
#ifndef SHMEMI_COPY_H
#define SHMEMI_COPY_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "shoal/fast.h"

/* Copies of at least this many bytes stream (computed once from the cache
 * sizes and the node's PE count; SIZE_MAX where streaming stores are not
 * available). */
size_t shmemi_copy_stream_min(void);
/* The rule: for an L2 of `l2` bytes and a last-level cache of `llc`
 * (0 or less: unknown) shared by `pes` PEs of the node. */
size_t shmemi_copy_stream_min_for(long l2, long llc, int pes);
/* SHMEM_INFO at init: the thresholds and what they were computed from. */
void shmemi_copy_print(FILE *f);
/* SHMEM_INFO at finalize: which copy each timed size class kept. */
void shmemi_copy_print_timed(FILE *f);
/* The streaming copy; ends with a store fence, so what it wrote is
 * ordered before the caller's next store (a signal, a flag). */
void shmemi_copy_stream(void *dst, const void *src, size_t n);

/* Copies from this size take the out-of-line choice (the floor of both
 * thresholds). */
#define SHMEMI_COPY_LARGE_MIN ((size_t)256 << 10)
void shmemi_copy_large(void *dst, const void *src, size_t n);

/* Below it, memcpy, but for a destination 1-63 bytes past the source
 * modulo 4 KiB (shmemi_copy_near, shoal/fast.h). */
static inline void shmemi_copy(void *dst, const void *src, size_t n)
{
    if (n >= SHMEMI_COPY_LARGE_MIN)
        shmemi_copy_large(dst, src, n);
    else if (shmemi_fast_copy_is_near(dst, src, n))
        shmemi_copy_near(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif /* SHMEMI_COPY_H */
