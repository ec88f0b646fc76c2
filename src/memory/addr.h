/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/addr.h — address translation: a local symmetric address is
 * (segment, offset); a peer's copy is its segment's mapping + offset.
 */
#ifndef SHMEMI_ADDR_H
#define SHMEMI_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "memory/map.h"

/* Segment holding all of [addr, addr+len) and the offset of addr in it,
 * or -1. User-visible segments only (never the control region). */
static inline int shmemi_sym_lookup(const void *addr, size_t len, size_t *off)
{
    uintptr_t a = (uintptr_t)addr, o;

    o = a - shmemi_map.seg_base[SHMEMI_SEG_HEAP];
    if (o < shmemi_map.seg_size[SHMEMI_SEG_HEAP] && len <= shmemi_map.seg_size[SHMEMI_SEG_HEAP] - o) {
        *off = o;
        return SHMEMI_SEG_HEAP;
    }
    o = a - shmemi_map.seg_base[SHMEMI_SEG_DATA];
    if (o < shmemi_map.seg_size[SHMEMI_SEG_DATA] && len <= shmemi_map.seg_size[SHMEMI_SEG_DATA] - o) {
        *off = o;
        return SHMEMI_SEG_DATA;
    }
    return -1;
}

/* Where (seg, off) of world PE `pe` is mapped here, or NULL. */
static inline void *shmemi_peer_addr(int seg, size_t off, int pe)
{
    char *base = shmemi_map.peer_base[seg][pe];
    return base ? base + off : NULL;
}

/* Report "<arg> 0x... is not a symmetric address" and end the job. */
SHMEMI_NORETURN void shmemi_fatal_not_symmetric(const char *routine, const char *arg, const void *addr,
                                                size_t len);

/* Lookup that ends the job when the range is not symmetric. */
static inline int shmemi_sym_ref(const char *routine, const char *arg, const void *addr, size_t len,
                                 size_t *off)
{
    int seg = shmemi_sym_lookup(addr, len, off);
    if (seg < 0)
        shmemi_fatal_not_symmetric(routine, arg, addr, len);
    return seg;
}

#endif /* SHMEMI_ADDR_H */
