/*
 * coll/barrier.c — dissemination barrier: in round r, team PE i signals
 * PE i + 2^r and waits for PE i - 2^r, so ceil(log2 N) rounds for any N.
 *
 * Each (team, round) flag of a PE has exactly one writer, which stores
 * the team's barrier count (epoch). Counts only grow, so flags are never
 * reset, and waiting for "flag >= epoch" is right even when a fast peer
 * has already moved on to the next barrier: it cannot get two ahead,
 * since finishing one barrier needs every member to have arrived.
 */
#include <stdatomic.h>

#include "coll/barrier.h"
#include "comm/backoff.h"
#include "memory/ctrl.h"
#include "team/team.h"
#include "transport/transport.h"

void shmemi_barrier_team(struct shmemi_team *t)
{
    struct shmemi_ctrl *ctrl = (struct shmemi_ctrl *)shmemi_world.seg_base[SHMEMI_SEG_CTRL];
    uint64_t epoch = ++t->barrier_epoch;
    int n = t->size, me = t->my_pe;

    /* Our stores before the barrier must be visible to whoever our signal
     * releases (the signal is a seq_cst AMO, but memcpy may have used
     * weakly ordered stores). */
    atomic_thread_fence(memory_order_seq_cst);
    for (int r = 0, d = 1; d < n; r++, d <<= 1) {
        int to = shmemi_team_world_pe(t, (me + d) % n);
        uint64_t *flag = &ctrl->barrier[t->barrier_slot][r].v;
        size_t off = (size_t)((char *)flag - (char *)ctrl); /* same slot on the peer */
        unsigned spins = 0;

        shmemi_world.tp[to]->amo(to, SHMEMI_SEG_CTRL, off, SHMEMI_AMO_SET, SHMEMI_DT(SHMEMI_DT_UINT, 8),
                                 &epoch, NULL, NULL, "shmem_barrier");
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < epoch)
            shmemi_backoff(&spins);
    }
}
