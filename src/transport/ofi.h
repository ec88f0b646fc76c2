/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi.h — the libfabric path, shared by the ofi*.c files only
 * (the rest of the core reaches it through transport.h). Files: ofi.c
 * (bring-up), ofi_provider.c, ofi_ep.c, ofi_mr.c (registration, address
 * exchange), ofi_progress.c, ofi_liveness.c (lost peers), ofi_ctx.c
 * (contexts' endpoints), ofi_rma.c, ofi_amo.c, ofi_gather.c (puts and
 * AMOs gathered per PE into messages), ofi_bounce.c, ofi_posted.c
 * (posted operations and their flush), ofi_local.c (what a provider
 * may require of the local side: registered buffers, operation
 * contexts; docs/providers.md). One fabric, domain and AV per
 * PE; an RDM endpoint per context (the default context's one is also
 * the target every peer addresses); two completion counters per
 * endpoint, so quiet waits on counts, never on a queue of events.
 */
#ifndef SHMEMI_OFI_H
#define SHMEMI_OFI_H

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>

#include "transport/ofi_lib.h" /* before any libfabric header */
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "base/give_way.h"
#include "base/world.h"
#include "shmemi.h"
#include "transport/ofi_gather.h"

/* Bounce buffers for medium puts (ofi_bounce.c): a byte pool carved in
 * order and reset when every write of the endpoint has completed. */
struct shmemi_ofi_bounce {
    char *base;           /* NULL until the first bounced put */
    size_t size, head;    /* capacity, first free byte */
    struct fid_mr *mr;    /* the pool's registration, under FI_MR_LOCAL */
    void *desc;
    pthread_mutex_t lock; /* not taken for a PRIVATE context's endpoint */
};

/* Puts and non-fetching AMOs posted without FI_DELIVERY_COMPLETE
 * (ofi_posted.c): the PEs they went to since the endpoint's last flush,
 * one bit each, and the flush epoch in which each PE was last addressed. */
struct shmemi_ofi_posted {
    uint64_t *dirty;      /* [n_pes / 64 + 1]; NULL: nothing is posted */
    uint32_t *seen;       /* [n_pes]: epoch of the last put or AMO to the PE */
    uint32_t epoch;       /* flushes so far, plus 1 */
    int any;              /* some bit may be set */
    int flushing;         /* a flush is between clearing bits and counting its reads */
    unsigned since_serve; /* posts since this PE last served its peers (shmemi_ofi_posted_serve) */
    pthread_mutex_t lock; /* one flush at a time (not taken for a PRIVATE context) */
};

/* A completion counter and the operations counted on it. The counts are
 * atomics because shared contexts (and the default one) may be used by
 * several threads; FI_THREAD_SAFE covers the calls. */
struct shmemi_ofi_count {
    struct fid_cntr *cntr;
    uint64_t issued; /* operations posted, each counted before its post */
    uint64_t seen;   /* a value the counter has reached (never above it) */
};

/* Operation contexts (FI_CONTEXT / FI_CONTEXT2, ofi_local.c): handed out
 * in order, each owned by the provider until its operation is counted;
 * all are free again once both counters catch up, which a wrap waits for. */
struct shmemi_ofi_ctxring {
    struct fi_context2 *slot; /* NULL until the first operation */
    unsigned next;
    pthread_mutex_t lock;     /* not taken for a PRIVATE context's endpoint */
};

/* One endpoint with its completion tracking. Writes (puts, posted AMOs)
 * complete on w, reads (gets, fetching AMOs, flushes) on r. */
struct shmemi_ofi_ep {
    struct fid_ep *ep;
    struct fid_cq *cq;        /* errors only: FI_SELECTIVE_COMPLETION */
    struct shmemi_ofi_count w, r;
    int is_private;           /* serves a PRIVATE context: one thread only */
    /* Mixed jobs: AMOs to node-local peers left in flight since the last
     * settle, and settles under way (shmemi_ofi_local_reads_settle). */
    int local_writes, settling;
    struct shmemi_ofi_posted posted;
    struct shmemi_ofi_bounce bounce;
    struct shmemi_ofi_ctxring ctxs;
};

