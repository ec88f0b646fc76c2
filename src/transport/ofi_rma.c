/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_rma.c — puts, gets, fence and quiet over libfabric, and
 * the ops table. Completion is counted (struct shmemi_ofi_ep):
 *  - a put up to inject_size is injected: the source is reusable at once;
 *    where the provider orders reads after writes (shm, and tcp's one
 *    connection a peer) it is posted without FI_DELIVERY_COMPLETE and
 *    completed by quiet's flush (ofi_posted.c);
 *  - a larger blocking put up to SHMEM_OFI_BOUNCE_SIZE is copied into a
 *    bounce buffer (ofi_bounce.c) and left to quiet, as an injected one;
 *  - a larger put is zero-copy; the blocking form waits for the
 *    endpoint's writes to complete, the nbi form leaves it to quiet;
 *  - a get waits for the endpoint's reads (nbi: left to quiet); it first
 *    completes the endpoint's writes, so a PE reads back what it put
 *    (where reads are ordered after writes, that order is enough);
 *  - fence is free when the provider orders RMA and atomic writes with
 *    each other, and a quiet of the context otherwise;
 *  - quiet flushes posted writes, then waits until both counters reach
 *    the issued counts. Other writes are issued with FI_DELIVERY_COMPLETE,
 *    so a completed write is visible at the target.
 *
 * Direct (libfabric's shm, ofi.c open_domain): a get larger than the
 * inject size, and a put too large to bounce, ask for no delivery
 * completion, and shm does them by cross-memory attach before the call
 * returns (complete, on the target's memory) instead of queueing them;
 * everything else still goes through the target's command queue, in
 * order. A smaller get is an atomic read, queued (get_small_queued): there
 * the system call costs more than the target's turn of its queue (getmem
 * 8 B 1.36 us against 3.7 direct, 4 KiB 2.2 against 3.9), unless the node
 * has more PEs than CPUs, where that turn may be a time slice away. A direct
 * operation would overtake what is still queued to the PE, so it first
 * completes what the endpoint queued (a flush where some writes are
 * posted, else the counters), which keeps reads after writes and fence
 * free. Where shm cannot attach
 * (no CMA between the two processes) it queues them and completes them
 * when the target has served them: the same order, later.
 */
#include <string.h>

#include "base/env.h"
#include "transport/ofi.h"
#include "transport/transport.h"

static void wait_writes(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    shmemi_ofi_cntr_wait(e, &e->w, pe, routine);
}

static void wait_reads(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    shmemi_ofi_cntr_wait(e, &e->r, pe, routine);
}

void shmemi_ofi_writes_visible(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    if (e == &shmemi_ofi.main)
        shmemi_gather_before_read(pe, routine);
    if (shmemi_ofi.raw)
        return; /* the read is ordered after them */
    if (shmemi_ofi.transmit_complete && shmemi_ofi_posted_pending(e))
        shmemi_ofi_quiet_ep(e, routine); /* transmitted is not applied: flush */
    else if (!shmemi_ofi_caught_up(&e->w))
        wait_writes(e, pe, routine);
}

/* Before a direct operation: what this endpoint queued is applied (posted
 * writes, and tracked ones: delivery-complete puts on the write counter,
 * non-fetching AMOs sent as fetching ones on the read counter). */
static void queued_writes_applied(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    if (shmemi_ofi_posted_pending(e)) {
        shmemi_ofi_quiet_ep(e, routine);
        return;
    }
    if (!shmemi_ofi_caught_up(&e->w))
        wait_writes(e, pe, routine);
    if (!shmemi_ofi_caught_up(&e->r))
        wait_reads(e, pe, routine);
}

/* A write or read asking for no delivery completion (direct above). */
static ssize_t rma_direct(struct shmemi_ofi_ep *e, int is_read, void *buf, size_t n, void *desc, int pe,
                          uint64_t raddr, uint64_t key, void *op_ctx)
{
    struct iovec iov = {.iov_base = buf, .iov_len = n};
    struct fi_rma_iov rma = {.addr = raddr, .len = n, .key = key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = shmemi_ofi_addr(pe),
                             .rma_iov = &rma, .rma_iov_count = 1, .context = op_ctx};

    return is_read ? fi_readmsg(e->ep, &msg, 0) : fi_writemsg(e->ep, &msg, 0);
}

/* A put small enough to inject: the source is free on return. */
static void inject_put(struct shmemi_ofi_ep *e, int pe, uint64_t raddr, uint64_t key, const void *src, size_t n,
                       const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct iovec iov = {.iov_base = (void *)src, .iov_len = n};
    struct fi_rma_iov rma = {.addr = raddr, .len = n, .key = key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = shmemi_ofi_addr(pe), .rma_iov = &rma,
                             .rma_iov_count = 1};

    if (o->transmit_complete || (o->puts_posted && shmemi_ofi_post_this(e, pe))) {
        /* Counted once taken; quiet's flush completes it. A completion is
         * asked for explicitly where not posted on shm: tcp;ofi_rxm loses
         * the count of an injected write that asks for none. On tcp, inject
         * completion: transmit completion is the target's ack there. */
        uint64_t flags = FI_INJECT | (o->transmit_complete ? FI_TRANSMIT_COMPLETE
                                      : o->posted          ? 0
                                                           : FI_INJECT_COMPLETE);
        /* Direct: shm attaches only for a target given in one piece; given
         * as the whole and an empty piece after it, the put is copied into
         * the command queue, with no system call (a stream of 8-byte puts:
         * 0.8 us a put, against 1.3 by attach), and quiet's flush covers it. */
        struct fi_rma_iov pieces[2] = {{.addr = raddr, .len = n, .key = key}, {.addr = raddr + n, .len = 0, .key = key}};

        if (o->direct) {
            msg.rma_iov = pieces;
            msg.rma_iov_count = 2;
        }
        /* An aligned word as an atomic write where posted and the PEs have
         * a CPU each: shm's injected atomic takes no endpoint lock, and
         * its target checks one key where the write's two pieces take two
         * (docs/design.md, "Serving while posting"). */
        if (o->word_puts_atomic && n == sizeof(uint64_t) && raddr % sizeof(uint64_t) == 0 &&
            !shmemi_world.oversubscribed)
            SHMEMI_OFI_POST(e, &e->w,
                            fi_inject_atomic(e->ep, src, 1, shmemi_ofi_addr(pe), raddr, key, FI_UINT64, FI_ATOMIC_WRITE),
                            "fi_inject_atomic(FI_ATOMIC_WRITE)", pe, routine);
        else
            SHMEMI_OFI_POST(e, &e->w, (msg.context = op_ctx, fi_writemsg(e->ep, &msg, flags)),
                            "fi_writemsg(FI_INJECT)", pe, routine);
        shmemi_ofi_posted_mark(e, pe);
        if (o->posted)
            shmemi_ofi_posted_serve(e);
        return;
    }
    /* fi_inject_write may count the write complete once it is buffered
     * (tcp;ofi_rxm does): ask for delivery explicitly, so that quiet
     * keeps meaning "visible at the target". */
    SHMEMI_OFI_POST(e, &e->w, (msg.context = op_ctx, fi_writemsg(e->ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE)),
                    "fi_writemsg(FI_INJECT)", pe, routine);
}

/* A lone gathered put, sent as an ungathered put would be (ofi_gather.c):
 * posted, or delivery-complete if it is the first to its PE since quiet's
 * last flush (ofi_posted.c). */
void shmemi_ofi_put_lone(int pe, int seg, size_t off, const void *src, size_t n, const char *routine)
{
    uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key);

    inject_put(&shmemi_ofi.main, pe, raddr, key, src, n, routine);
}

