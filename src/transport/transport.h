/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/transport.h — the one interface between the rest of the core
 * and the paths that move bytes. A peer is reached through the paths
 * transport/select.c chose for it at init (transport/peer.h, private to
 * transport/); remote memory is named by (segment, offset), which maps to
 * a load/store address for node-local peers and to a registered region +
 * key on the network path. Callers use the inline functions below and
 * never look at the peer table.
 *
 * Operations are complete on return unless nbi is set: put means the
 * source buffer may be reused; get/amo mean the result is here. With nbi
 * an operation may still be in flight (its source, or its result,
 * belongs to the library until the context's quiet). fence/quiet
 * order/complete what a path left in flight.
 */
#ifndef SHMEMI_TRANSPORT_H
#define SHMEMI_TRANSPORT_H

#include <stddef.h>

#include "shmemi.h"
#include "transport/peer.h"

struct shmemi_boot_info;
struct shmemi_ofi_ep;

/* What a context keeps for the transport. It is the first member of
 * struct shmemi_ctx (ctx/ctx.h), so transport/ reaches it from a
 * shmem_ctx_t without depending on the layers above. */
struct shmemi_tp_ctx {
    struct shmemi_ofi_ep *ep; /* network endpoint once it has one (atomic) */
    int is_private;           /* SHMEM_CTX_PRIVATE: used by one thread only */
};

static inline struct shmemi_tp_ctx *shmemi_tp_ctx_of(shmem_ctx_t ctx)
{
    return (struct shmemi_tp_ctx *)(void *)ctx;
}

/* What a context's network endpoint has issued and completed so far
 * (shmemx_pcntr_*). Operations on the node-local path complete at once
 * and are not counted; a context with no endpoint reads zeros. */
struct shmemi_tp_counts {
    uint64_t writes_issued, writes_done; /* puts, non-fetching AMOs */
    uint64_t reads_issued, reads_done;   /* gets, fetching AMOs, flush reads */
};
void shmemi_tp_counts(shmem_ctx_t ctx, struct shmemi_tp_counts *out);

/* Before the segment exchange: decide the paths (SHMEM_TRANSPORT,
 * SHMEM_VIRTUAL_NODES already applied to bi), and when libfabric is
 * needed open it, register the segments and publish this PE's address
 * and keys (read back by shmemi_transport_select after the exchange). */
void shmemi_transport_prepare(const struct shmemi_boot_info *bi, const char *routine);
/* Build the peer table; fatal if some peer cannot be reached. */
void shmemi_transport_select(const char *routine);
/* Some peer's heap mapping moved (memory/heap.h, shmemi_heap_reach):
 * point the peer table and the inline paths' tables at the new ones. */
void shmemi_transport_rebase(void);
/* After the world is up: start the progress thread if wanted. */
void shmemi_transport_start(void);
void shmemi_transport_release(void);
/* Publish to / withdraw from the inline fast paths (shoal/fast.h). */
void shmemi_fast_fill(void);
void shmemi_fast_clear(void);
/* While reads are held (a count), inline g and get call the library: a
 * node-local peer may have writes in flight through libfabric (mixed jobs,
 * transport/ofi_amo.c). */
void shmemi_fast_reads_hold(void);
void shmemi_fast_reads_release(void);
int shmemi_fast_reads_held(void);
/* quiet of the default context on every path in use. */
void shmemi_transport_quiet_all(void);
/* fence/quiet of one context on every path in use. */
void shmemi_transport_fence_ctx(shmem_ctx_t ctx);
void shmemi_transport_quiet_ctx(shmem_ctx_t ctx);
/* fence costs nothing: every path in use places a PE's puts and AMOs to
 * one peer in issue order (on tcp;ofi_rxm fence is a quiet). */
int shmemi_transport_fence_free(void);
/* quiet completes a non-fetching AMO by the target's acknowledgement
 * alone (tcp), not by a read of its own (where puts and AMOs are posted
 * and flushed: shm). */
int shmemi_transport_amo_acked(void);
/* A context is being destroyed, its operations complete: whatever a
 * path keeps for it may serve the next context. */
void shmemi_transport_ctx_retired(shmem_ctx_t ctx);
/* Drive a manual-progress network path; every wait loop calls this
 * (through shmemi_backoff) when shmemi_world.net_progress is set. */
void shmemi_transport_progress(void);
/* One unsatisfied poll of a wait loop (spins == 1: a new wait): drive
 * the network path and watch for lost peers (SHMEM_OFI_TIMEOUT). */
void shmemi_transport_wait_step(unsigned spins);
/* One unsatisfied test (shmem_test and its set forms) when
 * shmemi_world.net_progress is set: drive the network path, as a wait
 * loop's poll does, without the lost-peer watch of a wait. */
void shmemi_transport_test_step(void);
/* Before a copy from a node-local peer's memory while reads are held
 * (mixed jobs): complete what ctx's endpoint left in flight to node-local
 * peers (transport/ofi_amo.c). */
void shmemi_ofi_local_reads_settle(shmem_ctx_t ctx, const char *routine);

/* ---- questions about a peer (pe: a world PE, in range) ---- */

/* The peer table is built (between init and finalize). */
static inline int shmemi_tp_ready(void)
{
    return shmemi_tp.peer != NULL;
}

/* Load/store address of (seg, off) on pe here (shmem_ptr), or NULL. */
static inline void *shmemi_tp_ptr(int pe, int seg, size_t off)
{
    char *b = shmemi_tp_peer(pe)->base[seg];
    return b ? b + off : NULL;
}

/* pe's heap is load/store accessible here. */
static inline int shmemi_tp_is_mapped(int pe)
{
    return shmemi_tp_peer(pe)->base[SHMEMI_SEG_HEAP] != NULL;
}

/* Every symmetric address of pe can be reached (network: all are
 * registered; node-local: exactly the mapped ones). */
static inline int shmemi_tp_reaches(int pe, int seg, size_t off)
{
    return (shmemi_tp_peer(pe)->flags & SHMEMI_PEER_NET) || shmemi_tp_ptr(pe, seg, off) != NULL;
}

/* Where puts and gets to pe may be done by memcpy, or NULL: they go
 * through the transport (shmemi_tp_put/get). */
static inline char *shmemi_tp_rma_addr(int pe, int seg, size_t off)
{
    const struct shmemi_peer *p = shmemi_tp_peer(pe);
    return (p->flags & SHMEMI_PEER_LOADSTORE) && p->base[seg] ? p->base[seg] + off : NULL;
}

/* Where an AMO on pe may be a CPU atomic instruction, or NULL: it goes
 * through shmemi_tp_amo (the provider is the atomicity domain). */
static inline void *shmemi_tp_cpu_amo_addr(int pe, int seg, size_t off)
{
    const struct shmemi_peer *p = shmemi_tp_peer(pe);
    return (p->flags & SHMEMI_PEER_CPU_AMO) && p->base[seg] ? p->base[seg] + off : NULL;
}

/* Nonzero while a collective puts (coll/group.c): its puts leave at once,
 * not gathered, since its next step is a flag to the same PE
 * (transport/ofi_gather.c). */
extern _Thread_local __attribute__((tls_model("initial-exec"), visibility("hidden"))) int shmemi_tp_collective_puts;

/* ---- operations: one dispatch, peer -> ops -> function ---- */

static inline void shmemi_tp_put(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n,
                                 int nbi, const char *routine)
{
    shmemi_tp_peer(pe)->rma->put(ctx, pe, seg, off, src, n, nbi, routine);
}

static inline void shmemi_tp_get(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                                 const char *routine)
{
    shmemi_tp_peer(pe)->rma->get(ctx, dst, pe, seg, off, n, nbi, routine);
}

static inline void shmemi_tp_amo(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op,
                                 int dtype, const void *value, const void *cond, void *fetch, int nbi,
                                 const char *routine)
{
    shmemi_tp_peer(pe)->amo->amo(ctx, pe, seg, off, op, dtype, value, cond, fetch, nbi, routine);
}

/* A one-way signal to pe's word (peer.h); 0: use a fetching AMO. */
static inline int shmemi_tp_signal(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v,
                                   const char *routine)
{
    return shmemi_tp_peer(pe)->amo->signal(pe, seg, off, op, v, routine);
}

/* Complete what ctx left in flight on the path serving pe's RMA. */
static inline void shmemi_tp_rma_quiet(shmem_ctx_t ctx, int pe)
{
    shmemi_tp_peer(pe)->rma->quiet(ctx);
}

#endif /* SHMEMI_TRANSPORT_H */
