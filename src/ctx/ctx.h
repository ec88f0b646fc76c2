/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctx/ctx.h — communication contexts. A context carries its team (PE
 * arguments are relative to it) and its options. On the node-local path
 * every operation completes at once; the network path keeps a context's
 * endpoint and counters in the context's first member (transport/ofi_ctx.c
 * hands the endpoint to the next context once this one is retired;
 * PRIVATE there means its bounce pool takes no lock).
 */
#ifndef SHMEMI_CTX_H
#define SHMEMI_CTX_H

#include <stdint.h>

#include "shmemi.h"
#include "team/team.h"
#include "transport/transport.h"

#define SHMEMI_CTX_MAGIC 0x5c7a11c7u

struct shmemi_ctx {
    /* First: transport/ reaches it from the handle alone. */
    struct shmemi_tp_ctx tp;
    uint32_t magic;        /* cleared on destroy: catches stale handles */
    long options;          /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
    struct shmemi_team *team;
    struct shmemi_ctx *team_next; /* on team->ctxs when made by shmem_team_create_ctx */
};

_Static_assert(__builtin_offsetof(struct shmemi_ctx, tp) == 0, "shmemi_tp_ctx_of casts the handle");

/* A new context on `team` (shmem_ctx_create: the world team). */
int shmemi_ctx_new(struct shmemi_team *team, long options, shmem_ctx_t *ctx, const char *routine);
/* Complete the context's operations, give its transport state back and
 * free it (shmem_ctx_destroy, and shmem_team_destroy for the shareable
 * contexts of the team). */
void shmemi_ctx_retire(struct shmemi_ctx *ctx);

#endif /* SHMEMI_CTX_H */
