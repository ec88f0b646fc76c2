/*
 * memory/map.h — where the symmetric segments are: this PE's own (base
 * and size per segment kind) and, per peer, where that peer's segments are
 * mapped here (NULL: not mapped). Filled at init by memory/heap.c and
 * memory/data.c, read-only after; transport/select.c turns the peer
 * mappings into its per-peer table.
 */
#ifndef SHMEMI_MAP_H
#define SHMEMI_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/segment.h"
#include "base/world.h"

#define SHMEMI_HEAP_MIN_BASE_ALIGN ((size_t)1 << 30)

struct shmemi_map {
    struct shmemi_segment heap_seg; /* own: control region + user heap */
    struct shmemi_segment data_seg; /* own: remapped .data/.bss */
    /* Own segments, as (base, size); size 0 means absent. */
    uintptr_t seg_base[SHMEMI_SEG_COUNT];
    size_t seg_size[SHMEMI_SEG_COUNT];
    /* The own user heap's address is a multiple of this (a power of two,
     * at least SHMEMI_HEAP_MIN_BASE_ALIGN); peers' mappings need not be. */
    size_t heap_base_align;
    /* [seg][pe]: where peer pe's segment is mapped here, NULL if not. */
    char **peer_base[SHMEMI_SEG_COUNT];
};

extern struct shmemi_map shmemi_map;

#endif /* SHMEMI_MAP_H */