/* Remote view of a peer's registered segment. */
struct shmemi_ofi_remote {
    uint64_t base; /* address to add offsets to (0 without FI_MR_VIRT_ADDR) */
    uint64_t key;
};

#define SHMEMI_OFI_ADDR_MAX 224 /* bytes of an endpoint address (fi_getname) */
#define SHMEMI_OFI_NREG 2 /* registered regions: 0 heap (control region + heap), 1 data */

/* What this PE knows of a peer on the network path: read from the peer's
 * card (ofi_mr.c) on first contact, not at init, so start-up costs no
 * PMIx lookup and no AV entry per peer, and a PE keeps only the peers it
 * talks to (the table is calloc'd: untouched pages cost no memory). */
struct shmemi_ofi_peer {
    fi_addr_t addr;                                   /* in our AV */
    struct shmemi_ofi_remote reg[SHMEMI_OFI_NREG];
    int ready;                                        /* set (release) once filled */
};

struct shmemi_ofi {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct shmemi_ofi_ep main; /* default context; every peer targets it */
    struct fid_mr *mr[SHMEMI_OFI_NREG];
    struct shmemi_ofi_peer *peer;     /* [pe], filled on first contact */
    size_t inject_size;
    size_t bounce_size;  /* largest bounced put; <= inject_size: none */
    int manual_progress;
    int ordered_writes;  /* puts and AMOs are placed in issue order: fence is free */
    /* The provider orders reads after writes (FI_ORDER_RAW, any size): puts
     * up to inject_size and non-fetching AMOs are posted without
     * FI_DELIVERY_COMPLETE and completed by a flush read (ofi_posted.c),
     * and a get needs no wait for earlier writes. */
    int posted;
    /* Puts up to inject_size posted and flushed (ofi_posted.c): where
     * everything is posted, and on tcp;ofi_rxm, whose connection to a peer
     * serves a read after the writes sent before it (not its AMOs). */
    int puts_posted;
    /* [dtype index]: 1 when the provider does every AMO this type needs
     * (docs/design.md: otherwise the locked software path serves them all) */
    int amo_native[6];
    /* Where nothing is posted (not shm): non-fetching native AMOs are
     * injected delivery-complete on the write counter and left to quiet,
     * at most SHMEMI_OFI_AMO_WINDOW of the endpoint's writes in flight. */
    int amo_windowed;
    /* The provider applies its atomics with CPU atomics at the target
     * (tcp;ofi_rxm) and took FI_MSG: puts and non-fetching AMOs may be
     * gathered into messages of Shoal's own (ofi_gather.c). */
    int gather_capable;
    /* Posted non-fetching AMOs (ofi_posted.c) are injected: posted and an
     * inject size of 8 bytes at least. */
    int amo_posted;
    /* Posted 8-byte puts go as atomic writes (ofi_rma.c, inject_put):
     * posted AMOs, no transmit_complete and FI_ATOMIC_WRITE on uint64. */
    int word_puts_atomic;
    int lock_capable;    /* 64-bit unsigned cswap/fetch/write: the software path can run */
    /* What the provider requires of the local side (or SHMEM_OFI_FORCE
     * makes us act as if it did; docs/providers.md). */
    int mr_local;        /* FI_MR_LOCAL: every local buffer registered, desc passed */
    int need_context;    /* FI_CONTEXT/FI_CONTEXT2: a context per operation */
    /* No FI_DELIVERY_COMPLETE (not offered, or forced): writes complete
     * at transmit and quiet flushes every PE written (ofi_posted.c). */
    int transmit_complete;
    int raw;             /* reads ordered after writes (FI_ORDER_RAW, any size) */
    /* libfabric's shm, its domain opened for cross-memory attach: gets and
     * large puts are done by the initiating process, outside the command
     * queue that orders everything else (ofi_rma.c, "Direct"). */
    int direct;
    int flush_fence;     /* no RAW order, FI_FENCE offered: the flush read is fenced */
    uint64_t dc;         /* FI_DELIVERY_COMPLETE, or 0 under transmit_complete */
    void *seg_desc[SHMEMI_OFI_NREG]; /* the segments' local descriptors (FI_MR_LOCAL) */
    struct fid_mr *scratch_mr;       /* shmemi_ofi_scratch's registration (FI_MR_LOCAL) */
    void *scratch_desc;
    /* The domain was opened FI_THREAD_DOMAIN: rxm's lock wrappers are
     * no-ops, and Shoal keeps one thread at a time in libfabric (below,
     * "Serialized calls"). */
    int serial;
    /* libfabric's shm: a flag wait polls every other turn, pauses between
     * (ofi_progress.c, shmemi_ofi_wait_step), and polls by reading
     * remote_writes where the provider counts them (FI_RMA_EVENT): the
     * peers' writes and non-fetching AMOs applied here, bound to the
     * default endpoint. NULL elsewhere. */
    int spaced_polls;
    struct fid_cntr *remote_writes;
};

