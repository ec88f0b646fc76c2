/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_posted.c — puts and non-fetching AMOs that do not wait for
 * the target (docs/design.md, "Posted operations").
 *
 * Where the provider orders reads after writes (FI_ORDER_RAW, for any
 * size up to the inject size), a put of up to inject_size bytes and a
 * non-fetching AMO are posted without FI_DELIVERY_COMPLETE: the provider
 * counts them complete once it has taken them (libfabric's shm: once
 * they are in the target's command queue), before the target has applied
 * them. A read posted after them to the same PE is ordered after them, so
 * its completion proves that they have been applied there. That is the
 * flush: quiet reads one word of every PE that got posted operations
 * since the last flush, then waits for the read counter (see "Without
 * delivery completion" below for its other use). A get or a
 * fetching AMO needs no flush (the same ordering puts it behind them),
 * and fence is free (the provider orders writes too: ofi_provider.c).
 *
 * On tcp;ofi_rxm only the puts are posted, with FI_INJECT_COMPLETE (its
 * transmit completion is an ack from the target): one connection carries
 * a PE's writes and then the flush read, and the target's tcp places a
 * write's data before it reads on (ofi_provider.c, rxm_over_tcp). Its
 * AMOs stay windowed (ofi_amo.c).
 *
 * (Not with FI_DELIVERY_COMPLETE: on shm a delivery-complete put is a
 * round trip, and a delivery-complete non-fetching atomic returns its
 * inject buffer to the pool twice and corrupts the provider:
 * docs/performance.md, "Platform facts".)
 *
 * Not every such operation is posted: the first to a PE after a flush
 * goes tracked (delivery-complete, or fetching into a discarded word),
 * completed by the counters, so that one operation + quiet is one round
 * trip and not a post plus a flush read (put 8 B + quiet on shm: 0.70
 * against 0.93 us); the later ones are posted, so a stream of them costs
 * one flush read per PE (shmemi_ofi_post_this, ofi.h).
 *
 * The endpoint keeps one bit per PE: set after each post, cleared by the
 * flush that covers it. `flushing` closes the one race: a flush has
 * cleared a thread's bit but not yet counted its read, and that thread's
 * quiet must not find nothing pending and return before the read lands.
 *
 * Without delivery completion (a provider that does not offer
 * FI_DELIVERY_COMPLETE, or SHMEM_OFI_FORCE=transmit_complete), every
 * write (put of any size, non-fetching AMO) completes at transmit and is
 * marked, and quiet's flush is what makes it a delivery guarantee. The
 * read must come after the writes at the target:
 *   - FI_ORDER_RAW: a plain read is ordered after them;
 *   - else FI_FENCE offered: the read carries FI_FENCE;
 *   - else: the flush first waits for the writes' transmit completion,
 *     then reads. That relies on the provider serving one peer's
 *     operations in the order it took them (tcp;ofi_rxm: one connection
 *     per peer), which shoal-info and SHMEM_INFO say.
 */
#include <stdlib.h>
#include <string.h>

#include "memory/ctrl.h"
#include "transport/ofi.h"

/* The promise is the provider's ordering; the provider is shm because its
 * source was read for what the flush relies on (libfabric 1.17: one
 * command queue per target region, applied in order, inline and inject
 * commands applied in full when read, a fetching atomic answered once
 * applied) and the suite passes on it. sockets also claims FI_ORDER_RAW,
 * yet 34 of 137 manual tests failed or hung with posted operations on it
 * (stale values, e.g. wait_and_test_families), none without. */
int shmemi_ofi_reads_after_writes(const struct fi_info *fi)
{
    return strcmp(fi->fabric_attr->prov_name, "shm") == 0 && (fi->tx_attr->msg_order & FI_ORDER_RAW) &&
           fi->ep_attr->max_order_raw_size >= fi->tx_attr->inject_size;
}

void shmemi_ofi_posted_open(struct shmemi_ofi_ep *e, const char *routine)
{
    struct shmemi_ofi_posted *p = &e->posted;

    pthread_mutex_init(&p->lock, NULL);
    if (!shmemi_ofi.puts_posted && !shmemi_ofi.transmit_complete)
        return;
    p->dirty = calloc((size_t)shmemi_world.n_pes / 64 + 1, sizeof *p->dirty);
    p->seen = calloc((size_t)shmemi_world.n_pes, sizeof *p->seen);
    p->epoch = 1;
    if (!p->dirty || !p->seen)
        shmemi_fatal(routine, "out of memory");
}

void shmemi_ofi_posted_close(struct shmemi_ofi_ep *e)
{
    free(e->posted.dirty);
    free(e->posted.seen);
    e->posted.dirty = NULL;
    e->posted.seen = NULL;
    pthread_mutex_destroy(&e->posted.lock);
}

static void flush_read(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    void *desc = o->scratch_desc;
    /* The operand is ignored by FI_ATOMIC_READ, but must be readable. */
    struct fi_ioc ioc = {.addr = &shmemi_ofi_scratch.zero, .count = 1};
    struct fi_ioc res = {.addr = &shmemi_ofi_scratch.discard[1], .count = 1};
    struct fi_rma_ioc rma = {.count = 1};
    struct fi_msg_atomic msg = {.msg_iov = &ioc, .desc = &desc, .iov_count = 1, .addr = shmemi_ofi_addr(pe),
                                .rma_iov = &rma, .rma_iov_count = 1, .datatype = FI_UINT64,
                                .op = FI_ATOMIC_READ};
    /* The endpoint's default flags, as fi_fetch_atomic would take them. */
    uint64_t flags = o->info->tx_attr->op_flags | (o->flush_fence ? FI_FENCE : 0);

    rma.addr = shmemi_ofi_raddr(pe, SHMEMI_SEG_CTRL, SHMEMI_CTRL_OFF(net_probe), &rma.key);
    /* An 8-byte atomic read: shm injects it, where a plain read of 8
     * bytes would go by cross-memory attach (a slow system call here). */
    SHMEMI_OFI_POST(e, &e->r, (msg.context = op_ctx, fi_fetch_atomicmsg(e->ep, &msg, &res, &desc, 1, flags)),
                    "fi_fetch_atomicmsg(FI_ATOMIC_READ)", pe, routine);
}

void shmemi_ofi_posted_flush(struct shmemi_ofi_ep *e, const char *routine)
{
    struct shmemi_ofi_posted *p = &e->posted;
    int shared = !e->is_private;
    size_t words;

    if (!p->dirty)
        return;
    /* A new epoch: the next operation to each PE goes tracked again. */
    __atomic_fetch_add(&p->epoch, 1, __ATOMIC_RELAXED);
    if (!shmemi_ofi_posted_pending(e))
        return;
    if (shared)
        pthread_mutex_lock(&p->lock);
    __atomic_fetch_add(&p->flushing, 1, __ATOMIC_SEQ_CST);
    /* Cleared before the scan: a mark made after it sets it again. */
    __atomic_store_n(&p->any, 0, __ATOMIC_SEQ_CST);
    /* Neither order nor fence: the writes leave first (header comment). */
    if (shmemi_ofi.transmit_complete && !shmemi_ofi.raw && !shmemi_ofi.flush_fence)
        shmemi_ofi_cntr_wait(e, &e->w, -1, routine);
    words = (size_t)shmemi_world.n_pes / 64 + 1;
    for (size_t w = 0; w < words; w++) {
        uint64_t bits;

        if (!__atomic_load_n(&p->dirty[w], __ATOMIC_RELAXED))
            continue;
        bits = __atomic_exchange_n(&p->dirty[w], 0, __ATOMIC_SEQ_CST);
        while (bits) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            flush_read(e, (int)(w * 64) + b, routine);
        }
    }
    __atomic_fetch_sub(&p->flushing, 1, __ATOMIC_SEQ_CST);
    if (shared)
        pthread_mutex_unlock(&p->lock);
}