static void put_ep(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, const void *src, size_t n, int nbi,
                   const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    uint64_t key, raddr;
    void *desc = NULL;
    struct fid_mr *mr = NULL;

    /* Small puts of the default context to a PE not mapped here, but not
     * a collective's: its next step is a flag to the same PE, which would
     * then wait for the message to be applied (ofi_gather.c). */
    if (shmemi_gather.on && e == &o->main && n && n <= shmemi_gather.put_max && !shmemi_tp_collective_puts &&
        !(shmemi_tp_peer(pe)->flags & SHMEMI_PEER_LOADSTORE)) {
        shmemi_gather_put(pe, seg, off, src, n, routine);
        return;
    }
    if (e == &o->main)
        shmemi_gather_before_direct_write(pe, routine);
    raddr = shmemi_ofi_raddr(pe, seg, off, &key);
    if (n <= o->inject_size) {
        inject_put(e, pe, raddr, key, src, n, routine);
        return;
    }
    if (o->mr_local)
        desc = shmemi_ofi_seg_desc(src, n);
    /* Bounced: blocking puts, and under FI_MR_LOCAL any put from an
     * unregistered buffer that fits. */
    if (n <= o->bounce_size && (!nbi || (o->mr_local && !desc))) {
        shmemi_ofi_bounce_put(e, pe, raddr, key, src, n, routine);
        return;
    }
    if (o->mr_local && !desc)
        desc = shmemi_ofi_local_reg(e, src, n, FI_WRITE | FI_SEND, &mr, routine);
    if (o->direct) {
        queued_writes_applied(e, pe, routine);
        SHMEMI_OFI_POST(e, &e->w, rma_direct(e, 0, (void *)src, n, desc, pe, raddr, key, op_ctx), "fi_writemsg",
                        pe, routine);
    } else
        SHMEMI_OFI_POST(e, &e->w, fi_write(e->ep, src, n, desc, shmemi_ofi_addr(pe), raddr, key, op_ctx),
                        "fi_write", pe, routine);
    shmemi_ofi_written(e, pe);
    /* Registered for this put: it completes before the registration goes. */
    if (!nbi || mr)
        wait_writes(e, pe, routine);
    shmemi_ofi_local_done(mr);
}

