/*
 * transport/ofi.h — the libfabric path, shared by the ofi*.c files only
 * (the rest of the core reaches it through transport.h). Files: ofi.c
 * (bring-up), ofi_provider.c, ofi_ep.c, ofi_mr.c (registration, address
 * exchange), ofi_progress.c, ofi_liveness.c (lost peers), ofi_ctx.c
 * (contexts' endpoints), ofi_rma.c, ofi_amo.c, ofi_bounce.c. One fabric, domain and AV per
 * PE; an RDM endpoint per context (the default context's one is also
 * the target every peer addresses); two completion counters per
 * endpoint, so quiet waits on counts, never on a queue of events.
 */
#ifndef SHMEMI_OFI_H
#define SHMEMI_OFI_H

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "shmemi.h"

/* Bounce buffers for medium puts (ofi_bounce.c): a byte pool carved in
 * order and reset when every write of the endpoint has completed. */
struct shmemi_ofi_bounce {
    char *base;           /* NULL until the first bounced put */
    size_t size, head;    /* capacity, first free byte */
    pthread_mutex_t lock; /* not taken for a PRIVATE context's endpoint */
};

/* One endpoint with its completion tracking. Writes (puts) complete on
 * wcntr, reads (gets, AMOs: non-fetching ones fetch too) on rcntr; the
 * issued counts are atomics because shared contexts (and the default
 * one) may be used by several threads; FI_THREAD_SAFE covers the calls. */
struct shmemi_ofi_ep {
    struct fid_ep *ep;
    struct fid_cq *cq;        /* errors only: FI_SELECTIVE_COMPLETION */
    struct fid_cntr *wcntr, *rcntr;
    uint64_t w_issued, r_issued;
    /* Nonzero: non-fetching AMOs may be in flight on the read counter
     * (the shm workaround in ofi_amo.c); a get completes them first. */
    uint64_t r_amo_mark;
    int is_private;           /* serves a PRIVATE context: one thread only */
    struct shmemi_ofi_bounce bounce;
};

/* Remote view of a peer's registered segment. */
struct shmemi_ofi_remote {
    uint64_t base; /* address to add offsets to (0 without FI_MR_VIRT_ADDR) */
    uint64_t key;
};

#define SHMEMI_OFI_ADDR_MAX 224 /* bytes of an endpoint address (fi_getname) */
#define SHMEMI_OFI_NREG 2 /* registered regions: 0 heap (control region + heap), 1 data */

struct shmemi_ofi {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct shmemi_ofi_ep main; /* default context; every peer targets it */
    struct fid_mr *mr[SHMEMI_OFI_NREG];
    fi_addr_t *addr;                  /* [pe] */
    struct shmemi_ofi_remote *remote; /* [pe * SHMEMI_OFI_NREG + reg] */
    size_t inject_size;
    size_t bounce_size;  /* largest bounced put; <= inject_size: none */
    int manual_progress;
    int ordered_writes;  /* puts and AMOs are placed in issue order: fence is free */
    /* [dtype index]: 1 when the provider does every AMO this type needs
     * (docs/design.md: otherwise the locked software path serves them all) */
    int amo_native[6];
    int lock_capable;    /* 64-bit unsigned cswap/fetch/write: the software path can run */
    char (*host)[64];    /* [pe] host name, for errors that name a peer */
};

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

/* ofi_mr.c: register and publish (open), read every peer's (connect). */
void shmemi_ofi_publish(const char *routine);
void shmemi_ofi_exchange(const char *routine);

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
/* Wait until `cntr` catches up with *issued (shmemi_ofi_caught_up),
 * progressing everything meanwhile. A snapshot of *issued would not do:
 * with threads sharing the endpoint and completions in any order,
 * reaching it would not prove that this thread's operation completed. */
void shmemi_ofi_cntr_wait(struct shmemi_ofi_ep *e, struct fid_cntr *cntr, const uint64_t *issued, int pe,
                          const char *routine);
void shmemi_ofi_quiet_ep(struct shmemi_ofi_ep *e, const char *routine);

/* Lost peers (SHMEM_OFI_TIMEOUT, docs/design.md "Lost peers"). A wait
 * keeps one of these; each poll passes a progress mark (a counter value,
 * 0 if none). Towards a known peer (pe >= 0) a mark unchanged for the
 * timeout is fatal; otherwise the wait probes the off-node peers. */
