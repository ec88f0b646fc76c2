/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/select.c — the choice of path per peer, made once at init.
 *
 *   SHMEM_TRANSPORT=shm   every peer by shared memory (one node only);
 *   SHMEM_TRANSPORT=ofi   every peer, this PE included, by libfabric;
 *   SHMEM_TRANSPORT=auto  node-local peers by shared memory, others by
 *                         libfabric (not opened when all are local).
 *
 * "Node-local" follows SHMEM_VIRTUAL_NODES, applied to the bootstrap's
 * list before this runs. The atomicity domain follows (docs/design.md):
 * CPU atomics only when shared memory serves every peer; otherwise every
 * AMO, to local peers and to this PE too, goes through the provider, so
 * a local peer's RMA points at the shm table and its AMOs at the ofi one.
 * The result is one struct shmemi_peer per PE (transport/peer.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "bootstrap/bootstrap.h"
#include "memory/addr.h"
#include "memory/map.h"
#include "base/world.h"
#include "transport/ofi.h"
#include "transport/transport.h"

struct shmemi_tp shmemi_tp;
_Thread_local int shmemi_tp_collective_puts;

static int ofi_open;
static int *peer_local; /* [pe] in this PE's (virtual) node */
/* [pe] heap / data of peers whose RMA is load/store, else NULL: what the
 * inline paths (shoal/fast.h) may use. */
static char **fast_peer[2];
/* n_pes NULLs: the read tables while reads are held (shmemi_fast_reads_hold). */
static char **fast_none;
static pthread_mutex_t reads_lock = PTHREAD_MUTEX_INITIALIZER;
static int reads_held;

static void use(const struct shmemi_tp_ops *t)
{
    for (int i = 0; i < shmemi_tp.n_in_use; i++)
        if (shmemi_tp.in_use[i] == t)
            return;
    shmemi_tp.in_use[shmemi_tp.n_in_use++] = t;
}

void shmemi_transport_prepare(const struct shmemi_boot_info *bi, const char *routine)
{
    int mode = shmemi_settings.transport, n = bi->size;

    peer_local = calloc((size_t)n, sizeof *peer_local);
    if (!peer_local)
        shmemi_fatal(routine, "out of memory");
    for (int i = 0; i < bi->n_local; i++)
        peer_local[bi->local_pes[i]] = 1;

    if (mode == SHMEMI_PATH_SHM && bi->n_local != n)
        shmemi_fatal(routine, "SHMEM_TRANSPORT=shm, but %d of the job's %d PEs are on other %snodes: "
                     "use SHMEM_TRANSPORT=auto or ofi", n - bi->n_local, n,
                     shmemi_settings.virtual_nodes > 1 ? "(virtual) " : "");
    ofi_open = mode == SHMEMI_PATH_OFI || (mode == SHMEMI_PATH_AUTO && bi->n_local != n);
    if (ofi_open)
        shmemi_ofi_open(routine);
}

/* One peer: load/store for RMA when it is node-local and mapped (and the
 * job does not force libfabric), CPU atomics only while libfabric is
 * closed; this PE's own memory is always load/store accessible. */
static void build_peer(struct shmemi_peer *p, int pe, int all_ofi, const char *routine)
{
    int mapped = shmemi_peer_addr(SHMEMI_SEG_HEAP, 0, pe) != NULL;
    int loadstore = !ofi_open || (!all_ofi && peer_local[pe] && mapped);

    if (!ofi_open && !mapped)
        shmemi_fatal(routine, "PE %d's heap is not mapped here", pe);
    if (loadstore || pe == shmemi_world.my_pe)
        for (int s = 0; s < SHMEMI_SEG_COUNT; s++)
            p->base[s] = shmemi_peer_addr(s, 0, pe);
    if (loadstore) {
        p->rma = &shmemi_tp_shm_ops;
        p->flags = SHMEMI_PEER_LOADSTORE;
        fast_peer[0][pe] = p->base[SHMEMI_SEG_HEAP];
        fast_peer[1][pe] = p->base[SHMEMI_SEG_DATA];
    } else {
        p->rma = &shmemi_tp_ofi_ops;
        p->flags = SHMEMI_PEER_NET;
    }
    if (!ofi_open) {
        p->amo = &shmemi_tp_shm_ops;
        p->flags |= SHMEMI_PEER_CPU_AMO;
    } else {
        p->amo = &shmemi_tp_ofi_ops;
    }
    /* Fence and quiet cover every table in use: in a mixed job that
     * includes shm's CPU fence, which orders memcpy puts to local peers
     * before later AMOs through the provider, even when the provider
     * orders its own writes (fence is then free on the ofi side). */
    use(p->rma);
    use(p->amo);
}

void shmemi_transport_select(const char *routine)
{
    int n = shmemi_world.n_pes, all_ofi = shmemi_settings.transport == SHMEMI_PATH_OFI;
    struct shmemi_peer *peer = calloc((size_t)n, sizeof *peer);

    for (int s = 0; s < 2; s++)
        fast_peer[s] = calloc((size_t)n, sizeof(char *));
    fast_none = calloc((size_t)n, sizeof(char *));
    if (!peer || !fast_peer[0] || !fast_peer[1] || !fast_none)
        shmemi_fatal(routine, "out of memory");
    if (ofi_open)
        shmemi_ofi_connect(routine);
    shmemi_tp.n_in_use = 0;
    for (int pe = 0; pe < n; pe++)
        build_peer(&peer[pe], pe, all_ofi, routine);
    shmemi_tp.peer = peer;
}

/* The old mappings stay valid (memory/heap.c keeps them), so a thread
 * that read an old base meanwhile still reaches the same memory. */
void shmemi_transport_rebase(void)
{
    for (int pe = 0; pe < shmemi_world.n_pes && shmemi_tp.peer; pe++) {
        struct shmemi_peer *p = &shmemi_tp.peer[pe];

        if (pe == shmemi_world.my_pe || !p->base[SHMEMI_SEG_HEAP])
            continue;
        __atomic_store_n(&p->base[SHMEMI_SEG_HEAP], shmemi_peer_addr(SHMEMI_SEG_HEAP, 0, pe), __ATOMIC_RELAXED);
        __atomic_store_n(&p->base[SHMEMI_SEG_CTRL], shmemi_peer_addr(SHMEMI_SEG_CTRL, 0, pe), __ATOMIC_RELAXED);
        if (p->flags & SHMEMI_PEER_LOADSTORE)
            __atomic_store_n(&fast_peer[0][pe], p->base[SHMEMI_SEG_HEAP], __ATOMIC_RELAXED);
    }
}

void shmemi_transport_start(void)
{
    if (ofi_open)
        shmemi_ofi_start();
}

void shmemi_transport_release(void)
{
    /* A PE leaving the final barrier may still be the target of a peer's
     * last operation (the unlock of a software AMO, a barrier signal):
     * nobody closes its endpoint before everybody is past that point. The
     * bootstrap fence needs no libfabric progress, so it cannot deadlock. */
    if (ofi_open) {
        shmemi_boot_exchange("shmem_finalize");
        shmemi_ofi_close();
    }
    ofi_open = 0;
    free(shmemi_tp.peer);
    shmemi_tp = (struct shmemi_tp){0};
    for (int s = 0; s < 2; s++) {
        free(fast_peer[s]);
        fast_peer[s] = NULL;
    }
    free(fast_none);
    fast_none = NULL;
    reads_held = 0;
    free(peer_local);
    peer_local = NULL;
}

/* Sizes stay 0 (inline paths off) until init fills the table. */
void shmemi_fast_fill(void)
{
    struct shmemi_fast_state *f = &shmemi_fast_v2;
    /* Under SHMEM_DEBUG the checked out-of-line routines must run, and
     * under SHMEM_PROFILE the bindings that count every call. */
    int on = !shmemi_settings.debug && !shmemi_settings.profile.mode;

    f->heap_base = shmemi_map.seg_base[SHMEMI_SEG_HEAP];
    f->heap_size = on ? shmemi_map.seg_size[SHMEMI_SEG_HEAP] : 0;
    f->data_base = shmemi_map.seg_base[SHMEMI_SEG_DATA];
    f->data_size = on ? shmemi_map.seg_size[SHMEMI_SEG_DATA] : 0;
    f->heap_peer = fast_peer[0];
    f->data_peer = fast_peer[1];
    f->heap_read_peer = reads_held ? fast_none : fast_peer[0];
    f->data_read_peer = reads_held ? fast_none : fast_peer[1];
    /* libfabric closed: CPU atomics are the atomicity domain and every
     * fence or quiet is a memory fence. */
    f->amo_local = !ofi_open;
    f->order_local = on && !ofi_open;
    f->debug = (shmemi_settings.debug ? SHMEMI_SLOW_DEBUG : 0) | (shmemi_settings.profile.mode ? SHMEMI_SLOW_PROFILE : 0);
    f->n_pes = shmemi_world.n_pes;
}

void shmemi_fast_clear(void)
{
    shmemi_fast_v2 = (struct shmemi_fast_state){0};
}

/* Holds are counted; the read tables are swapped only on 0 <-> 1, under a
 * lock so that the swaps land in the order of the count. */
void shmemi_fast_reads_hold(void)
{
    struct shmemi_fast_state *f = &shmemi_fast_v2;

    pthread_mutex_lock(&reads_lock);
    if (__atomic_fetch_add(&reads_held, 1, __ATOMIC_SEQ_CST) == 0 && f->heap_peer) {
        __atomic_store_n(&f->heap_read_peer, fast_none, __ATOMIC_SEQ_CST);
        __atomic_store_n(&f->data_read_peer, fast_none, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&reads_lock);
}

void shmemi_fast_reads_release(void)
{
    struct shmemi_fast_state *f = &shmemi_fast_v2;

    pthread_mutex_lock(&reads_lock);
    if (__atomic_sub_fetch(&reads_held, 1, __ATOMIC_SEQ_CST) == 0 && f->heap_peer) {
        __atomic_store_n(&f->heap_read_peer, fast_peer[0], __ATOMIC_SEQ_CST);
        __atomic_store_n(&f->data_read_peer, fast_peer[1], __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&reads_lock);
}

int shmemi_fast_reads_held(void)
{
    return __atomic_load_n(&reads_held, __ATOMIC_SEQ_CST);
}

void shmemi_transport_quiet_all(void)
{
    shmemi_transport_quiet_ctx(SHMEM_CTX_DEFAULT);
}

void shmemi_transport_fence_ctx(shmem_ctx_t ctx)
{
    for (int i = 0; i < shmemi_tp.n_in_use; i++)
        shmemi_tp.in_use[i]->fence(ctx);
}

int shmemi_transport_fence_free(void)
{
    return !ofi_open || shmemi_ofi.ordered_writes;
}

int shmemi_transport_amo_acked(void)
{
    return !ofi_open || !shmemi_ofi.posted;
}

void shmemi_transport_quiet_ctx(shmem_ctx_t ctx)
{
    for (int i = 0; i < shmemi_tp.n_in_use; i++)
        shmemi_tp.in_use[i]->quiet(ctx);
}

void shmemi_transport_ctx_retired(shmem_ctx_t ctx)
{
    if (ofi_open)
        shmemi_ofi_ctx_retired(ctx);
}

void shmemi_transport_progress(void)
{
    if (ofi_open)
        shmemi_ofi_progress();
}

void shmemi_transport_wait_step(unsigned spins)
{
    if (ofi_open)
        shmemi_ofi_wait_step(spins);
}

void shmemi_transport_test_step(void)
{
    if (ofi_open)
        shmemi_ofi_test_step();
}
