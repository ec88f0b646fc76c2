/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/sync.c — shmem_barrier_all and shmem_sync_all over the world team.
 */
#include "coll/barrier.h"
#include "shmemi.h"
#include "team/team.h"

void shmemi_barrier_all(void)
{
    shmemi_check_init("shmem_barrier_all");
    /* barrier_all = quiet + barrier: every put issued before it is
     * delivered before any PE leaves. */
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    shmemi_barrier_team(&shmemi_team_world, "shmem_barrier_all");
}

void shmemi_sync_all(void)
{
    shmemi_check_init("shmem_sync_all");
    /* No quiet; the barrier's own fence still makes local stores made
     * before it visible after it. */
    shmemi_barrier_team(&shmemi_team_world, "shmem_sync_all");
}
