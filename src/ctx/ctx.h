/*
 * ctx/ctx.h — communication contexts. A context carries its team (PE
 * arguments are relative to it) and its options. On the node-local path
 * every operation completes at once, so a context needs no completion
 * state yet; the network path will add per-context counters here.
 */
#ifndef SHMEMI_CTX_H
#define SHMEMI_CTX_H

#include <stdint.h>

#include "shmemi.h"
#include "team/team.h"

#define SHMEMI_CTX_MAGIC 0x5c7a11c7u

struct shmemi_ctx {
    uint32_t magic;        /* cleared on destroy: catches stale handles */
    long options;          /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
    struct shmemi_team *team;
};

#endif /* SHMEMI_CTX_H */