struct shmemi_ofi_stall {
    uint64_t since_ms; /* 0: not started */
    uint64_t mark;
};
void shmemi_ofi_stall_check(struct shmemi_ofi_stall *st, uint64_t mark, int pe, const char *routine);
const char *shmemi_ofi_host(int pe);
/* ofi_liveness.c: a completion's context is a probe's (its PE), or -1. */
int shmemi_ofi_probe_pe_of(const void *context);
void shmemi_ofi_probe_done(const void *context);
void shmemi_ofi_probe_failed(const void *context);
void shmemi_ofi_liveness_reset(void);
/* One unsatisfied poll of a wait loop (spins == 1: a new wait). */
void shmemi_ofi_wait_watch(unsigned spins);
/* The routine and peer of this thread's last post: wait loops that
 * know neither name them. */
/* initial-exec: every post writes them, and the default (global-dynamic)
 * model costs a __tls_get_addr call per access in a shared library. */
#define SHMEMI_OFI_TLS __attribute__((tls_model("initial-exec")))
extern _Thread_local SHMEMI_OFI_TLS const char *shmemi_ofi_last_routine;
extern _Thread_local SHMEMI_OFI_TLS int shmemi_ofi_last_pe;

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

/* ofi_amo.c: provider atomics, or the locked software path. */
void shmemi_ofi_amo(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                    const void *value, const void *cond, void *fetch, const char *routine);
void shmemi_ofi_amo_query(void);
const char *shmemi_ofi_amo_summary(void);

/* Remote (address, key) of (seg, off) on pe. */
static inline uint64_t shmemi_ofi_raddr(int pe, int seg, size_t off, uint64_t *key);

#include "memory/ctrl.h"
#include "base/world.h"
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

static inline uint64_t shmemi_ofi_raddr(int pe, int seg, size_t off, uint64_t *key)
{
    int reg = seg == SHMEMI_SEG_DATA;
    const struct shmemi_ofi_remote *r = &shmemi_ofi.remote[(size_t)pe * SHMEMI_OFI_NREG + reg];

    if (seg == SHMEMI_SEG_HEAP)
        off += SHMEMI_CTRL_SIZE;
    *key = r->key;
    return r->base + off;
}

/* Close a libfabric object if it was opened (teardown after a partial bring-up). */
#define SHMEMI_OFI_CLOSE(obj)              \
    do {                                   \
        if (obj)                           \
            fi_close(&(obj)->fid);         \
    } while (0)

/* Retry a libfabric call while it returns -FI_EAGAIN, progressing. */
#define SHMEMI_OFI_RETRY(call, what, pe, routine)                                               \
    do {                                                                                        \
        ssize_t rc_;                                                                            \
        struct shmemi_ofi_stall st_ = {0, 0};                                                   \
        shmemi_ofi_last_routine = (routine);                                                    \
        shmemi_ofi_last_pe = (pe);                                                              \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                  \
            shmemi_ofi_progress();                                                              \
            shmemi_ofi_stall_check(&st_, 0, (pe), (routine));                                   \
        }                                                                                       \
        if (rc_)                                                                                \
            shmemi_ofi_fail(routine, what, pe, rc_);                                            \
    } while (0)

/* Post an operation that completes on a counter: count it as issued
 * first, and tell the progress thread this PE is in the provider. Counted after the post, another thread's completion could be
 * seen before this count, and a waiter would take that completion for
 * its own (docs/design.md, "Completion"). */
#define SHMEMI_OFI_POST(issued, call, what, pe, routine)                                        \
    do {                                                                                        \
        __atomic_fetch_add((issued), 1, __ATOMIC_SEQ_CST);                                      \
        shmemi_ofi_mark_polled();                                                               \
        SHMEMI_OFI_RETRY(call, what, pe, routine);                                              \
    } while (0)

/* Every operation counted on `issued` so far is complete. The counter is
 * read first: completions never run ahead of counts, so a counter that
 * has caught up with a later count proves all of those counted earlier. */
static inline int shmemi_ofi_caught_up(struct fid_cntr *cntr, const uint64_t *issued)
{
    uint64_t done = fi_cntr_read(cntr);

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return done >= __atomic_load_n(issued, __ATOMIC_SEQ_CST);
}

#endif /* SHMEMI_OFI_H */
