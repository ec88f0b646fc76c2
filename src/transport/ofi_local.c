/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_local.c — what a provider may require of the local side
 * of an operation (docs/providers.md), and what SHMEM_OFI_FORCE makes us
 * do as if it did:
 *
 *  - FI_MR_LOCAL: every local buffer registered, its descriptor passed.
 *    The symmetric heap and the data segment are registered anyway (they
 *    are also remote buffers): their descriptors serve. Other buffers
 *    (stack, malloc): up to SHMEM_OFI_BOUNCE_SIZE through the endpoint's
 *    bounce pool, registered once (ofi_bounce.c); larger ones registered
 *    for the one operation and deregistered once it has completed (a
 *    non-blocking one completes before return then). No cache: a buffer
 *    freed and reused by malloc at the same address may have other pages
 *    behind it, and a registration per call is always right; its cost is
 *    in docs/providers.md. Injected data needs none (fi_inject_write has
 *    no descriptor).
 *  - FI_CONTEXT / FI_CONTEXT2: each operation carries a struct
 *    fi_context2 the provider owns until the operation is counted. They
 *    come from a ring per endpoint, handed out in order; completions are
 *    only counted, so a slot is known free only once both counters have
 *    caught up with everything counted when it was handed out: the wrap
 *    waits for that (as the bounce pool does). Without the mode nothing
 *    of this runs (shmemi_ofi_count_op is one predictable branch).
 */
#include <stdlib.h>

#include "memory/map.h"
#include "transport/ofi.h"

#define RING_SLOTS 1024 /* operations in flight per endpoint before a wrap waits */

struct shmemi_ofi_scratch_words shmemi_ofi_scratch;

void *shmemi_ofi_seg_desc(const void *p, size_t n)
{
    const char *c = p;
    const char *base[SHMEMI_OFI_NREG] = {(const char *)shmemi_map.heap_seg.base,
                                         (const char *)shmemi_map.seg_base[SHMEMI_SEG_DATA]};
    size_t len[SHMEMI_OFI_NREG] = {shmemi_map.heap_seg.size, shmemi_map.seg_size[SHMEMI_SEG_DATA]};

    for (int r = 0; r < SHMEMI_OFI_NREG; r++)
        if (shmemi_ofi.seg_desc[r] && c >= base[r] && n <= len[r] && (size_t)(c - base[r]) <= len[r] - n)
            return shmemi_ofi.seg_desc[r];
    return NULL;
}

static void *reg(struct fid_ep *ep, const void *p, size_t n, uint64_t access, struct fid_mr **mr, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    /* Without FI_MR_PROV_KEY each registration needs a key of its own;
     * the segments have 1 and 2 (ofi_mr.c). */
    static uint64_t next_key = 1ull << 32;
    uint64_t key = __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED);

    SHMEMI_OFI_CHECK(fi_mr_reg(o->domain, p, n, access, 0, key, 0, mr, NULL), "fi_mr_reg (local buffer)", routine);
    if (o->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        SHMEMI_OFI_CHECK(fi_mr_bind(*mr, &ep->fid, 0), "fi_mr_bind (local buffer)", routine);
        SHMEMI_OFI_CHECK(fi_mr_enable(*mr), "fi_mr_enable (local buffer)", routine);
    }
    return fi_mr_desc(*mr);
}

void *shmemi_ofi_local_reg(struct shmemi_ofi_ep *e, const void *p, size_t n, uint64_t access, struct fid_mr **mr,
                           const char *routine)
{
    return reg(e->ep, p, n, access, mr, routine);
}

void shmemi_ofi_local_done(struct fid_mr *mr)
{
    if (mr)
        fi_close(&mr->fid);
}

void *shmemi_ofi_reg_owned(struct fid_ep *ep, void *p, size_t n, struct fid_mr **mr, const char *routine)
{
    return reg(ep, p, n, FI_READ | FI_WRITE | FI_SEND | FI_RECV, mr, routine);
}

void shmemi_ofi_ctxring_open(struct shmemi_ofi_ep *e)
{
    pthread_mutex_init(&e->ctxs.lock, NULL);
}

void shmemi_ofi_ctxring_close(struct shmemi_ofi_ep *e)
{
    free(e->ctxs.slot); /* the endpoint is closed: the provider holds none */
    e->ctxs.slot = NULL;
    pthread_mutex_destroy(&e->ctxs.lock);
}

void *shmemi_ofi_ctx_take(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, const char *routine)
{
    struct shmemi_ofi_ctxring *r = &e->ctxs;
    int shared = !__atomic_load_n(&e->is_private, __ATOMIC_RELAXED);
    void *slot;

    if (shared)
        pthread_mutex_lock(&r->lock);
    if (!r->slot) {
        r->slot = calloc(RING_SLOTS, sizeof *r->slot);
        if (!r->slot)
            shmemi_fatal(routine, "out of memory for %d libfabric operation contexts", RING_SLOTS);
        r->next = 0;
    }
    if (r->next == RING_SLOTS) {
        /* Every slot was counted when handed out (under this lock): once
         * both counters catch up, the provider holds none of them. */
        shmemi_ofi_cntr_wait(e, &e->w, -1, routine);
        shmemi_ofi_cntr_wait(e, &e->r, -1, routine);
        r->next = 0;
    }
    slot = &r->slot[r->next++];
    __atomic_fetch_add(&c->issued, 1, __ATOMIC_SEQ_CST);
    if (shared)
        pthread_mutex_unlock(&r->lock);
    return slot;
}
