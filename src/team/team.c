/*
 * team/team.c — the predefined teams and the team pool.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "coll/group.h"
#include "runtime/env.h"
#include "runtime/world.h"
#include "team/live.h"
#include "team/pool.h"
#include "team/team.h"

/* Exported: SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED are their addresses. They
 * carry the magic from load to unload, so handle checks never depend on init. */
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_world = {.magic = SHMEMI_TEAM_MAGIC,
                                                                              .my_pe = -1};
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_shared = {.magic = SHMEMI_TEAM_MAGIC,
                                                                               .my_pe = -1};

void shmemi_team_setup(const struct shmemi_boot_info *bi, const char *routine)
{
    struct shmemi_team *w = &shmemi_team_world, *s = &shmemi_team_shared;
    int n = bi->n_local, strided = 1;

    *w = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .start = 0, .stride = 1, .size = bi->size,
                              .my_pe = bi->rank, .predefined = 1, .all_mapped = -1};

    /* Node-local PEs, as a strided set when they form one. */
    for (int i = 2; i < n; i++)
        if (bi->local_pes[i] - bi->local_pes[i - 1] != bi->local_pes[1] - bi->local_pes[0])
            strided = 0;
    *s = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .start = bi->local_pes[0],
                              .stride = n > 1 ? bi->local_pes[1] - bi->local_pes[0] : 1, .size = n, .my_pe = -1,
                              .predefined = 1, .all_mapped = -1};
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

size_t shmemi_team_pool_bytes(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), want = shmemi_settings.team_pool_size;
    size_t floor = (size_t)(shmemi_grp_team_slots(1 << 30) * 2) * SHMEMI_POOL_GRANULE;

    /* Room for the two predefined teams at least. */
    if (want < floor)
        want = floor;
    return (want + pg - 1) / pg * pg;
}

/* Every PE takes world's block first, then shared's: same offsets on
 * every PE for world, and on every PE of a node for shared. */
static void predefined_block(struct shmemi_team *t, const char *routine)
{
    t->block_size = (size_t)shmemi_grp_team_slots(t->size) * SHMEMI_POOL_GRANULE;
    t->block_off = shmemi_pool_first_fit(0, t->block_size);
    if (t->block_off == SHMEMI_POOL_NONE)
        shmemi_fatal(routine, "SHMEM_TEAM_POOL_SIZE is too small for the predefined teams");
    shmemi_pool_take(t->block_off, t->block_size);
}

void shmemi_team_pool_setup(size_t pool_off, size_t pool_bytes, const char *routine)
{
    if (shmemi_pool_init(pool_off, pool_bytes) != 0)
        shmemi_fatal(routine, "out of memory");
    predefined_block(&shmemi_team_world, routine);
    predefined_block(&shmemi_team_shared, routine);
}

void shmemi_team_teardown(void)
{
    shmemi_team_free_live();
    shmemi_pool_fini();
    free(shmemi_team_shared.world_pe);
    shmemi_team_shared = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .my_pe = -1};
    shmemi_team_world = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .my_pe = -1};
}