/* Words the library reads into and never looks at (flush reads, probes,
 * discarded fetches) and a zero operand: registered under FI_MR_LOCAL. */
struct shmemi_ofi_scratch_words {
    uint64_t zero;
    uint64_t discard[7];
};
extern struct shmemi_ofi_scratch_words shmemi_ofi_scratch;

extern struct shmemi_ofi shmemi_ofi;

/* ofi.c: open before the bootstrap exchange (publishes address and
 * keys), connect after it, start once the world is up, close at the end. */
void shmemi_ofi_open(const char *routine);
void shmemi_ofi_connect(const char *routine);
void shmemi_ofi_start(void);
void shmemi_ofi_close(void);

/* ofi_provider.c */
struct fi_info *shmemi_ofi_choose_provider(const char *routine);
const char *shmemi_ofi_choice_reason(void);
/* The chosen provider completes writes at transmit, not delivery. */
int shmemi_ofi_transmit_complete(void);
/* Set the flags of shmemi_ofi that follow from the provider's needs and
 * SHMEM_OFI_FORCE (mr_local, need_context, transmit_complete, raw, ...),
 * and print them with what Shoal does for each. */
void shmemi_ofi_plan(const struct fi_info *fi);
void shmemi_ofi_print_plan(FILE *out, const struct fi_info *fi, const char *indent);
/* Puts and AMOs are placed in issue order: fence needs nothing. */
int shmemi_ofi_writes_ordered(const struct fi_info *fi);
void shmemi_ofi_print_providers(FILE *out);
SHMEMI_NORETURN void shmemi_ofi_fail(const char *routine, const char *call, int pe, ssize_t rc);

#define SHMEMI_OFI_CHECK(call, what, routine)                                                   \
    do {                                                                                        \
        int rc_ = (int)(call);                                                                  \
        if (rc_)                                                                                \
            shmemi_ofi_fail(routine, what, -1, rc_);                                            \
    } while (0)

/* ofi_ep.c */
void shmemi_ofi_ep_open(struct shmemi_ofi_ep *e, const char *routine);
void shmemi_ofi_ep_close(struct shmemi_ofi_ep *e);
void shmemi_ofi_forget_shm_names(void);

/* ofi_mr.c: register and publish (open), make the peer table (connect);
 * a peer's card is read on first contact (shmemi_ofi_peer_of). */
void shmemi_ofi_publish(const char *routine);
void shmemi_ofi_exchange(const char *routine);
void shmemi_ofi_resolve(int pe);
/* Peers resolved so far (SHMEM_INFO, tests of the lazy path). */
int shmemi_ofi_resolved_count(void);
void shmemi_ofi_peers_reset(void);

/* ofi_posted.c: puts and non-fetching AMOs counted complete before the
 * target applied them, and the flush (one read per PE they went to)
 * that completes them. */
int shmemi_ofi_reads_after_writes(const struct fi_info *fi);
void shmemi_ofi_posted_open(struct shmemi_ofi_ep *e, const char *routine);
void shmemi_ofi_posted_close(struct shmemi_ofi_ep *e);
/* Post the flush reads (counted on the read counter; the caller waits). */
void shmemi_ofi_posted_flush(struct shmemi_ofi_ep *e, const char *routine);

/* ofi_progress.c */
void shmemi_ofi_progress(void);
void shmemi_ofi_poll_all(void);
/* Poll one endpoint's queue (errors, probe reads); returns entries read. */
ssize_t shmemi_ofi_ep_poll(struct shmemi_ofi_ep *e);
void shmemi_ofi_progress_thread_start(void);
void shmemi_ofi_progress_thread_stop(void);
/* Nonzero when this PE called into the provider since the progress
 * thread last looked: the thread then stands aside. */
