/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/bcast.c — broadcast.
 *
 * knomial: a k-nomial tree rooted at the root; a node waits for its
 *   parent's signal, copies the parent's buffer (the root's source, or an
 *   inner node's dest) into its dest, tells the parent it is done
 *   reading, and signals its children. log_K(N) steps; every member copies
 *   the message once. The default up to SHMEMI_BCAST_PIPELINE_MIN.
 * pipelined: a chain in rank order from the root, in chunks: member i
 *   copies chunk c from member i-1 as soon as i-1 has it, so N members
 *   take about (chunks + N) chunk times instead of log(N) whole-message
 *   times. For large messages.
 * A member returns only when those reading its buffer have finished.
 * pushed: up to SHMEMI_BCAST_PUSH_MAX; the 1.4 active-set forms (members
 *   mapped here or reached by the network), and teams of up to
 *   SHMEMI_BCAST_FLAT_MAX with every member mapped (flat only): data is
 *   stored or put straight into members' dest, then (after a fence where
 *   it was put) the member is signalled; nobody waits for an acknowledgement,
 *   so the root returns after its stores (dest must be ready on every
 *   member before anyone calls, as the spec requires, and counted pSync
 *   flags stay exact whoever runs ahead). Two shapes:
 *   flat: the root stores into every member, then signals each
 *     (flat_slot); a leaf's only wait is on the root, so no leaf waits for
 *     another leaf to be scheduled (which, on an oversubscribed node,
 *     costs a trip through the scheduler per tree level). Groups of up to
 *     SHMEMI_BCAST_FLAT_MAX members, or any size when PEs outnumber cores.
 *   tree: the same k-nomial tree, each node storing its copy into its
 *     children's dest (log2(N) steps, N-1 copies spread over the nodes).
 */
#include <string.h>

#include "base/env.h"
#include "coll/algo.h"
#include "coll/coll.h"
#include "coll/tree.h"

/* The buffer member `rank` holds the data in. */
static struct shmemi_buf holder(int rank, int root, int root_writes, struct shmemi_buf dest,
                                struct shmemi_buf src)
{
    (void)root_writes;
    return rank == root ? src : dest;
}

static void knomial(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                    int root, int root_writes)
{
    struct shmemi_tree tr;

    shmemi_grp_phase(g);
    shmemi_tree_of(g, root, &tr);
    if (tr.parent >= 0) {
        struct shmemi_buf from = holder(tr.parent, root, root_writes, dest, src);

        shmemi_grp_wait(g, shmemi_grp_down(g, tr.up_r, tr.up_j), 1);
        shmemi_grp_get(g, shmemi_buf_addr(dest), tr.parent, from.seg, from.off, nbytes);
        shmemi_grp_release();
        shmemi_grp_signal(g, shmemi_grp_up(g, tr.up_r, tr.up_j), tr.parent, 1);
    }
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j)
        shmemi_grp_signal(g, shmemi_grp_down(g, (int)r, j), child, 1);
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j) {
        (void)child;
        shmemi_grp_wait(g, shmemi_grp_up(g, (int)r, j), 1);
    }
}

/* The flag a flat push signals leaf `leaf` in. pSync (counting): the
 * arrivals slot, which no other pushed broadcast uses; several roots may
 * write it over successive calls, which counting allows (each call adds 1
 * and its reader takes 1). Team block (stamped, one writer per slot): the
 * direct slot written by the root alone, so stamps from one writer only
 * grow even when roots change between calls. */
static int flat_slot(const struct shmemi_group *g, int root, int leaf)
{
    return g->counting ? shmemi_grp_arrivals(g) : shmemi_grp_direct(g, (leaf - root + g->n) % g->n);
}

static void pushed_flat(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                        int root)
{
    shmemi_grp_phase(g);
    if (g->me != root) {
        shmemi_grp_wait(g, flat_slot(g, root, g->me), 1);
        return;
    }
    for (int k = 1; k < g->n; k++)
        shmemi_grp_put(g, (root + k) % g->n, dest.seg, dest.off, shmemi_buf_addr(src), nbytes);
    shmemi_grp_release_puts(g);
    for (int k = 1; k < g->n; k++)
        shmemi_grp_signal(g, flat_slot(g, root, (root + k) % g->n), (root + k) % g->n, 1);
}

