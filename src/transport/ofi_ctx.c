/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_ctx.c — per-context completion tracking on the network
 * path. Every created context gets its own RDM endpoint with its own
 * counters, so one context's quiet never waits for another's traffic.
 * The endpoint is taken on the context's first network operation and
 * kept in the context itself (struct shmemi_tp_ctx, the first member of
 * the context), so later operations find it with one load
 * (shmemi_ofi_ctx_ep, ofi.h); the table below only owns the endpoints,
 * for reuse and release, and is never searched for a context. A
 * destroyed context gives its endpoint back, quiesced, and the next
 * context to need one takes it: a program that creates and destroys
 * contexts in a loop keeps as many endpoints as it has contexts alive at
 * once (each costs the provider megabytes: tcp;ofi_rxm zeroes 17 MB of
 * buffers per endpoint). Past SHMEMI_OFI_MAX_CTX endpoints, or if the
 * provider refuses another, a context shares the default context's
 * endpoint, which is always correct (quiet then waits for more).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "transport/ofi.h"

#define SHMEMI_OFI_MAX_CTX 64

struct ofi_cx {
    int in_use; /* held by a live context (under table_lock) */
    struct shmemi_ofi_ep ep;
};

static struct ofi_cx *table[SHMEMI_OFI_MAX_CTX];
static int n_table; /* published with release stores */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int exhausted;

struct shmemi_ofi_ep *shmemi_ofi_ctx_ep_first(shmem_ctx_t ctx)
{
    struct shmemi_tp_ctx *tc = shmemi_tp_ctx_of(ctx);
    struct shmemi_ofi_ep *e;
    struct ofi_cx *c;
    int n;

    /* A context that starts on the shared endpoint stays there: its
     * quiet must keep covering what it issued there. */
    if (__atomic_load_n(&exhausted, __ATOMIC_RELAXED)) {
        __atomic_store_n(&tc->ep, &shmemi_ofi.main, __ATOMIC_RELEASE);
        return &shmemi_ofi.main;
    }

    /* First use: creation is rare, so a mutex is fine here. Another
     * thread of a shared context may have got there first. A free
     * endpoint is quiesced; it takes the new context's options. */
    pthread_mutex_lock(&table_lock);
    e = __atomic_load_n(&tc->ep, __ATOMIC_ACQUIRE);
    n = n_table;
    for (int i = 0; i < n && !e; i++)
        if (!table[i]->in_use) {
            table[i]->in_use = 1;
            table[i]->ep.is_private = tc->is_private;
            e = &table[i]->ep;
        }
    if (!e && n < SHMEMI_OFI_MAX_CTX && (c = calloc(1, sizeof *c))) {
        /* shmemi_ofi_ep_open is fatal on failure; a provider out of
         * endpoints is rare enough not to warrant a softer path. */
        shmemi_ofi_ep_open(&c->ep, "shmem_ctx_create");
        c->in_use = 1;
        c->ep.is_private = tc->is_private;
        table[n] = c;
        __atomic_store_n(&n_table, n + 1, __ATOMIC_RELEASE);
        e = &c->ep;
    }
    if (!e) {
        __atomic_store_n(&exhausted, 1, __ATOMIC_RELAXED);
        e = &shmemi_ofi.main;
    }
    __atomic_store_n(&tc->ep, e, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&table_lock);
    return e;
}

void shmemi_ofi_ctx_progress(void)
{
    int n = __atomic_load_n(&n_table, __ATOMIC_ACQUIRE);

    for (int i = 0; i < n; i++) {
        struct fi_cq_entry ent;
        struct ofi_cx *c = __atomic_load_n(&table[i], __ATOMIC_ACQUIRE);
        if (fi_cq_read(c->ep.cq, &ent, 1) == -FI_EAVAIL)
            shmemi_ofi_fail("shmem (network progress)", "an operation of a context", -1, -FI_EIO);
    }
}

void shmemi_ofi_ctx_retired(shmem_ctx_t ctx)
{
    struct shmemi_tp_ctx *tc;
    struct shmemi_ofi_ep *e;

    if (ctx == SHMEM_CTX_DEFAULT || !ctx)
        return;
    tc = shmemi_tp_ctx_of(ctx);
    pthread_mutex_lock(&table_lock);
    e = tc->ep;
    tc->ep = NULL;
    if (e && e != &shmemi_ofi.main) {
        /* The context's own endpoint: hand its slot back. */
        struct ofi_cx *c = (struct ofi_cx *)(void *)((char *)e - offsetof(struct ofi_cx, ep));
        shmemi_ofi_local_writes_retired(e);
        c->in_use = 0;
        __atomic_store_n(&exhausted, 0, __ATOMIC_RELAXED); /* one is free again */
    }
    pthread_mutex_unlock(&table_lock);
}

void shmemi_ofi_ctx_release(void)
{
    for (int i = 0; i < n_table; i++) {
        shmemi_ofi_ep_close(&table[i]->ep);
        free(table[i]);
        table[i] = NULL;
    }
    n_table = 0;
    exhausted = 0;
}

/* Completed before issued: each operation is counted before its post, so
 * the pair read in this order never shows more done than issued. */
static void read_count(struct shmemi_ofi_count *c, uint64_t *issued, uint64_t *done)
{
    *done = c->cntr ? fi_cntr_read(c->cntr) : 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    *issued = __atomic_load_n(&c->issued, __ATOMIC_SEQ_CST);
}

void shmemi_tp_counts(shmem_ctx_t ctx, struct shmemi_tp_counts *out)
{
    struct shmemi_ofi_ep *e;

    *out = (struct shmemi_tp_counts){0};
    if (ctx == SHMEM_CTX_DEFAULT || !ctx)
        e = &shmemi_ofi.main;
    else
        e = __atomic_load_n(&shmemi_tp_ctx_of(ctx)->ep, __ATOMIC_ACQUIRE);
    if (!e || !e->ep) /* never used the network */
        return;
    shmemi_ofi_enter();
    read_count(&e->w, &out->writes_issued, &out->writes_done);
    read_count(&e->r, &out->reads_issued, &out->reads_done);
    shmemi_ofi_leave();
}
