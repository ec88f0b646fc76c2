/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/scan.c — prefix sums by rank (1.6 inscan/exscan).
 *
 * direct: after a barrier, member i sums the sources of members 0..i
 *   (0..i-1 when exclusive) into a private buffer; a second barrier (all
 *   sources read) precedes writing dest, so dest may alias source. Two
 *   synchronisations; the default.
 * linear: a chain: member i waits for member i-1's result, reads it (and,
 *   when exclusive, i-1's source), adds its own contribution and passes
 *   on. N-1 sequential steps, but each member reads only one neighbour.
 *   An in-place exclusive scan uses direct (i-1's source is gone).
 */
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "coll/algo.h"
#include "coll/coll.h"

static void direct(struct shmemi_group *g, shmemi_combine_fn f, size_t bytes, int exclusive,
                   struct shmemi_buf dest, struct shmemi_buf src, size_t count)
{
    char *acc = shmemi_grp_malloc(g, bytes), *tmp = shmemi_grp_malloc(g, bytes);
    int last = exclusive ? g->me - 1 : g->me;

    shmemi_grp_barrier(g);
    memset(acc, 0, bytes);
    for (int i = 0; i <= last; i++) {
        shmemi_grp_get(g, tmp, i, src.seg, src.off, bytes);
        f(acc, tmp, count);
    }
    shmemi_grp_barrier(g);
    memcpy(shmemi_buf_addr(dest), acc, bytes);
    free(acc);
    free(tmp);
}

static void linear(struct shmemi_group *g, shmemi_combine_fn f, size_t bytes, int exclusive,
                   struct shmemi_buf dest, struct shmemi_buf src, size_t count)
{
    int fwd = shmemi_grp_misc(g, SHMEMI_GRP_FWD), bwd = shmemi_grp_misc(g, SHMEMI_GRP_BWD);
    char *mine = shmemi_buf_addr(dest), *tmp = shmemi_grp_malloc(g, bytes);

    shmemi_grp_phase(g);
    if (g->me == 0) {
        if (exclusive)
            memset(mine, 0, bytes);
        else if (mine != shmemi_buf_addr(src))
            memmove(mine, shmemi_buf_addr(src), bytes);
    } else {
        /* inclusive: dest = dest[i-1] + src[i]; exclusive: dest[i-1] + src[i-1] */
        if (!exclusive && mine != shmemi_buf_addr(src))
            memmove(mine, shmemi_buf_addr(src), bytes);
        shmemi_grp_wait(g, fwd, 1);
        if (exclusive)
            shmemi_grp_get(g, mine, g->me - 1, src.seg, src.off, bytes);
        shmemi_grp_get(g, tmp, g->me - 1, dest.seg, dest.off, bytes);
        f(mine, tmp, count);
        shmemi_grp_signal(g, bwd, g->me - 1, 1);
    }
    if (g->me < g->n - 1) {
        shmemi_grp_release();
        shmemi_grp_signal(g, fwd, g->me + 1, 1);
        shmemi_grp_wait(g, bwd, 1);
    }
    free(tmp);
}

void shmemi_coll_scan(struct shmemi_group *g, int exclusive, int dtype, struct shmemi_buf dest,
                      struct shmemi_buf src, size_t count)
{
    shmemi_combine_fn f = shmemi_combine_for(SHMEMI_OP_SUM, dtype, g->routine);
    size_t bytes = count * SHMEMI_DT_SIZE(dtype);
    int alias = dest.seg == src.seg && dest.off == src.off;

    if (!count)
        return;
    if (g->n == 1) {
        if (exclusive)
            memset(shmemi_buf_addr(dest), 0, bytes);
        else if (!alias)
            memmove(shmemi_buf_addr(dest), shmemi_buf_addr(src), bytes);
        return;
    }
    if (shmemi_settings.scan_alg == SHMEMI_ALG_LINEAR && !(exclusive && alias))
        linear(g, f, bytes, exclusive, dest, src, count);
    else
        direct(g, f, bytes, exclusive, dest, src, count);
}
