/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/peer.h — what transport/ knows about each peer, private to
 * transport/ (everyone else asks through the inline functions of
 * transport.h). One ops table per path; every entry takes the context,
 * and a path that keeps no per-context state ignores it. A peer points
 * at one table for RMA and one for AMOs: node-local peers of a job that
 * also has off-node peers take shm for RMA and ofi for AMOs (one
 * atomicity domain: docs/design.md). transport/select.c builds the table
 * once at init; it is read-only after.
 */
#ifndef SHMEMI_TRANSPORT_PEER_H
#define SHMEMI_TRANSPORT_PEER_H

#include <stddef.h>

#include "base/world.h"
#include "shmemi.h"

/* Complete on return unless nbi is set: put means the source may be
 * reused, get/amo mean the result is here. With nbi an operation may be
 * in flight until the context's quiet. fence orders, quiet completes. */
struct shmemi_tp_ops {
    void (*put)(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n, int nbi,
                const char *routine);
    void (*get)(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                const char *routine);
    /* dtype: SHMEMI_DT of a 4- or 8-byte object (SHMEMI_AMO_DEFINED, asserted
     * where the bindings are compiled). */
    void (*amo)(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                const void *value, const void *cond, void *fetch, int nbi, const char *routine);
    void (*fence)(shmem_ctx_t ctx);
    void (*quiet)(shmem_ctx_t ctx);
    /* A one-way internal signal (collective flags): an 8-byte unsigned SET
     * or ADD on pe that nobody waits for (the receiver polls the word) and
     * no quiet covers. Returns 0 where the path cannot send it so with
     * this PE's signals to one word landing in order: the caller then uses
     * a fetching AMO. */
    int (*signal)(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v, const char *routine);
};

extern const struct shmemi_tp_ops shmemi_tp_shm_ops;
extern const struct shmemi_tp_ops shmemi_tp_ofi_ops;

enum {
    SHMEMI_PEER_LOADSTORE = 1, /* RMA is memcpy through base[] */
    SHMEMI_PEER_CPU_AMO = 2,   /* AMOs are CPU atomics through base[] */
    SHMEMI_PEER_NET = 4,       /* RMA goes through libfabric: every symmetric
                                  address is registered, none need be mapped */
};

struct shmemi_peer {
    /* Load/store address of each segment (what shmem_ptr gives), NULL
     * when not mapped here or not to be used: a peer libfabric serves is
     * not load/store accessible, even on this node; this PE always is. */
    char *base[SHMEMI_SEG_COUNT];
    const struct shmemi_tp_ops *rma;
    const struct shmemi_tp_ops *amo;
    unsigned flags;
};

struct shmemi_tp {
    struct shmemi_peer *peer; /* [n_pes]; NULL before init */
    /* Distinct tables in use, for fence and quiet of a context. */
    const struct shmemi_tp_ops *in_use[2];
    int n_in_use;
};

extern struct shmemi_tp shmemi_tp;

static inline const struct shmemi_peer *shmemi_tp_peer(int pe)
{
    return &shmemi_tp.peer[pe];
}

#endif /* SHMEMI_TRANSPORT_PEER_H */