extern int shmemi_ofi_polled;

static inline void shmemi_ofi_mark_polled(void)
{
    /* Read first: a line already holding 1 stays shared between threads. */
    if (!__atomic_load_n(&shmemi_ofi_polled, __ATOMIC_RELAXED))
        __atomic_store_n(&shmemi_ofi_polled, 1, __ATOMIC_RELAXED);
}
/* Counter waits and wait loops do their slower checks (errors, every
 * endpoint's queue, the liveness clock) once per this many polls. */
#define SHMEMI_OFI_POLL_EVERY 16
/* Writes of an endpoint in flight before a windowed AMO waits for room:
 * bounded, so responses in flight are (an unbounded stream once stalled a
 * threaded test), and large enough that a burst of a few hundred never
 * waits (each wait then reads responses in batches; docs/design.md). */
#define SHMEMI_OFI_AMO_WINDOW 512
/* Wait until at most `slack` of c's operations are outstanding (0: the
 * counter has caught up with its issued count, shmemi_ofi_caught_up),
 * progressing everything meanwhile. A snapshot of the count would not
 * do: with threads sharing the endpoint and completions in any order,
 * reaching it would not prove that this thread's operation completed. */
void shmemi_ofi_cntr_wait_slack(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, uint64_t slack, int pe,
                                const char *routine);
/* The read counter's wait of a get or fetching AMO: on shm its polls are
 * paced (ofi_progress.c). */
void shmemi_ofi_round_trip_wait(struct shmemi_ofi_ep *e, int pe, const char *routine);
static inline void shmemi_ofi_cntr_wait(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, int pe,
                                        const char *routine)
{
    shmemi_ofi_cntr_wait_slack(e, c, 0, pe, routine);
}
void shmemi_ofi_quiet_ep(struct shmemi_ofi_ep *e, const char *routine);
/* The same but for gathered operations (fence: ofi_rma.c). */
void shmemi_ofi_quiet_writes(struct shmemi_ofi_ep *e, const char *routine);
/* ofi_amo.c: the endpoint was quieted for good (its context destroyed):
 * its mark of AMOs in flight to node-local peers is void. */
void shmemi_ofi_local_writes_retired(struct shmemi_ofi_ep *e);
/* ofi_rma.c: before a read from pe (get, fetching AMO), this endpoint's
 * earlier writes are visible there, so a PE reads back what it wrote. */
void shmemi_ofi_writes_visible(struct shmemi_ofi_ep *e, int pe, const char *routine);

/* Lost peers (SHMEM_OFI_TIMEOUT, docs/design.md "Lost peers"). A wait
 * keeps one of these; each poll passes a progress mark (a counter value,
 * 0 if none). Towards a known peer (pe >= 0) a mark unchanged for the
 * timeout is fatal, unless the stall is on a context's own endpoint and
 * the peer answers a read on the default one: then that endpoint's
 * connection is slow to set up, and the wait goes on; otherwise the wait
 * probes the off-node peers. */
struct shmemi_ofi_stall {
    uint64_t since_ms; /* 0: not started */
    uint64_t mark;
    const struct shmemi_ofi_ep *ep; /* the stalled transfer's; NULL: the default one's, or none */
};
void shmemi_ofi_stall_check(struct shmemi_ofi_stall *st, uint64_t mark, int pe, const char *routine);
const char *shmemi_ofi_host(int pe);
/* ofi_liveness.c: a completion's context is a probe's (its PE), or -1. */
int shmemi_ofi_probe_pe_of(const void *context);
void shmemi_ofi_probe_done(const void *context);
void shmemi_ofi_probe_failed(const void *context);
void shmemi_ofi_liveness_reset(void);
/* One unsatisfied poll of a wait loop (spins == 1: a new wait): the
 * default endpoint's progress on every poll, the rest now and then. */
void shmemi_ofi_wait_step(unsigned spins);
/* One unsatisfied test (shmem_test and its set forms): drive progress. */
void shmemi_ofi_test_step(void);
void shmemi_ofi_wait_watch(unsigned spins);
/* The routine and peer of this thread's last post: wait loops that
 * know neither name them. */
