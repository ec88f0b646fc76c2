/*
 * team/team.c — the predefined teams.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "coll/barrier.h"
#include "runtime/world.h"
#include "team/team.h"

/* Exported: SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED are their addresses. */
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_world = {.my_pe = -1};
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_shared = {.my_pe = -1};

void shmemi_team_setup(const struct shmemi_boot_info *bi, const char *routine)
{
    struct shmemi_team *w = &shmemi_team_world, *s = &shmemi_team_shared;
    int n = bi->n_local, strided = 1;

    *w = (struct shmemi_team){.start = 0, .stride = 1, .size = bi->size, .my_pe = bi->rank,
                              .barrier_slot = SHMEMI_BARRIER_SLOT_WORLD};

    /* Node-local PEs, as a strided set when they form one. */
    for (int i = 2; i < n; i++)
        if (bi->local_pes[i] - bi->local_pes[i - 1] != bi->local_pes[1] - bi->local_pes[0])
            strided = 0;
    *s = (struct shmemi_team){.start = bi->local_pes[0], .stride = n > 1 ? bi->local_pes[1] - bi->local_pes[0] : 1,
                              .size = n, .my_pe = -1, .barrier_slot = SHMEMI_BARRIER_SLOT_SHARED};
    if (!strided) {
        s->world_pe = malloc((size_t)n * sizeof(int));
        if (!s->world_pe)
            shmemi_fatal(routine, "out of memory");
        memcpy(s->world_pe, bi->local_pes, (size_t)n * sizeof(int));
    }
    for (int i = 0; i < n; i++)
        if (bi->local_pes[i] == bi->rank)
            s->my_pe = i;
}

void shmemi_team_teardown(void)
{
    free(shmemi_team_shared.world_pe);
    shmemi_team_shared = (struct shmemi_team){.my_pe = -1};
    shmemi_team_world = (struct shmemi_team){.my_pe = -1};
}