/* A get into an unregistered buffer under FI_MR_LOCAL, small enough for
 * the pool: read there, copy out, before the pool is let go. */
static void get_bounced(struct shmemi_ofi_ep *e, void *dst, int pe, uint64_t raddr, uint64_t key, size_t n,
                        const char *routine)
{
    void *desc;
    char *buf = shmemi_ofi_bounce_grab(e, n, &desc, pe, routine);

    SHMEMI_OFI_POST(e, &e->r, fi_read(e->ep, buf, n, desc, shmemi_ofi_addr(pe), raddr, key, op_ctx), "fi_read", pe,
                    routine);
    wait_reads(e, pe, routine);
    memcpy(dst, buf, n);
    shmemi_ofi_bounce_drop(e);
}

/* A small get where gets are direct: an atomic read (FI_ATOMIC_READ) of
 * its bytes, which shm answers from the target's command queue, behind
 * what this endpoint queued there, with no system call on either side
 * (a direct read is one process_vm_readv, the slow part of a small get
 * on hosts where system calls are dear). Its result is written by this
 * process, so the destination needs no registration unless FI_MR_LOCAL. */
static void get_small_queued(struct shmemi_ofi_ep *e, void *dst, int pe, uint64_t raddr, uint64_t key, size_t n,
                             const char *routine)
{
    /* Whole words where both ends allow it: the target reads element by element. */
    int words = n % 8 == 0 && (raddr | (uintptr_t)dst) % 8 == 0;
    void *desc = NULL;
    struct fi_ioc res = {.addr = dst, .count = words ? n / 8 : n};
    struct fi_rma_ioc rma = {.addr = raddr, .count = res.count, .key = key};
    /* No operand is read for FI_ATOMIC_READ, but one must be given. */
    struct fi_ioc ioc = {.addr = &shmemi_ofi_scratch.zero, .count = res.count};
    struct fi_msg_atomic msg = {.msg_iov = &ioc, .desc = &desc, .iov_count = 1, .addr = shmemi_ofi_addr(pe),
                                .rma_iov = &rma, .rma_iov_count = 1, .datatype = words ? FI_UINT64 : FI_UINT8,
                                .op = FI_ATOMIC_READ};
    uint64_t flags = shmemi_ofi.info->tx_attr->op_flags;

    SHMEMI_OFI_POST(e, &e->r, (msg.context = op_ctx, fi_fetch_atomicmsg(e->ep, &msg, &res, &desc, 1, flags)),
                    "fi_fetch_atomicmsg(FI_ATOMIC_READ)", pe, routine);
}