/* initial-exec: every post writes them, and the default (global-dynamic)
 * model costs a __tls_get_addr call per access in a shared library. */
#define SHMEMI_OFI_TLS __attribute__((tls_model("initial-exec")))
extern _Thread_local SHMEMI_OFI_TLS const char *shmemi_ofi_last_routine;
extern _Thread_local SHMEMI_OFI_TLS int shmemi_ofi_last_pe;

/* ---- Serialized calls (docs/design.md, "One thread in libfabric") ----
 * Below SHMEM_THREAD_MULTIPLE the domain is opened FI_THREAD_DOMAIN where
 * the provider grants it (ofi_provider.c): rxm's lock wrappers are then
 * no-ops (on tcp an add made 7 mutex lock calls at FI_THREAD_SAFE, 3 now),
 * and the one other thread that calls in, the progress thread, must not
 * overlap the PE's own calls. Every way into this transport from the
 * rest of the library that reaches libfabric enters (the operations
 * table, progress, wait and test steps, the counters, the node-local read
 * settle; context retirement does not reach it); the progress thread only
 * tries, and leaves the poll to the PE when the PE is in. Entries nest
 * (a per-thread depth), so a way in may call another; a wait inside one
 * gives the lock up while it yields (shmemi_ofi_yield). One exchange and
 * one store a call, where rxm's four extra lock calls cost eight atomics. */
extern int shmemi_ofi_serial_lock;
extern _Thread_local SHMEMI_OFI_TLS unsigned shmemi_ofi_serial_depth;
void shmemi_ofi_serial_wait(void);

/* Every way into this transport that reaches libfabric enters. */
static inline void shmemi_ofi_enter(void)
{
    if (!shmemi_ofi.serial || shmemi_ofi_serial_depth++)
        return;
    if (__atomic_exchange_n(&shmemi_ofi_serial_lock, 1, __ATOMIC_ACQUIRE))
        shmemi_ofi_serial_wait();
}

static inline void shmemi_ofi_leave(void)
{
    if (!shmemi_ofi.serial || --shmemi_ofi_serial_depth)
        return;
    __atomic_store_n(&shmemi_ofi_serial_lock, 0, __ATOMIC_RELEASE);
}

/* A wait inside a way in gives up the core: give up the lock with it, so
 * that the progress thread (or another thread) can serve peers while this
 * one is off the core, as it could at FI_THREAD_SAFE. Only between two
 * complete provider calls, whose state the other thread may then poll.
 * `spins`: the wait's count of polls (shmemi_wait_yields). */
static inline void shmemi_ofi_yield(unsigned spins)
{
    unsigned depth = shmemi_ofi_serial_depth;

    if (!shmemi_ofi.serial || !depth) {
        shmemi_give_way(shmemi_wait_yield_count(spins));
        return;
    }
    shmemi_ofi_serial_depth = 0;
    __atomic_store_n(&shmemi_ofi_serial_lock, 0, __ATOMIC_RELEASE);
    shmemi_give_way(shmemi_wait_yield_count(spins));
    if (__atomic_exchange_n(&shmemi_ofi_serial_lock, 1, __ATOMIC_ACQUIRE))
        shmemi_ofi_serial_wait();
    shmemi_ofi_serial_depth = depth;
}

/* The progress thread's way in: 0 when the PE (or another thread) is in. */
static inline int shmemi_ofi_try_enter(void)
{
    if (!shmemi_ofi.serial)
        return 1;
    if (shmemi_ofi_serial_depth || __atomic_load_n(&shmemi_ofi_serial_lock, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&shmemi_ofi_serial_lock, 1, __ATOMIC_ACQUIRE))
        return 0;
    shmemi_ofi_serial_depth = 1;
    return 1;
}

/* ofi_ctx.c: a context's first network operation takes it an endpoint
 * (shmemi_ofi_ctx_ep below finds it afterwards). */
struct shmemi_ofi_ep *shmemi_ofi_ctx_ep_first(shmem_ctx_t ctx);
void shmemi_ofi_ctx_progress(void);
/* The context was quieted and is going away: its endpoint is free. */
void shmemi_ofi_ctx_retired(shmem_ctx_t ctx);
void shmemi_ofi_ctx_release(void);

