/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/group.h — what every collective algorithm runs over: the members
 * (a team, or a 1.4 active set), this PE's rank, and the members' flags.
 *
 * Flags. Every member has the same array of 64-bit flags at the same
 * symmetric (segment, offset): the team's sync block (64 bytes apart, one
 * cache line each), or the user's pSync (8 bytes apart). Each flag slot
 * has exactly one writer, fixed by the slot's index relative to the
 * reader (round r of the dissemination barrier is written by rank - 2^r,
 * tree slot (r, j) by rank -+ j*K^r, ...), and a reader waits on a slot
 * in a call exactly when its writer signals it in that call (one
 * exception, counting only: the arrival count of a pushed call, below).
 * Two modes:
 *
 *  - epoch (teams): a signal stores (epoch, phase, step), which only grow
 *    per writer; the reader waits until the flag reaches that value. No
 *    flag is ever reset, and a writer that has raced ahead into the next
 *    collective cannot be mistaken for an old signal's absence.
 *  - counting (pSync): a signal adds 1; the reader waits for a nonzero
 *    count and takes 1 off (with the transport's AMO, the job's single
 *    atomicity domain). Every count is consumed by its reader before that
 *    reader returns (shmemi_grp_end completes the consumptions), so
 *    pSync is back to SHMEM_SYNC_VALUE (0) on return.
 *
 * Data. Algorithms pull: a member reads peers' symmetric buffers (a
 * memcpy through the direct mapping when the peer is mapped here, the
 * transport's get otherwise) and writes only its own, then signals. So a
 * signal needs only a local memory fence before it.
 */
#ifndef SHMEMI_GROUP_H
#define SHMEMI_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "memory/map.h"
#include "base/world.h"
#include "team/team.h"

struct shmemi_group {
    const struct shmemi_team *t; /* rank -> world PE */
    int me, n;
    const char *routine;
    /* flags */
    int seg;
    size_t off, stride;
    int counting;
    uint64_t epoch;
    unsigned phase;   /* phases started in this call */
    /* layout (slot indices; see group.c) */
    int rounds;       /* ceil(log2 n) */
    int radix, kdigits; /* tree radix K, ceil(log_K n) */
    int nslots;
    int all_mapped;   /* every member's memory is mapped here */
    uint64_t consumed; /* counting: slots whose consumption may be in flight (group.c) */
};

/* Slot families. */
int shmemi_grp_bar(const struct shmemi_group *g, int r);        /* writer me - 2^r */
int shmemi_grp_rdy(const struct shmemi_group *g, int r);        /* writer me ^ 2^r */
int shmemi_grp_rdn(const struct shmemi_group *g, int r);        /* writer me ^ 2^r */
int shmemi_grp_down(const struct shmemi_group *g, int r, int j); /* writer me - j*K^r */
int shmemi_grp_up(const struct shmemi_group *g, int r, int j);   /* writer me + j*K^r */
/* Team blocks of up to SHMEMI_BARRIER_DIRECT_MAX members only. */
int shmemi_grp_direct(const struct shmemi_group *g, int k);     /* writer me - k, 1 <= k < n */
enum { SHMEMI_GRP_FWD, SHMEMI_GRP_BWD, SHMEMI_GRP_FOLD_IN, SHMEMI_GRP_FOLD_OUT, SHMEMI_GRP_FOLD_DONE,
       SHMEMI_GRP_NMISC };
int shmemi_grp_misc(const struct shmemi_group *g, int which);
/* Data words (not flags): 16 bytes each in a team block, 8 in pSync. */
int shmemi_grp_aux(const struct shmemi_group *g, int i);
#define SHMEMI_GRP_NAUX 3

/* Slots a team block's layout needs (radix 4). */
int shmemi_grp_team_slots(int n);

/* Begin a call on a team (bumps its epoch); 0 on success. */
void shmemi_grp_team(struct shmemi_group *g, struct shmemi_team *t, const char *routine);
/* Begin a call on an active set using pSync of `psync_longs` longs. */
void shmemi_grp_active(struct shmemi_group *g, struct shmemi_team *scratch, int PE_start, int logPE_stride,
                       int PE_size, long *pSync, size_t psync_longs, const char *routine);

