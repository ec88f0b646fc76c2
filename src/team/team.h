/*
 * team/team.h — teams: an ordered subset of world PEs. Team PE i is world
 * PE start + i*stride, or world_pe[i] when the set is not strided (e.g.
 * the node-local PEs of a later multi-node job).
 */
#ifndef SHMEMI_TEAM_H
#define SHMEMI_TEAM_H

#include <stdint.h>

#include "shmemi.h"

struct shmemi_team {
    int start, stride, size;
    int my_pe;            /* -1 when this PE is not a member */
    int *world_pe;        /* [size] explicit map, or NULL when strided */
    int barrier_slot;     /* this team's flags in the control region */
    uint64_t barrier_epoch; /* barriers completed; never reset, so no flag resets */
};

static inline int shmemi_team_world_pe(const struct shmemi_team *t, int pe)
{
    return t->world_pe ? t->world_pe[pe] : t->start + pe * t->stride;
}

/* Fill SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED from the bootstrap. */
struct shmemi_boot_info;
void shmemi_team_setup(const struct shmemi_boot_info *bi, const char *routine);
void shmemi_team_teardown(void);

#endif /* SHMEMI_TEAM_H */
