/*
 * base/copy.h — the copy behind node-local puts and gets (and the
 * collectives' copies between mapped peers): memcpy, except for copies
 * too large to stay in this core's cache, which are written with
 * non-temporal (streaming) stores. Those skip reading each destination
 * line before writing it and leave the cache to the data still in use;
 * a copy that still fits in this PE's share of the last-level cache is
 * faster cached (base/copy.c says the rule, docs/design.md the figures).
 */
#ifndef SHMEMI_COPY_H
#define SHMEMI_COPY_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Copies of at least this many bytes stream (computed once from the cache
 * sizes and the node's PE count; SIZE_MAX where streaming stores are not
 * available). */
size_t shmemi_copy_stream_min(void);
/* The rule: for an L2 of `l2` bytes and a last-level cache of `llc`
 * (0 or less: unknown) shared by `pes` PEs of the node. */
size_t shmemi_copy_stream_min_for(long l2, long llc, int pes);
/* One SHMEM_INFO line: the threshold and what it was computed from. */
void shmemi_copy_print(FILE *f);
/* The streaming copy; ends with a store fence, so what it wrote is
 * ordered before the caller's next store (a signal, a flag). */
void shmemi_copy_stream(void *dst, const void *src, size_t n);

static inline void shmemi_copy(void *dst, const void *src, size_t n)
{
    if (n >= shmemi_copy_stream_min())
        shmemi_copy_stream(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif /* SHMEMI_COPY_H */