/* ofi_bounce.c: a blocking put of inject_size < n <= bounce_size bytes,
 * copied so that it may complete later (the source is free on return). */
void shmemi_ofi_bounce_put(struct shmemi_ofi_ep *e, int pe, uint64_t raddr, uint64_t key, const void *src,
                           size_t n, const char *routine);
void shmemi_ofi_bounce_release(struct shmemi_ofi_bounce *b);
/* n bytes of the endpoint's (registered) pool with their descriptor, for
 * the local side of one operation under FI_MR_LOCAL: valid until the pool
 * wraps, which waits for every operation of the endpoint. The pool stays
 * held (a blocking caller copies results out first) until _drop. */
char *shmemi_ofi_bounce_grab(struct shmemi_ofi_ep *e, size_t n, void **desc, int pe, const char *routine);
void shmemi_ofi_bounce_drop(struct shmemi_ofi_ep *e);

/* ofi_amo.c: provider atomics, or the locked software path; the
 * operations table's amo itself (one call fewer on every AMO). */
void shmemi_ofi_amo(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                    const void *value, const void *cond, void *fetch, int nbi, const char *routine);
void shmemi_ofi_amo_query(void);
/* A lone gathered operation sent as the provider's own (ofi_gather.c). */
void shmemi_ofi_amo_lone(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                         const char *routine);
void shmemi_ofi_put_lone(int pe, int seg, size_t off, const void *src, size_t n, const char *routine);
/* A one-way signal (peer.h), from the default context's endpoint. */
int shmemi_ofi_signal(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v, const char *routine);
const char *shmemi_ofi_amo_summary(void);

/* Remote (address, key) of (seg, off) on pe, and pe's AV address: each
 * reads pe's card first if this is the first contact. */
static inline uint64_t shmemi_ofi_raddr(int pe, int seg, size_t off, uint64_t *key);
static inline fi_addr_t shmemi_ofi_addr(int pe);

#include "memory/ctrl.h"
#include "memory/map.h"
#include "transport/transport.h"

/* The endpoint serving a context: one compare for the default context,
 * one load for a created one. */
static inline struct shmemi_ofi_ep *shmemi_ofi_ctx_ep(shmem_ctx_t ctx)
{
    struct shmemi_ofi_ep *e;

    if (ctx == SHMEM_CTX_DEFAULT || !ctx)
        return &shmemi_ofi.main;
    e = __atomic_load_n(&shmemi_tp_ctx_of(ctx)->ep, __ATOMIC_ACQUIRE);
    return e ? e : shmemi_ofi_ctx_ep_first(ctx);
}

/* Every path to a peer (RMA, AMOs, flushes, signals, probes, contexts'
 * endpoints, which share the AV) comes through here. */
static inline const struct shmemi_ofi_peer *shmemi_ofi_peer_of(int pe)
{
    const struct shmemi_ofi_peer *p = &shmemi_ofi.peer[pe];

    if (__builtin_expect(!__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE), 0))
        shmemi_ofi_resolve(pe);
    return p;
}

static inline fi_addr_t shmemi_ofi_addr(int pe)
{
    return shmemi_ofi_peer_of(pe)->addr;
}

static inline uint64_t shmemi_ofi_raddr(int pe, int seg, size_t off, uint64_t *key)
{
    int reg = seg == SHMEMI_SEG_DATA;
    const struct shmemi_ofi_remote *r = &shmemi_ofi_peer_of(pe)->reg[reg];

    if (seg == SHMEMI_SEG_HEAP) /* after the control region and pool, alike on every PE */
        off += shmemi_map.seg_size[SHMEMI_SEG_CTRL];
    *key = r->key;
    return r->base + off;
}

/* Close a libfabric object if it was opened (teardown after a partial bring-up). */
#define SHMEMI_OFI_CLOSE(obj)              \
    do {                                   \
        if (obj)                           \
            fi_close(&(obj)->fid);         \
    } while (0)

/* ---- ofi_local.c: the local side of operations ---- */

