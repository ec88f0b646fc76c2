/* SPDX-License-Identifier: BSD-3-Clause */
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
 *   mapped here; the default for up to 4 members when a core is there
 *   for each.
 * central: every member signals rank 0 (the direct slot rank 0 reads
 *   from it), rank 0 waits for all and then releases each (the direct
 *   slot it alone writes at each): two steps, but rank 0 leaves first.
 *   The default of the program's barriers (not those inside collectives)
 *   for teams of up to SHMEMI_BARRIER_DIRECT_MAX mapped here when the
 *   node's PEs outnumber its cores. There a PE leaving a barrier
 *   to wait for another PE's data waits for that PE to get a core; rank
 *   0, the usual root, arrives first (a root's broadcast returns after
 *   its stores) and under direct leaves whenever the scheduler reaches
 *   it, after the last arriver, so its leaves' next broadcast waits out
 *   a scheduling round. Released by rank 0, it has stored before they
 *   look. The price: rank 0 must be scheduled between the last arrival
 *   and the others' exit (barriers back to back at 4 PEs on 2 cores: 2.5
 *   against direct's 1.8 us; a barrier then a broadcast from rank 0, as
 *   OSU times it: the broadcast 0.17 against 1.0 us, the barrier alike).
 *   Collectives' inner barriers, after which every member works alike,
 *   stay direct.
 */
#include "base/env.h"
#include "coll/algo.h"
#include "coll/barrier.h"
#include "coll/tree.h"
#include "transport/transport.h"

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

static void central(struct shmemi_group *g)
{
    if (g->me) {
        shmemi_grp_signal(g, shmemi_grp_direct(g, g->n - g->me), 0, 1);
        shmemi_grp_wait(g, shmemi_grp_direct(g, g->me), 1);
        return;
    }
    for (int k = 1; k < g->n; k++)
        shmemi_grp_wait(g, shmemi_grp_direct(g, k), 1);
    for (int r = 1; r < g->n; r++)
        shmemi_grp_signal(g, shmemi_grp_direct(g, r), r, 1);
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

/* `crowded`: the algorithm auto picks for a team of up to
 * SHMEMI_BARRIER_DIRECT_MAX mapped here when the node's PEs outnumber its
 * cores. */
static void barrier(struct shmemi_group *g, int crowded)
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
    if (alg == SHMEMI_ALG_AUTO && direct_fits(g))
        alg = shmemi_world.oversubscribed ? crowded : g->n <= 4 ? SHMEMI_ALG_DIRECT : alg;
    if (alg == SHMEMI_ALG_TREE)
        tree(g);
    else if (alg == SHMEMI_ALG_DIRECT && direct_fits(g))
        direct(g);
    else if (alg == SHMEMI_ALG_CENTRAL && direct_fits(g))
        central(g);
    else
        dissemination(g);
}

/* Inside a collective, whose members all work alike after it. */
void shmemi_grp_barrier(struct shmemi_group *g)
{
    barrier(g, SHMEMI_ALG_DIRECT);
}

/* The closing barrier of a push by the transport's puts: on return every
 * member's puts to the others are applied at their targets. Where fence
 * is free (the provider orders a PE's writes to a peer), a team of up to
 * SHMEMI_BARRIER_DIRECT_MAX members takes the direct barrier, where a
 * member signals every other itself, so the fence orders its puts before
 * the signal their target waits for. Else the puts are completed first
 * (quiet): a larger group's signals are relayed, and on tcp a fence is a
 * quiet anyway, before more signals than dissemination's. */
void shmemi_grp_barrier_after_puts(struct shmemi_group *g)
{
    if (g->counting || g->all_mapped || g->n > SHMEMI_BARRIER_DIRECT_MAX || !shmemi_transport_fence_free()) {
        shmemi_transport_quiet_all();
        shmemi_grp_barrier(g);
        return;
    }
    shmemi_grp_release_puts(g);
    shmemi_grp_phase(g);
    direct(g);
}

/* The program's barriers (barrier_all, sync_all, team_sync), often
 * followed by a rooted call from rank 0: central when crowded (above). */
void shmemi_barrier_team(struct shmemi_team *t, const char *routine)
{
    struct shmemi_group g;

    shmemi_grp_team(&g, t, routine);
    barrier(&g, SHMEMI_ALG_CENTRAL);
}