static void pushed_tree(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                        int root)
{
    struct shmemi_tree tr;
    const char *from = shmemi_buf_addr(g->me == root ? src : dest);

    shmemi_grp_phase(g);
    shmemi_tree_of(g, root, &tr);
    if (tr.parent >= 0)
        shmemi_grp_wait(g, shmemi_grp_down(g, tr.up_r, tr.up_j), 1);
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j) {
        (void)r, (void)j;
        shmemi_grp_put(g, child, dest.seg, dest.off, from, nbytes);
    }
    shmemi_grp_release_puts(g);
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j)
        shmemi_grp_signal(g, shmemi_grp_down(g, (int)r, j), child, 1);
}

static void pipelined(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                      int root, int root_writes)
{
    int rel = (g->me - root + g->n) % g->n, prev = (g->me - 1 + g->n) % g->n, next = (g->me + 1) % g->n;
    int fwd = shmemi_grp_misc(g, SHMEMI_GRP_FWD), bwd = shmemi_grp_misc(g, SHMEMI_GRP_BWD);
    size_t chunk = SHMEMI_BCAST_CHUNK, nchunks;
    int has_next = rel < g->n - 1;

    /* Steps are counted in 20 bits. */
    while (nbytes / chunk >= (1u << 20) - 1)
        chunk *= 2;
    nchunks = (nbytes + chunk - 1) / chunk;
    shmemi_grp_phase(g);
    if (rel == 0) {
        for (size_t c = 1; c <= nchunks && has_next; c++)
            shmemi_grp_signal(g, fwd, next, (unsigned)c);
    } else {
        struct shmemi_buf from = holder(prev, root, root_writes, dest, src);

        for (size_t c = 1; c <= nchunks; c++) {
            size_t at = (c - 1) * chunk, len = nbytes - at < chunk ? nbytes - at : chunk;

            shmemi_grp_wait(g, fwd, (unsigned)c);
            shmemi_grp_get(g, shmemi_buf_addr(dest) + at, prev, from.seg, from.off + at, len);
            if (has_next) {
                shmemi_grp_release();
                shmemi_grp_signal(g, fwd, next, (unsigned)c);
            }
        }
        shmemi_grp_signal(g, bwd, prev, 1);
    }
    if (has_next)
        shmemi_grp_wait(g, bwd, 1);
}

/* A team's broadcast may push too: the spec asks every caller, team form
 * included, to have dest ready on all members before anyone calls, and
 * the root's source is free once its stores are done. Flat only, with one
 * direct slot per root-leaf distance, which team blocks have up to
 * SHMEMI_BARRIER_DIRECT_MAX members. */
static int team_may_push_flat(const struct shmemi_group *g)
{
    return !g->counting && g->all_mapped && g->n <= SHMEMI_BCAST_FLAT_MAX && g->n <= SHMEMI_BARRIER_DIRECT_MAX;
}

int shmemi_coll_broadcast(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                          int root, int root_writes)
{
    int alg = shmemi_settings.bcast_alg;

    if (g->me == root && root_writes && (dest.seg != src.seg || dest.off != src.off))
        memmove(shmemi_buf_addr(dest), shmemi_buf_addr(src), nbytes);
    if (g->n == 1 || !nbytes)
        return 0;
    if (alg == SHMEMI_ALG_AUTO && nbytes <= SHMEMI_BCAST_PUSH_MAX && shmemi_grp_may_push(g)) {
        /* Every member chooses alike: all see the same oversubscription. */
        if (g->n <= SHMEMI_BCAST_FLAT_MAX || shmemi_world.oversubscribed)
            pushed_flat(g, dest, src, nbytes, root);
        else
            pushed_tree(g, dest, src, nbytes, root);
        return 1;
    }
    if (alg == SHMEMI_ALG_AUTO && nbytes <= SHMEMI_BCAST_PUSH_MAX && team_may_push_flat(g)) {
        pushed_flat(g, dest, src, nbytes, root);
        return 1;
    }
    if (alg == SHMEMI_ALG_AUTO)
        alg = nbytes >= SHMEMI_BCAST_PIPELINE_MIN ? SHMEMI_ALG_PIPELINED : SHMEMI_ALG_KNOMIAL;
    if (alg == SHMEMI_ALG_PIPELINED)
        pipelined(g, dest, src, nbytes, root, root_writes);
    else
        knomial(g, dest, src, nbytes, root, root_writes);
    return 0;
}
