/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/team.c — the predefined teams, the default context, the team pool.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "bootstrap/bootstrap.h"
#include "ctx/ctx.h"
#include "base/world.h"
#include "team/live.h"
#include "team/pool.h"
#include "team/team.h"

/* Exported: SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED / SHMEMX_TEAM_NODE are
 * their addresses. They carry the magic from load to unload, so handle
 * checks never depend on init. */
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_world = {.magic = SHMEMI_TEAM_MAGIC,
                                                                              .my_pe = -1};
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_shared = {.magic = SHMEMI_TEAM_MAGIC,
                                                                               .my_pe = -1};
__attribute__((visibility("default"))) struct shmemi_team shmemi_team_node = {.magic = SHMEMI_TEAM_MAGIC,
                                                                             .my_pe = -1};

/* Exported: SHMEM_CTX_DEFAULT is its address; on the world team. */
__attribute__((visibility("default"))) struct shmemi_ctx shmemi_ctx_default = {
    .magic = SHMEMI_CTX_MAGIC,
    .options = 0,
    .team = &shmemi_team_world,
};

/* The bootstrap's node-local PEs, as a strided set when they form one. */
static void local_team(struct shmemi_team *t, const struct shmemi_boot_info *bi, const char *routine)
{
    int n = bi->n_local, strided = 1;

    for (int i = 2; i < n; i++)
        if (bi->local_pes[i] - bi->local_pes[i - 1] != bi->local_pes[1] - bi->local_pes[0])
            strided = 0;
    *t = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .start = bi->local_pes[0],
                              .stride = n > 1 ? bi->local_pes[1] - bi->local_pes[0] : 1, .size = n, .my_pe = -1,
                              .predefined = 1, .all_mapped = -1};
    if (!strided) {
        t->world_pe = malloc((size_t)n * sizeof(int));
        if (!t->world_pe)
            shmemi_fatal(routine, "out of memory");
        memcpy(t->world_pe, bi->local_pes, (size_t)n * sizeof(int));
    }
    for (int i = 0; i < n; i++)
        if (bi->local_pes[i] == bi->rank)
            t->my_pe = i;
}

void shmemi_team_node_setup(const struct shmemi_boot_info *bi, const char *routine)
{
    local_team(&shmemi_team_node, bi, routine);
}

void shmemi_team_setup(const struct shmemi_boot_info *bi, const char *routine)
{
    shmemi_team_world = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .start = 0, .stride = 1,
                                             .size = bi->size, .my_pe = bi->rank, .predefined = 1,
                                             .all_mapped = -1};
    local_team(&shmemi_team_shared, bi, routine);
}

static size_t pool_bytes; /* as carved at init, for messages */

size_t shmemi_team_pool_bytes(size_t min_bytes)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), want = shmemi_settings.team_pool_size;

    if (want < min_bytes)
        want = min_bytes;
    return (want + pg - 1) / pg * pg;
}

size_t shmemi_team_pool_size(void)
{
    return pool_bytes;
}

/* Every PE takes world's block first, then node's, then shared's: same
 * offsets on every PE for world, on every PE of a node for node (world's
 * block is the same size everywhere), and on every PE of a shared team
 * for shared (a shared team lies within one node). */
static void predefined_block(struct shmemi_team *t, size_t bytes, const char *routine)
{
    t->block_size = bytes;
    t->block_off = shmemi_pool_first_fit(0, t->block_size);
    if (t->block_off == SHMEMI_POOL_NONE)
        shmemi_fatal(routine, "SHMEM_TEAM_POOL_SIZE is too small for the predefined teams");
    shmemi_pool_take(t->block_off, t->block_size);
}

void shmemi_team_pool_setup(size_t pool_off, size_t bytes, size_t (*block_bytes)(int n_pes), const char *routine)
{
    if (shmemi_pool_init(pool_off, bytes) != 0)
        shmemi_fatal(routine, "out of memory");
    pool_bytes = bytes;
    predefined_block(&shmemi_team_world, block_bytes(shmemi_team_world.size), routine);
    predefined_block(&shmemi_team_node, block_bytes(shmemi_team_node.size), routine);
    predefined_block(&shmemi_team_shared, block_bytes(shmemi_team_shared.size), routine);
}

void shmemi_team_teardown(void)
{
    shmemi_team_free_live();
    shmemi_pool_fini();
    pool_bytes = 0;
    free(shmemi_team_shared.world_pe);
    shmemi_team_shared = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .my_pe = -1};
    free(shmemi_team_node.world_pe);
    shmemi_team_node = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .my_pe = -1};
    shmemi_team_world = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .my_pe = -1};
}