/* The registered segment holding [p, p + n), as a descriptor, or NULL. */
void *shmemi_ofi_seg_desc(const void *p, size_t n);
/* Register [p, p + n) for one operation of e (FI_MR_LOCAL, a buffer in
 * no registered region and too large for the pool); *mr is closed by
 * shmemi_ofi_local_done once the operation has completed. */
void *shmemi_ofi_local_reg(struct shmemi_ofi_ep *e, const void *p, size_t n, uint64_t access, struct fid_mr **mr,
                           const char *routine);
void shmemi_ofi_local_done(struct fid_mr *mr);
/* Register a library-owned buffer (a pool, the scratch words) for the
 * local side of operations of ep; returns its descriptor. */
void *shmemi_ofi_reg_owned(struct fid_ep *ep, void *p, size_t n, struct fid_mr **mr, const char *routine);
void shmemi_ofi_ctxring_open(struct shmemi_ofi_ep *e);
void shmemi_ofi_ctxring_close(struct shmemi_ofi_ep *e);
void *shmemi_ofi_ctx_take(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, const char *routine);

/* Count an operation on c before it is posted, and give it its context:
 * NULL unless the provider wants one (then a slot of the endpoint's ring,
 * taken and counted under the ring's lock, so that a wrap that waits for
 * every counted operation also covers every slot handed out). */
static inline void *shmemi_ofi_count_op(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, const char *routine)
{
    if (__builtin_expect(shmemi_ofi.need_context, 0))
        return shmemi_ofi_ctx_take(e, c, routine);
    __atomic_fetch_add(&c->issued, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Retry a libfabric call of endpoint e while it returns -FI_EAGAIN,
 * progressing. */
#define SHMEMI_OFI_RETRY(e, call, what, pe, routine)                                            \
    do {                                                                                        \
        ssize_t rc_;                                                                            \
        struct shmemi_ofi_stall st_ = {0, 0, (e)};                                              \
        shmemi_ofi_last_routine = (routine);                                                    \
        shmemi_ofi_last_pe = (pe);                                                              \
        unsigned tries_ = 0;                                                                    \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                  \
            shmemi_ofi_progress();                                                              \
            shmemi_ofi_stall_check(&st_, 0, (pe), (routine));                                   \
            if (shmemi_wait_yields(++tries_))                                                   \
                shmemi_ofi_yield(tries_);                                                       \
        }                                                                                       \
        if (rc_)                                                                                \
            shmemi_ofi_fail(routine, what, pe, rc_);                                            \
    } while (0)

/* Post an operation of endpoint e that completes on its counter c:
 * count it as issued first, and tell the progress thread this PE is in
 * the provider. Counted after the post, another thread's completion could
 * be seen before this count, and a waiter would take that completion for
 * its own (docs/design.md, "Completion"). `call` names `op_ctx`, the
 * operation's context (NULL unless the provider wants one). */
#define SHMEMI_OFI_POST(e, c, call, what, pe, routine)                                          \
    do {                                                                                        \
        void *op_ctx = shmemi_ofi_count_op((e), (c), (routine));                                \
        (void)op_ctx;                                                                           \
        shmemi_ofi_mark_polled();                                                               \
        SHMEMI_OFI_RETRY((e), call, what, pe, routine);                                         \
    } while (0)

/* A put or non-fetching AMO to pe was posted: a later flush must cover pe.
 * Set after the post, so a flush that clears the bit comes after it. */
static inline void shmemi_ofi_posted_mark(struct shmemi_ofi_ep *e, int pe)
{
    uint64_t *w = &e->posted.dirty[pe >> 6], bit = (uint64_t)1 << (pe & 63);

    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&e->posted.any, __ATOMIC_RELAXED))
        __atomic_store_n(&e->posted.any, 1, __ATOMIC_SEQ_CST);
}

/* Posts on shm between two polls of this PE's own queue. */
#define SHMEMI_OFI_SERVE_EVERY 32

/* A put or AMO was posted on shm: every SHMEMI_OFI_SERVE_EVERY-th, serve
 * what the peers queued here. With every PE posting, a queue otherwise
 * drains only when its owner finds a peer's queue full, so each poster
 * stalls on the other. Not with more PEs than CPUs, where it measured
 * slower (docs/design.md, "Serving while posting"). A race between
 * threads only moves the poll. */
