/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/collect.c — collect (variable blocks) and fcollect (equal blocks),
 * concatenated in rank order on every member.
 *
 * direct: after a barrier (every source is ready), each member copies
 *   every block straight from its owner's source, starting with its own
 *   successor so owners are not all read at once; a closing barrier keeps
 *   sources (and the published sizes) intact until all have read. Two
 *   synchronisations and no forwarding: the default when every member is
 *   mapped here, where reading a peer is a memcpy.
 * pushed (fcollect of a 1.4 active set, shmemi_grp_may_push; on the
 *   network below SHMEMI_COLLECT_RING_MIN in all): each member stores or
 *   puts its block into every member's dest, starting with its successor,
 *   then counts itself in at every member and waits for the others'
 *   arrivals (shmemi_grp_arrive_all, which fences the puts first): no
 *   barrier.
 * ring: member i copies, in step s, the block of member i-1-s from its
 *   left neighbour's dest, as soon as the neighbour has it; N-1 steps of
 *   neighbour traffic only (the bandwidth-friendly choice for a network).
 * collect publishes each member's size in an AUX word; offsets are the
 *   prefix sums of the sizes, read from every member after the barrier.
 *   With direct it also publishes where its source is (a second AUX
 *   word): a member contributing nothing has not translated its own
 *   source (it may even be NULL), so that cannot stand for the others'.
 */
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "coll/algo.h"
#include "coll/coll.h"

struct layout {
    size_t *off, *len;      /* [n] */
    struct shmemi_buf *src; /* [n], collect with direct only: each member's source */
};

/* A source location in one AUX word: offset above, segment below. */
#define SRC_SEG_BITS 4
_Static_assert(SHMEMI_SEG_COUNT <= 1 << SRC_SEG_BITS, "segment numbers fit SRC_SEG_BITS");

static uint64_t pack_src(struct shmemi_buf b)
{
    return (uint64_t)b.off << SRC_SEG_BITS | (uint64_t)b.seg;
}

static struct shmemi_buf unpack_src(uint64_t v)
{
    return (struct shmemi_buf){(int)(v & ((1u << SRC_SEG_BITS) - 1)), (size_t)(v >> SRC_SEG_BITS)};
}

static void read_sizes(struct shmemi_group *g, size_t nbytes, int fixed, int with_src, struct shmemi_buf src,
                       struct layout *L)
{
    size_t at = 0;

    L->off = shmemi_grp_malloc(g, 2 * (size_t)g->n * sizeof(size_t));
    L->len = L->off + g->n;
    L->src = with_src ? shmemi_grp_malloc(g, (size_t)g->n * sizeof *L->src) : NULL;
    for (int i = 0; i < g->n; i++) {
        uint64_t v = nbytes;

        if (!fixed && i != g->me)
            shmemi_grp_get(g, &v, i, g->seg, shmemi_grp_slot_off(g, shmemi_grp_aux(g, 2)), sizeof v);
        L->off[i] = at;
        L->len[i] = (size_t)v;
        at += (size_t)v;
        if (L->src) {
            uint64_t w = pack_src(src);

            if (v && i != g->me)
                shmemi_grp_get(g, &w, i, g->seg, shmemi_grp_slot_off(g, shmemi_grp_aux(g, 1)), sizeof w);
            L->src[i] = unpack_src(w);
        }
    }
}

static void direct(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, const struct layout *L)
{
    for (int k = 1; k <= g->n; k++) {
        int i = (g->me + k) % g->n;
        struct shmemi_buf from = L->src ? L->src[i] : src; /* fcollect: every source is ours */

        shmemi_grp_get(g, shmemi_buf_addr(dest) + L->off[i], i, from.seg, from.off, L->len[i]);
    }
}

static void pushed(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes)
{
    size_t at = (size_t)g->me * nbytes;

    for (int k = 1; k <= g->n; k++)
        shmemi_grp_put(g, (g->me + k) % g->n, dest.seg, dest.off + at, shmemi_buf_addr(src), nbytes);
    shmemi_grp_arrive_all(g);
}

static void ring(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, const struct layout *L)
{
    int left = (g->me - 1 + g->n) % g->n, right = (g->me + 1) % g->n;
    int fwd = shmemi_grp_misc(g, SHMEMI_GRP_FWD), bwd = shmemi_grp_misc(g, SHMEMI_GRP_BWD);

    shmemi_grp_phase(g);
    memmove(shmemi_buf_addr(dest) + L->off[g->me], shmemi_buf_addr(src), L->len[g->me]);
    shmemi_grp_release();
    shmemi_grp_signal(g, fwd, right, 1);
    for (int s = 1; s < g->n; s++) {
        int i = (g->me - s + g->n) % g->n; /* whose block arrives now */

        shmemi_grp_wait(g, fwd, (unsigned)s);
        shmemi_grp_get(g, shmemi_buf_addr(dest) + L->off[i], left, dest.seg, dest.off + L->off[i], L->len[i]);
        if (s < g->n - 1) {
            shmemi_grp_release();
            shmemi_grp_signal(g, fwd, right, (unsigned)s + 1);
        }
    }
    /* The right neighbour reads our dest until its last step. */
    shmemi_grp_signal(g, bwd, left, 1);
    shmemi_grp_wait(g, bwd, 1);
}

void shmemi_coll_collect(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                         int fixed)
{
    struct layout L;
    int alg = shmemi_settings.collect_alg;
    uint64_t *size_word = shmemi_grp_local(g, shmemi_grp_aux(g, 2));
    uint64_t *src_word = shmemi_grp_local(g, shmemi_grp_aux(g, 1));

    if (g->n == 1) {
        memmove(shmemi_buf_addr(dest), shmemi_buf_addr(src), nbytes);
        return;
    }
    if (alg == SHMEMI_ALG_AUTO && fixed && shmemi_grp_may_push(g) &&
        (g->all_mapped || nbytes * (size_t)g->n < SHMEMI_COLLECT_RING_MIN)) {
        pushed(g, dest, src, nbytes);
        return;
    }
    /* auto: decided from what every member knows alike (fcollect: the
     * total; collect: whether peers are mapped). */
    if (alg == SHMEMI_ALG_AUTO)
        alg = g->all_mapped || (fixed && nbytes * (size_t)g->n < SHMEMI_COLLECT_RING_MIN) ? SHMEMI_ALG_DIRECT
                                                                                        : SHMEMI_ALG_RING;
    if (!fixed) {
        *size_word = nbytes;
        if (alg == SHMEMI_ALG_DIRECT)
            *src_word = nbytes ? pack_src(src) : 0;
        shmemi_grp_barrier(g);
    } else if (alg == SHMEMI_ALG_DIRECT) {
        shmemi_grp_barrier(g); /* every source is ready */
    }
    read_sizes(g, nbytes, fixed, !fixed && alg == SHMEMI_ALG_DIRECT, src, &L);
    if (alg == SHMEMI_ALG_RING) {
        ring(g, dest, src, &L);
        if (!fixed)
            shmemi_grp_barrier(g); /* sizes stay readable until all have read them */
    } else {
        direct(g, dest, src, &L);
        shmemi_grp_barrier(g);
    }
    if (!fixed && g->counting)
        *size_word = *src_word = 0; /* pSync back to SHMEM_SYNC_VALUE */
    free(L.src);
    free(L.off);
}