static inline int shmemi_grp_pe(const struct shmemi_group *g, int rank)
{
    return shmemi_team_world_pe(g->t, rank);
}

static inline size_t shmemi_grp_slot_off(const struct shmemi_group *g, int slot)
{
    return g->off + (size_t)slot * g->stride;
}

static inline uint64_t *shmemi_grp_local(const struct shmemi_group *g, int slot)
{
    return (uint64_t *)(shmemi_map.seg_base[g->seg] + shmemi_grp_slot_off(g, slot));
}

/* A new phase of the call (each barrier, tree pass, ring...). */
static inline void shmemi_grp_phase(struct shmemi_group *g)
{
    g->phase++;
}

/* End of a call on an active set: its consumptions complete. */
void shmemi_grp_end(struct shmemi_group *g);

/* Signal member `rank` in `slot` with step `step` (>= 1) of this phase. */
void shmemi_grp_signal(struct shmemi_group *g, int slot, int rank, unsigned step);
/* Wait for step `step` of this phase in own `slot`. */
void shmemi_grp_wait(struct shmemi_group *g, int slot, unsigned step);
/* The arrival count of a pushed call (counting flags only): every member
 * adds 1 to each other member's count once its stores there are done,
 * and waits for its own to reach n - 1, instead of a barrier's log2(n)
 * waits on particular members. The FWD slot, which no pushed algorithm
 * uses otherwise. */
static inline int shmemi_grp_arrivals(const struct shmemi_group *g)
{
    return shmemi_grp_misc(g, SHMEMI_GRP_FWD);
}
/* Signal every other member's arrival count and wait for own n - 1. */
void shmemi_grp_arrive_all(struct shmemi_group *g);
/* Before signalling that local data is ready (memcpy may use weakly
 * ordered stores). */
void shmemi_grp_release(void);
/* Before signalling members that this one's shmemi_grp_put data is in
 * their memory: the local fence, and where a member is reached by the
 * network, a fence of the default context, which orders the puts before
 * the signal AMOs (free where the provider orders writes). */
void shmemi_grp_release_puts(const struct shmemi_group *g);

/* Data movement with member `rank`'s symmetric (seg, off). */
const void *shmemi_grp_peer_ptr(const struct shmemi_group *g, int rank, int seg, size_t off);
void shmemi_grp_get(const struct shmemi_group *g, void *dst, int rank, int seg, size_t off, size_t n);
void shmemi_grp_put(const struct shmemi_group *g, int rank, int seg, size_t off, const void *src, size_t n);

/* Local address of own (seg, off). */
static inline char *shmemi_grp_addr(int seg, size_t off)
{
    return (char *)shmemi_map.seg_base[seg] + off;
}

/* Whether a call may store or put into members' dest (or pWrk) before
 * they enter it: the 1.4 active-set forms, whose callers must make dest
 * ready on every PE first, and whose pSync counts stay exact whoever runs
 * ahead. A store, or a put, then shmemi_grp_release_puts, then the
 * signal. It saves the opening synchronisation of a pulling algorithm
 * and, on the network, a round trip per read (at 2 PEs on tcp an
 * active-set broadcast of 8 B was a pull + barrier: 189 us against 56
 * pushed). The team forms keep pulling: their callers need not
 * synchronise between calls. */
static inline int shmemi_grp_may_push(const struct shmemi_group *g)
{
    return g->counting;
}

/* Barrier over the group: orders memory, completes no transfers. */
void shmemi_grp_barrier(struct shmemi_group *g);
/* The closing barrier of a push: also applies every member's puts to the
 * others at their targets (coll/barrier.c). */
void shmemi_grp_barrier_after_puts(struct shmemi_group *g);

void *shmemi_grp_malloc(const struct shmemi_group *g, size_t n);

#endif /* SHMEMI_GROUP_H */
