/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/ctx.c — context creation and destruction.
 */
#include <stdlib.h>

#include "ctx/ctx.h"
#include "team/live.h"
#include "shmemi.h"
#include "transport/transport.h"

#define KNOWN_OPTIONS (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)

int shmemi_ctx_new(struct shmemi_team *team, long options, shmem_ctx_t *ctx, const char *routine)
{
    struct shmemi_ctx *c;

    shmemi_check_init(routine);
    if (!ctx)
        shmemi_fatal(routine, "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (options & ~KNOWN_OPTIONS)
        return 1;
    c = malloc(sizeof *c);
    if (!c)
        return 1;
    *c = (struct shmemi_ctx){.tp = {.is_private = (options & SHMEM_CTX_PRIVATE) != 0},
                             .magic = SHMEMI_CTX_MAGIC, .options = options, .team = team};
    *ctx = c;
    return 0;
}

int shmemi_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmemi_ctx_new(&shmemi_team_world, options, ctx, "shmem_ctx_create");
}

void shmemi_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shmemi_fatal("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    shmemi_check_ctx("shmem_ctx_destroy", ctx);
    shmemi_team_unlink_ctx(ctx);
    shmemi_ctx_retire(ctx);
}

void shmemi_ctx_retire(struct shmemi_ctx *ctx)
{
    shmemi_quiet(ctx);
    shmemi_transport_ctx_retired(ctx);
    /* An atomic store, so the compiler keeps it although free follows:
     * the handle check reads the magic of a destroyed context. */
    __atomic_store_n(&ctx->magic, 0, __ATOMIC_RELAXED);
    free(ctx);
}
