/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/alltoall.c — alltoall and alltoalls (the contiguous alltoall is
 * alltoalls with unit strides and elem = the block size).
 *
 * pairwise: after a barrier, member i fetches its block from member
 *   i+s in step s = 1..N-1 (from i^s when N is a power of two), so each
 *   step pairs members off instead of everyone reading one owner; a
 *   closing barrier keeps sources intact until all have read. Reading is
 *   a memcpy for mapped peers: the default.
 * push: after a barrier, member i writes its block into member i+s's
 *   dest, then a closing barrier that completes the writes (a fence
 *   before the direct barrier's signals, up to 8 members where fence is
 *   free; else a quiet: shmemi_grp_barrier_after_puts); for peers reached
 *   by the network, where puts stream and gets round-trip. A 1.4 active
 *   set pushes without either barrier (shmemi_grp_may_push): its
 *   callers made every dest ready before calling, and its stores
 *   complete at once (puts: a fence orders them before the signals), so
 *   each member counts itself in at the others and waits for their
 *   arrivals instead.
 */
#include "base/env.h"
#include "coll/algo.h"
#include "coll/coll.h"
#include "transport/transport.h"

static int partner(const struct shmemi_group *g, int s, int sign)
{
    if ((g->n & (g->n - 1)) == 0)
        return g->me ^ s;
    return (g->me + sign * s + g->n) % g->n;
}

/* Copy nelems elements (elem bytes, strided) between one pair. */
static void move_blocks(struct shmemi_group *g, int push, int peer, struct shmemi_buf dest, struct shmemi_buf src,
                        ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems)
{
    /* Sender s writes its block for receiver r at r's dest slot s. */
    int sender = push ? g->me : peer, receiver = push ? peer : g->me;
    ptrdiff_t so = (ptrdiff_t)((size_t)receiver * nelems) * sst * (ptrdiff_t)elem;
    ptrdiff_t dof = (ptrdiff_t)((size_t)sender * nelems) * dst * (ptrdiff_t)elem;

    if (dst == 1 && sst == 1) {
        if (push)
            shmemi_grp_put(g, peer, dest.seg, dest.off + (size_t)dof, shmemi_buf_addr(src) + so, nelems * elem);
        else
            shmemi_grp_get(g, shmemi_buf_addr(dest) + dof, peer, src.seg, src.off + (size_t)so, nelems * elem);
        return;
    }
    for (size_t k = 0; k < nelems; k++) {
        ptrdiff_t sk = so + (ptrdiff_t)k * sst * (ptrdiff_t)elem, dk = dof + (ptrdiff_t)k * dst * (ptrdiff_t)elem;
        if (push)
            shmemi_grp_put(g, peer, dest.seg, dest.off + (size_t)dk, shmemi_buf_addr(src) + sk, elem);
        else
            shmemi_grp_get(g, shmemi_buf_addr(dest) + dk, peer, src.seg, src.off + (size_t)sk, elem);
    }
}

void shmemi_coll_alltoalls(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, ptrdiff_t dst,
                           ptrdiff_t sst, size_t elem, size_t nelems)
{
    int alg = shmemi_settings.alltoall_alg, push, early = 0;

    if (alg == SHMEMI_ALG_AUTO && shmemi_grp_may_push(g))
        alg = SHMEMI_ALG_PUSH, early = 1;
    if (alg == SHMEMI_ALG_AUTO)
        alg = g->all_mapped ? SHMEMI_ALG_PAIRWISE : SHMEMI_ALG_PUSH;
    push = alg == SHMEMI_ALG_PUSH;
    if (g->n > 1 && !early)
        shmemi_grp_barrier(g); /* sources ready (pull), dests free (push) */
    move_blocks(g, push, g->me, dest, src, dst, sst, elem, nelems);
    for (int s = 1; s < g->n; s++)
        move_blocks(g, push, partner(g, s, push ? 1 : -1), dest, src, dst, sst, elem, nelems);
    if (early) {
        if (g->n > 1)
            shmemi_grp_arrive_all(g);
        return;
    }
    if (g->n > 1 && push)
        shmemi_grp_barrier_after_puts(g);
    else if (g->n > 1)
        shmemi_grp_barrier(g);
}
