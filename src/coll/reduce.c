/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/reduce.c — element-wise reductions with the result on every member.
 *
 * recursive_doubling: with P the largest power of two <= N, members P..N-1
 *   first fold their source into member i-P; then in round r members
 *   i and i^2^r each read the other's partial result (kept in dest),
 *   acknowledge, and combine; log2(P) rounds; finally the folded members
 *   copy the result from their partner. Fewest steps. Partners combine
 *   in the same order up to commutation, so every member gets
 *   bit-identical results.
 * pushed: the 1.4 active-set forms (stores where mapped, else fenced puts), when pWrk
 *   holds a slot per round (the user's symmetric scratch, whose reuse the
 *   spec restricts as pSync's): the same pairing, but each member stores
 *   its partial into the partner's pWrk slot of the round and signals, so
 *   a round is one signal each way instead of two handshakes. Nobody
 *   reads another's dest or source, so neither need be ready before the
 *   partner enters; a folded member's result is stored into its dest
 *   while it waits in the call.
 * direct (pushed, when pWrk holds a slot per member): each member stores
 *   its source into its slot of every member's pWrk, counts itself
 *   in there (shmemi_grp_arrive_all), and once all have arrived combines
 *   the N contributions in rank order, so every member computes the same
 *   sequence of operations: one wait, for the last member.
 * reduce_scatter: member i reduces the i-th of N slices over every
 *   member's source (into its own dest slice), then every member copies
 *   the other slices from their owners: each member reads 2(N-1)/N of the
 *   data once, with four barriers. The default for larger reductions.
 * Recursive doubling is the default up to SHMEMI_REDUCE_RD_MAX bytes, or
 * SHMEMI_REDUCE_RD_MAX_OVERSUB when the members share a node whose PEs
 * outnumber its cores: there every wait may cost a context switch, and
 * reduce_scatter's four barriers are twice the waits of recursive
 * doubling's two handshakes per round.
 * Peers' data is combined straight from their mapping when mapped, or
 * through a local bounce buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "coll/algo.h"
#include "coll/coll.h"

#define BOUNCE_MAX ((size_t)64 << 10)

/* acc op= member rank's [seg, off, off+bytes), in pieces. */
static void combine_from(struct shmemi_group *g, shmemi_combine_fn f, size_t elem, char *acc, int rank, int seg,
                         size_t off, size_t bytes, char *bounce)
{
    const char *p = shmemi_grp_peer_ptr(g, rank, seg, off);

    if (p) {
        f(acc, p, bytes / elem);
        return;
    }
    for (size_t at = 0; at < bytes; at += BOUNCE_MAX) {
        size_t len = bytes - at < BOUNCE_MAX ? bytes - at : BOUNCE_MAX;
        shmemi_grp_get(g, bounce, rank, seg, off + at, len);
        f(acc + at, bounce, len / elem);
    }
}

static void recursive_doubling(struct shmemi_group *g, shmemi_combine_fn f, size_t elem, struct shmemi_buf dest,
                               struct shmemi_buf src, size_t count)
{
    size_t bytes = count * elem;
    int p2 = 1, me = g->me;
    char *mine = shmemi_buf_addr(dest), *tmp;
    int fin = shmemi_grp_misc(g, SHMEMI_GRP_FOLD_IN), fout = shmemi_grp_misc(g, SHMEMI_GRP_FOLD_OUT),
        fdone = shmemi_grp_misc(g, SHMEMI_GRP_FOLD_DONE);

    while (p2 * 2 <= g->n)
        p2 *= 2;
    shmemi_grp_phase(g);
    if (me >= p2) { /* folded: lend the source, then take the result */
        shmemi_grp_signal(g, fin, me - p2, 1);
        shmemi_grp_wait(g, fout, 1);
        shmemi_grp_get(g, mine, me - p2, dest.seg, dest.off, bytes);
        shmemi_grp_signal(g, fdone, me - p2, 1);
        return;
    }
    tmp = shmemi_grp_malloc(g, bytes);
    if (mine != shmemi_buf_addr(src))
        memmove(mine, shmemi_buf_addr(src), bytes);
    if (me + p2 < g->n) {
        shmemi_grp_wait(g, fin, 1);
        combine_from(g, f, elem, mine, me + p2, src.seg, src.off, bytes, tmp);
    }
    for (int r = 0, d = 1; d < p2; r++, d <<= 1) {
        int peer = me ^ d;

        shmemi_grp_release();
        shmemi_grp_signal(g, shmemi_grp_rdy(g, r), peer, 1);
        shmemi_grp_wait(g, shmemi_grp_rdy(g, r), 1);
        shmemi_grp_get(g, tmp, peer, dest.seg, dest.off, bytes);
        shmemi_grp_signal(g, shmemi_grp_rdn(g, r), peer, 1);
        shmemi_grp_wait(g, shmemi_grp_rdn(g, r), 1); /* peer has read ours: now change it */
        f(mine, tmp, count);
    }
    free(tmp);
    if (me + p2 < g->n) {
        shmemi_grp_release();
        shmemi_grp_signal(g, fout, me + p2, 1);
        shmemi_grp_wait(g, fdone, 1);
    }
}

/* Slots of `bytes` a pushed reduction over g needs in pWrk: the fold's
 * and one per round. */
static size_t pushed_slots(const struct shmemi_group *g)
{
    size_t slots = 1;

    for (int d = 1; d * 2 <= g->n; d <<= 1)
        slots++;
    return slots;
}

static void pushed(struct shmemi_group *g, shmemi_combine_fn f, size_t elem, struct shmemi_buf dest,
                   struct shmemi_buf src, size_t count, struct shmemi_buf wrk)
{
    size_t bytes = count * elem;
    int p2 = 1, me = g->me;
    char *acc = shmemi_buf_addr(dest), *slot = shmemi_buf_addr(wrk);
    int fin = shmemi_grp_misc(g, SHMEMI_GRP_FOLD_IN), fout = shmemi_grp_misc(g, SHMEMI_GRP_FOLD_OUT);

    while (p2 * 2 <= g->n)
        p2 *= 2;
    shmemi_grp_phase(g);
    if (me >= p2) { /* folded: hand the source over, then wait for the result in dest */
        shmemi_grp_put(g, me - p2, wrk.seg, wrk.off, shmemi_buf_addr(src), bytes);
        shmemi_grp_release_puts(g);
        shmemi_grp_signal(g, fin, me - p2, 1);
        shmemi_grp_wait(g, fout, 1);
        return;
    }
    if (acc != shmemi_buf_addr(src))
        memmove(acc, shmemi_buf_addr(src), bytes);
    if (me + p2 < g->n) {
        shmemi_grp_wait(g, fin, 1);
        f(acc, slot, count);
    }
    for (int r = 0, d = 1; d < p2; r++, d <<= 1) {
        size_t at = (size_t)(r + 1) * bytes;

        shmemi_grp_put(g, me ^ d, wrk.seg, wrk.off + at, acc, bytes);
        shmemi_grp_release_puts(g);
        shmemi_grp_signal(g, shmemi_grp_rdy(g, r), me ^ d, 1);
        shmemi_grp_wait(g, shmemi_grp_rdy(g, r), 1);
        f(acc, slot + at, count);
    }
    if (me + p2 < g->n) {
        shmemi_grp_put(g, me + p2, dest.seg, dest.off, acc, bytes);
        shmemi_grp_release_puts(g);
        shmemi_grp_signal(g, fout, me + p2, 1);
    }
}

static void direct(struct shmemi_group *g, shmemi_combine_fn f, size_t elem, struct shmemi_buf dest,
                   struct shmemi_buf src, size_t count, struct shmemi_buf wrk)
{
    size_t bytes = count * elem, mine = (size_t)g->me * bytes;
    char *slot = shmemi_buf_addr(wrk), *acc = shmemi_buf_addr(dest);

    /* Own share into own slot too (nobody else writes it): dest may be
     * the source. */
    memcpy(slot + mine, shmemi_buf_addr(src), bytes);
    for (int k = 1; k < g->n; k++)
        shmemi_grp_put(g, (g->me + k) % g->n, wrk.seg, wrk.off + mine, slot + mine, bytes);
    shmemi_grp_arrive_all(g);
    memcpy(acc, slot, bytes);
    for (int i = 1; i < g->n; i++)
        f(acc, slot + (size_t)i * bytes, count);
}

static void reduce_scatter(struct shmemi_group *g, shmemi_combine_fn f, size_t elem, struct shmemi_buf dest,
                           struct shmemi_buf src, size_t count)
{
    size_t per = count / (size_t)g->n, extra = count % (size_t)g->n;
    size_t lo = (size_t)g->me * per + ((size_t)g->me < extra ? (size_t)g->me : extra);
    size_t len = per + ((size_t)g->me < extra);
    char *acc, *bounce = NULL;

    shmemi_grp_barrier(g); /* every source is ready */
    /* Own slice: reduce into a private buffer, since dest may alias the
     * source other members have yet to read. */
    acc = shmemi_grp_malloc(g, len * elem);
    memcpy(acc, shmemi_buf_addr(src) + lo * elem, len * elem);
    if (!g->all_mapped)
        bounce = shmemi_grp_malloc(g, BOUNCE_MAX);
    for (int k = 1; k < g->n && len; k++) {
        int i = (g->me + k) % g->n;
        combine_from(g, f, elem, acc, i, src.seg, src.off + lo * elem, len * elem, bounce);
    }
    shmemi_grp_barrier(g); /* every source has been read */
    memcpy(shmemi_buf_addr(dest) + lo * elem, acc, len * elem);
    free(acc);
    free(bounce);
    shmemi_grp_barrier(g); /* every slice is in its owner's dest */
    for (int k = 1; k < g->n; k++) {
        int i = (g->me + k) % g->n;
        size_t ilo = (size_t)i * per + ((size_t)i < extra ? (size_t)i : extra), ilen = per + ((size_t)i < extra);
        shmemi_grp_get(g, shmemi_buf_addr(dest) + ilo * elem, i, dest.seg, dest.off + ilo * elem, ilen * elem);
    }
    shmemi_grp_barrier(g); /* nobody changes dest while it is read */
}

void shmemi_coll_reduce(struct shmemi_group *g, enum shmemi_reduce_op op, int dtype, struct shmemi_buf dest,
                        struct shmemi_buf src, size_t count, struct shmemi_buf wrk, size_t wrk_bytes)
{
    shmemi_combine_fn f = shmemi_combine_for(op, dtype, g->routine);
    size_t elem = SHMEMI_DT_SIZE(dtype), bytes = count * elem;
    /* Every member must choose alike: with every member on this node,
     * all see the same oversubscription. */
    size_t rd_max = g->all_mapped && shmemi_world.oversubscribed ? SHMEMI_REDUCE_RD_MAX_OVERSUB : SHMEMI_REDUCE_RD_MAX;
    int alg = shmemi_settings.reduce_alg;

    if (g->n == 1 || !count) {
        if (count && shmemi_buf_addr(dest) != shmemi_buf_addr(src))
            memmove(shmemi_buf_addr(dest), shmemi_buf_addr(src), bytes);
        return;
    }
    if (alg == SHMEMI_ALG_AUTO && shmemi_grp_may_push(g) && (size_t)g->n * bytes <= wrk_bytes) {
        direct(g, f, elem, dest, src, count, wrk);
        return;
    }
    if (alg == SHMEMI_ALG_AUTO)
        alg = bytes <= rd_max || count < (size_t)g->n ? SHMEMI_ALG_RECURSIVE_DOUBLING : SHMEMI_ALG_REDUCE_SCATTER;
    if (alg == SHMEMI_ALG_REDUCE_SCATTER)
        reduce_scatter(g, f, elem, dest, src, count);
    else if (shmemi_grp_may_push(g) && pushed_slots(g) * bytes <= wrk_bytes)
        pushed(g, f, elem, dest, src, count, wrk);
    else
        recursive_doubling(g, f, elem, dest, src, count);
}
