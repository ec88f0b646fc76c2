/*
 * transport/transport.h — the one interface between comm/ and the paths
 * that move bytes. A peer is reached through exactly one transport,
 * chosen at init (shmemi_world.tp[pe]); remote memory is named by
 * (segment, offset), which maps to a load/store address for node-local
 * peers and to a registered region + key for a network path.
 *
 * Operations on this interface are complete on return unless stated:
 * put means the source buffer may be reused; get/amo mean the result is
 * here. fence/quiet order/complete what a transport left in flight.
 */
#ifndef SHMEMI_TRANSPORT_H
#define SHMEMI_TRANSPORT_H

#include <stddef.h>

#include "runtime/world.h"
#include "shmemi.h"

struct shmemi_boot_info;

struct shmemi_transport {
    const char *name;
    /* These act on the default context. */
    void (*put)(int pe, int seg, size_t off, const void *src, size_t n, const char *routine);
    void (*get)(void *dst, int pe, int seg, size_t off, size_t n, const char *routine);
    /* dtype: SHMEMI_DT of a 4- or 8-byte object (checked by comm/). */
    void (*amo)(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                const void *cond, void *fetch, const char *routine);
    /* Load/store address of (seg, off) on pe, or NULL if not mapped. */
    void *(*ptr)(int pe, int seg, size_t off);
    void (*fence)(void);
    void (*quiet)(void);

    /* Context-aware forms; NULL when the transport keeps no per-context
     * state (shm: everything completes at once) and the forms above serve
     * every context. With `nbi` set an operation may still be in flight
     * on return (its source, or its result, belongs to the library until
     * the context's quiet). */
    void (*ctx_put)(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n, int nbi,
                    const char *routine);
    void (*ctx_get)(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                    const char *routine);
    void (*ctx_amo)(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                    const void *value, const void *cond, void *fetch, int nbi, const char *routine);
    void (*ctx_fence)(shmem_ctx_t ctx);
    void (*ctx_quiet)(shmem_ctx_t ctx);
};

extern const struct shmemi_transport shmemi_transport_shm;
extern const struct shmemi_transport shmemi_transport_ofi;

/* Before the segment exchange: decide the paths (SHMEM_TRANSPORT,
 * SHMEM_VIRTUAL_NODES already applied to bi), and when libfabric is
 * needed open it, register the segments and publish this PE's address
 * and keys (read back by shmemi_transport_select after the exchange). */
void shmemi_transport_prepare(const struct shmemi_boot_info *bi, const char *routine);
/* Choose a transport per peer; fatal if some peer cannot be reached. */
void shmemi_transport_select(const char *routine);
/* After the world is up: start the progress thread if wanted. */
void shmemi_transport_start(void);
void shmemi_transport_release(void);
/* fence/quiet every transport in use, for one context or the default. */
void shmemi_transport_fence_all(void);
void shmemi_transport_quiet_all(void);
void shmemi_transport_fence_ctx(shmem_ctx_t ctx);
void shmemi_transport_quiet_ctx(shmem_ctx_t ctx);
/* A context is being destroyed, its operations complete: whatever a
 * transport keeps for it may serve the next context. */
void shmemi_transport_ctx_retired(shmem_ctx_t ctx);
/* Drive a manual-progress network path; every wait loop calls this
 * (through shmemi_backoff) when shmemi_world.net_progress is set. */
void shmemi_transport_progress(void);

/* Context-aware dispatch for comm/. */
static inline void shmemi_tp_put(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n,
                                 int nbi, const char *routine)
{
    const struct shmemi_transport *tp = shmemi_world.tp[pe];
    if (tp->ctx_put)
        tp->ctx_put(ctx, pe, seg, off, src, n, nbi, routine);
    else
        tp->put(pe, seg, off, src, n, routine);
}

static inline void shmemi_tp_get(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                                 const char *routine)
{
    const struct shmemi_transport *tp = shmemi_world.tp[pe];
    if (tp->ctx_get)
        tp->ctx_get(ctx, dst, pe, seg, off, n, nbi, routine);
    else
        tp->get(dst, pe, seg, off, n, routine);
}

static inline void shmemi_tp_amo(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op,
                                 int dtype, const void *value, const void *cond, void *fetch, int nbi,
                                 const char *routine)
{
    const struct shmemi_transport *tp = shmemi_world.tp[pe];
    if (tp->ctx_amo)
        tp->ctx_amo(ctx, pe, seg, off, op, dtype, value, cond, fetch, nbi, routine);
    else
        tp->amo(pe, seg, off, op, dtype, value, cond, fetch, routine);
}

#endif /* SHMEMI_TRANSPORT_H */
