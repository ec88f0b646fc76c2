/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/pool.c — bitmap allocator of the team pool (see pool.h). Private
 * metadata, like the heap allocator's. Blocks are zeroed when freed, not
 * when taken: a peer may already be signalling a new team's block before
 * this PE has finished its own split (flags only grow), so taking must
 * not write the block. Fresh pool memory is zero (new shm pages).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory/map.h"
#include "base/world.h"
#include "team/pool.h"

static uint64_t *used;       /* bit per granule */
static size_t base, ngran;   /* heap offset of granule 0, granule count */

int shmemi_pool_init(size_t off, size_t bytes)
{
    shmemi_pool_fini();
    base = off;
    ngran = bytes / SHMEMI_POOL_GRANULE;
    used = calloc((ngran + 63) / 64 + 1, sizeof *used);
    return used ? 0 : -1;
}

void shmemi_pool_fini(void)
{
    free(used);
    used = NULL;
    ngran = 0;
}

static int bit(size_t g)
{
    return (int)(used[g / 64] >> (g % 64) & 1);
}

static size_t granules(size_t bytes)
{
    return (bytes + SHMEMI_POOL_GRANULE - 1) / SHMEMI_POOL_GRANULE;
}

/* Next used granule in [g, end), or end. */
static size_t next_used(size_t g, size_t end)
{
    while (g < end) {
        uint64_t w = used[g / 64] >> (g % 64);
        if (w)
            return g + (size_t)__builtin_ctzll(w) < end ? g + (size_t)__builtin_ctzll(w) : end;
        g = (g / 64 + 1) * 64;
    }
    return end;
}

size_t shmemi_pool_first_fit(size_t from, size_t bytes)
{
    size_t need = granules(bytes), g;

    if (from < base)
        from = base;
    g = (from - base + SHMEMI_POOL_GRANULE - 1) / SHMEMI_POOL_GRANULE;
    while (g + need <= ngran) {
        size_t u = next_used(g, g + need);
        if (u == g + need)
            return base + g * SHMEMI_POOL_GRANULE;
        g = u + 1;
        while (g < ngran && bit(g))
            g++;
    }
    return SHMEMI_POOL_NONE;
}

static void mark(size_t off, size_t bytes, int on)
{
    size_t g = (off - base) / SHMEMI_POOL_GRANULE, end = g + granules(bytes);

    for (; g < end; g++) {
        if (on)
            used[g / 64] |= 1ull << (g % 64);
        else
            used[g / 64] &= ~(1ull << (g % 64));
    }
}

void shmemi_pool_take(size_t off, size_t bytes)
{
    mark(off, bytes, 1);
}

void shmemi_pool_give(size_t off, size_t bytes)
{
    memset((char *)shmemi_map.seg_base[SHMEMI_SEG_CTRL] + off, 0, granules(bytes) * SHMEMI_POOL_GRANULE);
    mark(off, bytes, 0);
}
