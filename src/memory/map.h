/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/map.h — where the symmetric segments are: this PE's own (base
 * and size per segment kind) and, per peer, where that peer's segments are
 * mapped here (NULL: not mapped). Filled at init by memory/heap.c and
 * memory/data.c; a peer's heap mapping grows (and may move) when
 * shmem_malloc passes the high-water mark (shmemi_heap_reach), and
 * transport/select.c copies the peer mappings into its per-peer table.
 */
#ifndef SHMEMI_MAP_H
#define SHMEMI_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/segment.h"
#include "base/world.h"

#define SHMEMI_HEAP_MIN_BASE_ALIGN ((size_t)1 << 30)

/* A mapping replaced by a larger one, unmapped at finalize. */
struct shmemi_view {
    void *addr;
    size_t len;
};

struct shmemi_map {
    struct shmemi_segment heap_seg; /* own: control region, team pool, user heap */
    struct shmemi_segment data_seg; /* own: remapped .data/.bss */
    /* Own segments, as (base, size); size 0 means absent. */
    uintptr_t seg_base[SHMEMI_SEG_COUNT];
    size_t seg_size[SHMEMI_SEG_COUNT];
    /* The own user heap's address is a multiple of this (a power of two,
     * at least SHMEMI_HEAP_MIN_BASE_ALIGN); peers' mappings need not be. */
    size_t heap_base_align;
    /* [seg][pe]: where peer pe's segment is mapped here, NULL if not. */
    char **peer_base[SHMEMI_SEG_COUNT];
    /* Bytes of each node-local peer's heap segment mapped here, from its
     * start: the control region, the pool, the heap's low end. */
    size_t peer_view;
    struct shmemi_view *retired;
    int n_retired;
};

extern struct shmemi_map shmemi_map;

#endif /* SHMEMI_MAP_H */
