/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/target.h — resolving a (ctx, pe) argument to a world PE. PE
 * numbers are relative to the context's team (OpenSHMEM 1.5 §9.4).
 */
#ifndef SHMEMI_TARGET_H
#define SHMEMI_TARGET_H

#include "base/world.h"
#include "ctx/ctx.h"

static inline int shmemi_target_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    const struct shmemi_team *t;

    if (!ctx)
        shmemi_check_ctx(routine, ctx); /* reports and exits */
    t = ctx->team;
    if ((unsigned)pe >= (unsigned)t->size)
        shmemi_fatal_pe(routine, pe, t->size);
    return shmemi_team_world_pe(t, pe);
}

#endif /* SHMEMI_TARGET_H */
