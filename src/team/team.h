/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/team.h — teams: an ordered subset of world PEs. Team PE i is world
 * PE start + i*stride, or world_pe[i] when the set is not strided (e.g.
 * the node-local PEs of a later multi-node job).
 *
 * Each team owns a synchronisation block at the same offset of every
 * member's symmetric heap (team/pool.c): the flags its barriers and
 * collectives signal (coll/group.h gives the layout and the size, which
 * the API passes down). Blocks are agreed on
 * collectively at split time, so the number of live teams is bounded by
 * the pool's size (SHMEM_TEAM_POOL_SIZE), not by a table.
 */
#ifndef SHMEMI_TEAM_H
#define SHMEMI_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "shmemi.h"

struct shmemi_ctx;

#define SHMEMI_TEAM_MAGIC 0x7ea35a11u

struct shmemi_team {
    uint32_t magic;       /* SHMEMI_TEAM_MAGIC while live; cleared on destroy */
    int start, stride, size;
    int my_pe;            /* -1 when this PE is not a member */
    int *world_pe;        /* [size] explicit map, or NULL when strided */
    int predefined;       /* WORLD, SHARED, NODE: never destroyed by the user */
    size_t block_off;     /* sync block: offset in SHMEMI_SEG_CTRL (the pool) */
    size_t block_size;    /* bytes, 0 when the team has none */
    uint64_t epoch;       /* collectives started on this team; never reset, so flags never are */
    int all_mapped;       /* every member's heap is mapped here; -1 until known */
    shmem_team_config_t config;
    long config_mask;
    struct shmemi_ctx *ctxs; /* contexts created on this team (destroyed with it) */
    struct shmemi_team *next_live; /* user teams, for teardown */
};

static inline int shmemi_team_world_pe(const struct shmemi_team *t, int pe)
{
    return t->world_pe ? t->world_pe[pe] : t->start + pe * t->stride;
}

/* Fill SHMEMX_TEAM_NODE from the bootstrap's node-local PEs (narrowed by
 * SHMEM_VIRTUAL_NODES only), then, once narrowed to the PEs whose memory
 * is mapped, SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED. */
struct shmemi_boot_info;
void shmemi_team_node_setup(const struct shmemi_boot_info *bi, const char *routine);
void shmemi_team_setup(const struct shmemi_boot_info *bi, const char *routine);
/* Once the heap exists, before the first barrier: carve the team pool
 * (the last `bytes` of the heap segment) and give the predefined teams
 * blocks of block_bytes(team size) (their layout is coll/'s business, so
 * init asks coll/group.h). Every PE makes the same calls. */
void shmemi_team_pool_setup(size_t pool_off, size_t bytes, size_t (*block_bytes)(int n_pes), const char *routine);
void shmemi_team_teardown(void);

/* Pool bytes to add to the heap segment: SHMEM_TEAM_POOL_SIZE, at least
 * `min_bytes`, page-rounded. */
size_t shmemi_team_pool_bytes(size_t min_bytes);
/* The pool as carved (0 outside init..finalize). */
size_t shmemi_team_pool_size(void);

/* A handle the user passed: NULL for SHMEM_TEAM_INVALID. The bindings
 * have checked it (team/check.c), so the core may dereference it. */
static inline struct shmemi_team *shmemi_team_of(shmem_team_t team)
{
    return (struct shmemi_team *)team;
}

#endif /* SHMEMI_TEAM_H */