static void get_ep(struct shmemi_ofi_ep *e, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                   const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key);
    void *desc = NULL;
    struct fid_mr *mr = NULL;

    /* With more PEs than CPUs the target may wait a time slice to serve an
     * atomic read (random 8-byte gets at 8 PEs on 2 CPUs: 0.008 Mop/s a PE
     * queued, 0.032 direct); a direct read needs only this PE's CPU. */
    if (o->direct && n && n <= o->inject_size && !o->mr_local && !shmemi_world.oversubscribed) {
        get_small_queued(e, dst, pe, raddr, key, n, routine);
        if (!nbi)
            shmemi_ofi_round_trip_wait(e, pe, routine);
        return;
    }
    if (o->direct)
        queued_writes_applied(e, pe, routine);
    else
        shmemi_ofi_writes_visible(e, pe, routine);
    if (o->mr_local && !(desc = shmemi_ofi_seg_desc(dst, n))) {
        if (n <= o->bounce_size) {
            get_bounced(e, dst, pe, raddr, key, n, routine);
            return;
        }
        desc = shmemi_ofi_local_reg(e, dst, n, FI_READ | FI_RECV, &mr, routine);
    }
    if (o->direct)
        SHMEMI_OFI_POST(e, &e->r, rma_direct(e, 1, dst, n, desc, pe, raddr, key, op_ctx), "fi_readmsg", pe,
                        routine);
    else
        SHMEMI_OFI_POST(e, &e->r, fi_read(e->ep, dst, n, desc, shmemi_ofi_addr(pe), raddr, key, op_ctx),
                        "fi_read", pe, routine);
    if (!nbi || mr)
        wait_reads(e, pe, routine);
    shmemi_ofi_local_done(mr);
}

/* ---- the ops table: every entry finds the context's endpoint inline
 * (the default context's is shmemi_ofi.main, a created one's is in the
 * context itself), inside shmemi_ofi_enter/leave (ofi.h, "Serialized
 * calls"): a context's first operation may open its endpoint ---- */

static void ofi_put(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n, int nbi,
                    const char *routine)
{
    shmemi_ofi_enter();
    put_ep(shmemi_ofi_ctx_ep(ctx), pe, seg, off, src, n, nbi, routine);
    shmemi_ofi_leave();
}

static void ofi_get(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                    const char *routine)
{
    shmemi_ofi_enter();
    get_ep(shmemi_ofi_ctx_ep(ctx), dst, pe, seg, off, n, nbi, routine);
    shmemi_ofi_leave();
}

static void ofi_fence(shmem_ctx_t ctx)
{
    int dflt = ctx == SHMEM_CTX_DEFAULT || !ctx;

    if (shmemi_ofi.ordered_writes && !(dflt && shmemi_gather.on))
        return;
    shmemi_ofi_enter();
    /* Gathered operations wait only for a write that is not gathered
     * (ofi_gather.c); the rest of the context's writes complete here. */
    if (dflt)
        shmemi_gather_fence();
    if (!shmemi_ofi.ordered_writes)
        shmemi_ofi_quiet_writes(shmemi_ofi_ctx_ep(ctx), "shmem_fence");
    shmemi_ofi_leave();
}

static void ofi_quiet(shmem_ctx_t ctx)
{
    shmemi_ofi_enter();
    shmemi_ofi_quiet_ep(shmemi_ofi_ctx_ep(ctx), "shmem_quiet");
    shmemi_ofi_leave();
}

static int ofi_signal(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v, const char *routine)
{
    int sent;

    shmemi_ofi_enter();
    sent = shmemi_ofi_signal(pe, seg, off, op, v, routine);
    shmemi_ofi_leave();
    return sent;
}

const struct shmemi_tp_ops shmemi_tp_ofi_ops = {
    .put = ofi_put,
    .get = ofi_get,
    .amo = shmemi_ofi_amo, /* ofi_amo.c */
    .fence = ofi_fence,
    .quiet = ofi_quiet,
    .signal = ofi_signal,
};
