/*
 * base/copy.h — the copy behind node-local puts and gets (and the
 * collectives' copies between mapped peers): memcpy, except for copies
 * too large to stay in this core's cache, which are written with
 * non-temporal (streaming) stores. Those skip reading each destination
 * line before writing it and leave the cache to the data still in use;
 * libc's memcpy switches to them only past a fraction of the last-level
 * cache, which on a large shared L3 is far beyond the sizes that no
 * longer fit in the core's own L2. docs/design.md gives the figures.
 */
#ifndef SHMEMI_COPY_H
#define SHMEMI_COPY_H

#include <stddef.h>
#include <string.h>

/* Copies of at least this many bytes stream (computed once from the L2
 * size; SIZE_MAX where streaming stores are not available). */
size_t shmemi_copy_stream_min(void);
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