static inline void shmemi_ofi_posted_serve(struct shmemi_ofi_ep *e)
{
    unsigned n;

    if (shmemi_world.oversubscribed)
        return;
    n = __atomic_load_n(&e->posted.since_serve, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&e->posted.since_serve, n, __ATOMIC_RELAXED);
    if (__builtin_expect(n % SHMEMI_OFI_SERVE_EVERY == 0, 0))
        shmemi_ofi_progress();
}

/* Messages of windowed AMOs (tcp) between two polls of this PE's own
 * endpoint. */
#define SHMEMI_OFI_SENT_SERVE_EVERY 8

/* A windowed AMO message was sent: every SHMEMI_OFI_SENT_SERVE_EVERY-th,
 * serve the peers' messages here. A PE that only sends applies its
 * peers' AMOs only when its window fills or it quiets, and where PEs
 * share CPUs its peers' windows wait for it meanwhile. Only there: with
 * a CPU each, random adds gained nothing and a stream to one PE lost 8%
 * (measured before gathering took these AMOs: ca7f230). */
static inline void shmemi_ofi_sent_serve(struct shmemi_ofi_ep *e)
{
    unsigned n;

    if (!shmemi_world.oversubscribed)
        return;
    n = __atomic_load_n(&e->posted.since_serve, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&e->posted.since_serve, n, __ATOMIC_RELAXED);
    if (__builtin_expect(n % SHMEMI_OFI_SENT_SERVE_EVERY == 0, 0))
        shmemi_ofi_poll_all(); /* inside the way in of the send */
}

/* Post this put or non-fetching AMO to pe (1), or send it tracked, as a
 * delivery-complete or fetching operation (0)? The first to a PE since
 * the last flush goes tracked, so that a lone operation + quiet costs one
 * round trip (a posted one would cost its post and a flush read); later
 * ones are posted, so that a stream costs one flush. Races between
 * threads only change the choice, which is correct either way. */
static inline int shmemi_ofi_post_this(struct shmemi_ofi_ep *e, int pe)
{
    uint32_t now = __atomic_load_n(&e->posted.epoch, __ATOMIC_RELAXED);

    if (__atomic_load_n(&e->posted.seen[pe], __ATOMIC_RELAXED) == now)
        return 1;
    __atomic_store_n(&e->posted.seen[pe], now, __ATOMIC_RELAXED);
    return 0;
}

/* A write to pe was posted: under transmit_complete quiet must flush it. */
static inline void shmemi_ofi_written(struct shmemi_ofi_ep *e, int pe)
{
    if (__builtin_expect(shmemi_ofi.transmit_complete, 0))
        shmemi_ofi_posted_mark(e, pe);
}

/* Posted operations of this endpoint may not have been applied yet. */
static inline int shmemi_ofi_posted_pending(struct shmemi_ofi_ep *e)
{
    return __atomic_load_n(&e->posted.any, __ATOMIC_SEQ_CST) ||
           __atomic_load_n(&e->posted.flushing, __ATOMIC_SEQ_CST);
}

/* The counter has reached `done`: remember it (a racing thread may store
 * an older value; `seen` then stays below the counter, which is safe). */
static inline void shmemi_ofi_saw(struct shmemi_ofi_count *c, uint64_t done)
{
    if (done > __atomic_load_n(&c->seen, __ATOMIC_RELAXED))
        __atomic_store_n(&c->seen, done, __ATOMIC_RELAXED);
}

/* Every operation counted on c so far is complete. Completions never run
 * ahead of counts (each is counted before its post), so a counter value
 * at or above a later count proves all of those counted earlier; that
 * holds for a value seen before, too, which spares the provider call
 * (and, on tcp, its system calls) when nothing was posted since. */
static inline int shmemi_ofi_caught_up(struct shmemi_ofi_count *c)
{
    uint64_t done;

    if (__atomic_load_n(&c->seen, __ATOMIC_ACQUIRE) >= __atomic_load_n(&c->issued, __ATOMIC_SEQ_CST))
        return 1;
    done = fi_cntr_read(c->cntr);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shmemi_ofi_saw(c, done);
    return done >= __atomic_load_n(&c->issued, __ATOMIC_SEQ_CST);
}

#endif /* SHMEMI_OFI_H */
