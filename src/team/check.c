/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/check.c — checks of context and team handles (declared in
 * shmemi.h). The context's team gives the PE range; the live list
 * (team/live.c) decides under SHMEM_DEBUG.
 */
#include <stdalign.h>

#include "ctx/ctx.h"
#include "team/live.h"
#include "team/team.h"

/* Below this an address is surely not one of our objects: the first page
 * is never mapped, so a small integer cast to a handle lands here. */
#define SHMEMI_LOWEST_OBJECT 4096u

/* A handle that cannot point to an object of `align` (0 included). */
static int implausible_handle(const void *h, size_t align)
{
    return (uintptr_t)h < SHMEMI_LOWEST_OBJECT || (uintptr_t)h % align;
}

static SHMEMI_NORETURN void fatal_bad_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        shmemi_fatal(routine, "ctx is SHMEM_CTX_INVALID");
    shmemi_fatal(routine, "ctx %p is not a live context (destroyed, or not a context handle)", (void *)ctx);
}

void shmemi_check_ctx(const char *routine, shmem_ctx_t ctx)
{
    /* SHMEM_CTX_INVALID (0) is an implausible handle too. */
    if (__builtin_expect(implausible_handle(ctx, alignof(struct shmemi_ctx)) || ctx->magic != SHMEMI_CTX_MAGIC, 0))
        fatal_bad_ctx(routine, ctx);
}

void shmemi_check_ctx_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmemi_team *t;

    shmemi_check_ctx(routine, ctx);
    t = ctx->team;
    if (__builtin_expect(t == NULL, 0)) /* a private context outlives its team (api/team.c) */
        shmemi_fatal(routine, "ctx %p belongs to a destroyed team", (void *)ctx);
    if ((unsigned)pe >= (unsigned)t->size)
        shmemi_fatal_pe(routine, pe, t->size);
}

void shmemi_check_team_or_invalid(const char *routine, const char *arg, shmem_team_t team)
{
    const struct shmemi_team *t = shmemi_team_of(team);

    if (team == SHMEM_TEAM_INVALID)
        return;
    /* Under SHMEM_DEBUG the live list decides before anything is read
     * through the handle; otherwise the magic word does. */
    if (implausible_handle(t, alignof(struct shmemi_team)) || (shmemi_debug_on() && !shmemi_team_is_live(t)) ||
        t->magic != SHMEMI_TEAM_MAGIC)
        shmemi_fatal(routine, "%s %p is not a live team (destroyed, or not a team handle)", arg, (void *)team);
}

void shmemi_check_team(const char *routine, const char *arg, shmem_team_t team)
{
    shmemi_check_init(routine);
    if (team == SHMEM_TEAM_INVALID)
        shmemi_fatal(routine, "%s is SHMEM_TEAM_INVALID", arg);
    shmemi_check_team_or_invalid(routine, arg, team);
}
