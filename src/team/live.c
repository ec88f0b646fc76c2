/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/live.c — the list of user-created teams and each team's list of
 * shareable contexts, under one lock. The API (api/team.c, api/ctx.c)
 * adds and takes; handle checks (team/check.c) and finalize read.
 */
#include <pthread.h>
#include <stdlib.h>

#include "ctx/ctx.h"
#include "memory/map.h"
#include "base/world.h"
#include "team/live.h"
#include "team/pool.h"

static pthread_mutex_t team_lock = PTHREAD_MUTEX_INITIALIZER; /* live list, ctx lists */
static struct shmemi_team *live;

void shmemi_team_add_live(struct shmemi_team *t)
{
    pthread_mutex_lock(&team_lock);
    t->next_live = live;
    live = t;
    pthread_mutex_unlock(&team_lock);
}

int shmemi_team_is_live(const void *t)
{
    int found = t == &shmemi_team_world || t == &shmemi_team_shared || t == &shmemi_team_node;

    pthread_mutex_lock(&team_lock);
    for (const struct shmemi_team *l = live; l && !found; l = l->next_live)
        found = (const void *)l == t;
    pthread_mutex_unlock(&team_lock);
    return found;
}

void shmemi_team_free_one(struct shmemi_team *t)
{
    pthread_mutex_lock(&team_lock);
    for (struct shmemi_team **pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == t) {
            *pp = t->next_live;
            break;
        }
    pthread_mutex_unlock(&team_lock);
    if (t->block_size && shmemi_map.seg_base[SHMEMI_SEG_CTRL])
        shmemi_pool_give(t->block_off, t->block_size);
    t->magic = 0; /* a stale handle is caught by the check, not used */
    free(t->world_pe);
    free(t);
}

void shmemi_team_free_live(void)
{
    while (live) {
        struct shmemi_team *t = live;
        live = t->next_live;
        t->block_size = 0; /* the pool goes with the heap */
        t->magic = 0;
        free(t->world_pe);
        free(t);
    }
}

void shmemi_team_add_ctx(struct shmemi_team *t, struct shmemi_ctx *ctx)
{
    if (t->predefined)
        return;
    pthread_mutex_lock(&team_lock);
    ctx->team_next = t->ctxs;
    t->ctxs = ctx;
    pthread_mutex_unlock(&team_lock);
}

struct shmemi_ctx *shmemi_team_take_ctxs(struct shmemi_team *t)
{
    struct shmemi_ctx *c;

    pthread_mutex_lock(&team_lock);
    c = t->ctxs;
    t->ctxs = NULL;
    pthread_mutex_unlock(&team_lock);
    return c;
}

void shmemi_team_unlink_ctx(struct shmemi_ctx *ctx)
{
    struct shmemi_team *t = ctx->team;

    if (!t || t->predefined)
        return;
    pthread_mutex_lock(&team_lock);
    for (struct shmemi_ctx **pp = &t->ctxs; *pp; pp = &(*pp)->team_next)
        if (*pp == ctx) {
            *pp = ctx->team_next;
            break;
        }
    pthread_mutex_unlock(&team_lock);
}
