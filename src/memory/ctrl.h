/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/ctrl.h — the internal control region at the head of every PE's
 * heap segment: runtime-owned words that peers write. Each flag has its
 * own cache line so waiting on one never slows a peer writing its
 * neighbour. (Collective flags live in the teams' blocks, team/pool.h,
 * and in the user's pSync.) Its size is fixed at 64 KiB, of which only
 * the pages touched cost memory; the user heap starts after it.
 */
#ifndef SHMEMI_CTRL_H
#define SHMEMI_CTRL_H

#include <stddef.h>
#include <stdint.h>

#define SHMEMI_CTRL_SIZE ((size_t)64 << 10)
#define SHMEMI_CACHE_LINE 64
#define SHMEMI_CTRL_PROFILE_BYTES ((size_t)32 << 10)

struct shmemi_flag {
    _Alignas(SHMEMI_CACHE_LINE) uint64_t v;
};

struct shmemi_ctrl {
    /* Network path: lock of the software AMO path (0 free, else holder
     * PE + 1), taken with the provider's 64-bit cswap (transport/ofi_amo.c). */
    struct shmemi_flag amo_lock;
    /* Network path: never written; read by the flushes of posted puts and
     * AMOs (transport/ofi_posted.c). */
    struct shmemi_flag net_probe;
    /* SHMEM_PROFILE: where each PE leaves its rows for PE 0 to read at
     * finalize (api/profile.c); its pages are touched only then. */
    _Alignas(SHMEMI_CACHE_LINE) unsigned char profile[SHMEMI_CTRL_PROFILE_BYTES];
};

_Static_assert(sizeof(struct shmemi_ctrl) <= SHMEMI_CTRL_SIZE, "control region overflows");

#define SHMEMI_CTRL_OFF(member) offsetof(struct shmemi_ctrl, member)

#endif /* SHMEMI_CTRL_H */
