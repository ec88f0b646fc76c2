/*
 * coll/barrier.c — barriers over groups.
 *
 * dissemination: in round r, rank i signals rank i + 2^r and waits for
 *   rank i - 2^r, so ceil(log2 N) rounds for any N; every round's flag has
 *   one writer (the default: the fewest sequential steps).
 * tree: arrivals gathered up a k-nomial tree rooted at rank 0, release
 *   sent back down; 2*log_K(N) steps but only N-1 signals per direction
 *   (fewer messages for the network path).
 * direct: rank i signals every other rank (its own slot at each, written
 *   by i alone) and waits for the N-1 signals to it: one step, N-1
 *   signals each. Teams of up to SHMEMI_BARRIER_DIRECT_MAX members
 *   mapped here; the default for up to 4 members, or up to the maximum
 *   when the node's PEs outnumber its cores, where a PE waits for
 *   whichever member the scheduler runs last once, instead of waiting
 *   log2(N) times on particular members.
 */
#include "base/env.h"
#include "coll/algo.h"
#include "coll/barrier.h"
#include "coll/tree.h"

static void dissemination(struct shmemi_group *g)
{
    for (int r = 0, d = 1; d < g->n; r++, d <<= 1) {
        shmemi_grp_signal(g, shmemi_grp_bar(g, r), (g->me + d) % g->n, 1);
        shmemi_grp_wait(g, shmemi_grp_bar(g, r), 1);
    }
}

static int direct_fits(const struct shmemi_group *g)
{
    return !g->counting && g->all_mapped && g->n <= SHMEMI_BARRIER_DIRECT_MAX;
}

static void direct(struct shmemi_group *g)
{
    for (int k = 1; k < g->n; k++)
        shmemi_grp_signal(g, shmemi_grp_direct(g, k), (g->me + k) % g->n, 1);
    for (int k = 1; k < g->n; k++)
        shmemi_grp_wait(g, shmemi_grp_direct(g, k), 1);
}

static void tree(struct shmemi_group *g)
{
    struct shmemi_tree tr;

    shmemi_tree_of(g, 0, &tr);
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j) {
        (void)child;
        shmemi_grp_wait(g, shmemi_grp_up(g, (int)r, j), 1);
    }
    if (tr.parent >= 0) {
        shmemi_grp_signal(g, shmemi_grp_up(g, tr.up_r, tr.up_j), tr.parent, 1);
        shmemi_grp_wait(g, shmemi_grp_down(g, tr.up_r, tr.up_j), 1);
    }
    SHMEMI_TREE_CHILDREN(g, &tr, child, r, j)
        shmemi_grp_signal(g, shmemi_grp_down(g, (int)r, j), child, 1);
}

void shmemi_grp_barrier(struct shmemi_group *g)
{
    /* Our stores before the barrier must be visible to whoever our signal
     * releases (the signal is a seq_cst AMO, but memcpy may have used
     * weakly ordered stores). */
    shmemi_grp_release();
    shmemi_grp_phase(g);
    if (g->n == 1)
        return;
    int alg = shmemi_settings.barrier_alg;

    /* Every member chooses alike: with every member mapped here, all see
     * the same oversubscription. */
    if (alg == SHMEMI_ALG_AUTO && direct_fits(g) && (g->n <= 4 || shmemi_world.oversubscribed))
        alg = SHMEMI_ALG_DIRECT;
    if (alg == SHMEMI_ALG_TREE)
        tree(g);
    else if (alg == SHMEMI_ALG_DIRECT && direct_fits(g))
        direct(g);
    else
        dissemination(g);
}

void shmemi_barrier_team(struct shmemi_team *t)
{
    struct shmemi_group g;

    shmemi_grp_team(&g, t, "shmem_barrier");
    shmemi_grp_barrier(&g);
}
