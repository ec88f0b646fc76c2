/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_amo.c — AMOs over libfabric.
 *
 * At start-up fi_atomicvalid / fi_fetch_atomicvalid /
 * fi_compare_atomicvalid tell, per datatype, whether the provider does
 * every operation OpenSHMEM defines for it. A datatype the provider
 * serves completely uses fi_atomic / fi_fetch_atomic / fi_compare_atomic.
 * A datatype it lacks even one operation for goes, for EVERY operation,
 * through the locked software path, so AMOs on one object never mix the
 * two mechanisms (atomicity holds among AMOs of one datatype, which is
 * what OpenSHMEM promises):
 *
 *   lock:   64-bit compare-and-swap 0 -> (my_pe + 1) on the target PE's
 *           lock word (control region), retried with progress;
 *   modify: fi_read the object, compute, fi_write it back and wait for
 *           delivery;
 *   unlock: 64-bit atomic write of 0.
 *
 * Only the 64-bit unsigned cswap and write must be native for that; if
 * even they are missing, an AMO on a lacking type fails with a message
 * (never the start-up).
 *
 * Non-fetching AMOs on a native type do not wait. Where the provider
 * orders reads after writes (libfabric's shm) they are posted without
 * FI_DELIVERY_COMPLETE and completed by quiet's flush (ofi_posted.c).
 * Elsewhere they are windowed: fi_atomicmsg(FI_INJECT |
 * FI_DELIVERY_COMPLETE) on the write counter, left to quiet, with at
 * most SHMEMI_OFI_AMO_WINDOW of the endpoint's writes in flight (an
 * unbounded stream once stalled a threaded test for 30 s under
 * ThreadSanitizer on tcp;ofi_rxm). Not on shm even without the order:
 * there a delivery-complete non-fetching atomic frees its inject buffer
 * twice (docs/performance.md, "Platform facts"), so shm without the
 * order keeps round trips, as does a provider that cannot inject 8 bytes.
 *
 * A non-fetching AMO to a node-local peer of a mixed job is left in flight
 * the same way, but that peer's gets are copies from its mapped memory:
 * the AMO marks its endpoint (each mark holds the reads, which turns the
 * inline gets off: shmemi_fast_reads_hold), and a get from a node-local
 * peer first completes what the get's endpoint marked
 * (shmemi_ofi_local_reads_settle).
 *
 * Under transmit_complete (no FI_DELIVERY_COMPLETE) windowed AMOs are
 * injected without it and marked for quiet's flush, like puts. Under
 * FI_MR_LOCAL, operands, compare values and results that the provider
 * reads from or writes to memory go through the endpoint's registered
 * bounce pool (shmemi_ofi_bounce_grab); injected operands need none.
 */
#include <stdio.h>
#include <string.h>

#include "memory/ctrl.h"
#include "base/env.h"
#include "transport/ofi.h"
#include "shmemi_ops_fi.h" /* generated from spec/ops.toml */

enum { DT_I32, DT_I64, DT_U32, DT_U64, DT_F32, DT_F64, DT_N };

static const enum fi_datatype fi_type[DT_N] = {FI_INT32, FI_INT64, FI_UINT32, FI_UINT64, FI_FLOAT, FI_DOUBLE};
static const char *const dt_name[DT_N] = {"int32", "int64", "uint32", "uint64", "float", "double"};

static int dt_index(int dtype)
{
    int wide = SHMEMI_DT_SIZE(dtype) == 8;

    switch (SHMEMI_DT_CLASS(dtype)) {
    case SHMEMI_DT_SINT: return wide ? DT_I64 : DT_I32;
    case SHMEMI_DT_FLOAT: return wide ? DT_F64 : DT_F32;
    default: return wide ? DT_U64 : DT_U32;
    }
}

/* Bytes of one element of the libfabric datatypes used here. */
static size_t dt_bytes(enum fi_datatype dt)
{
    return dt == FI_INT32 || dt == FI_UINT32 || dt == FI_FLOAT ? 4 : 8;
}

static int valid(int kind, enum fi_datatype dt, enum fi_op op)
{
    struct fid_ep *ep = shmemi_ofi.main.ep;
    size_t count = 0;
    int rc = kind == 0 ? fi_atomicvalid(ep, dt, op, &count)
             : kind == 1 ? fi_fetch_atomicvalid(ep, dt, op, &count)
                         : fi_compare_atomicvalid(ep, dt, op, &count);
    return rc == 0 && count >= 1;
}

static int type_complete(enum fi_datatype dt, int is_float)
{
    /* Every operation spec/ops.toml defines on the class (shmemi_ops_fi.h). */
    const struct shmemi_amo_fi_need *need = is_float ? shmemi_amo_fi_needs_float : shmemi_amo_fi_needs_int;
    size_t n = is_float ? sizeof shmemi_amo_fi_needs_float / sizeof *need
                        : sizeof shmemi_amo_fi_needs_int / sizeof *need;

    for (size_t i = 0; i < n; i++)
        if (!valid(need[i].call, dt, need[i].op))
            return 0;
    return 1;
}

void shmemi_ofi_amo_query(void)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    for (int i = 0; i < DT_N; i++)
        o->amo_native[i] = !shmemi_settings.ofi_soft_amo && type_complete(fi_type[i], i >= DT_F32);
    o->lock_capable = valid(2, FI_UINT64, FI_CSWAP) && valid(0, FI_UINT64, FI_ATOMIC_WRITE);
    /* Windowed AMOs inject their operand (up to 8 bytes). */
    o->amo_windowed = !o->posted && strcmp(o->info->fabric_attr->prov_name, "shm") != 0 &&
                      o->inject_size >= sizeof(uint64_t);
    o->amo_posted = o->posted && o->inject_size >= sizeof(uint64_t);
    o->word_puts_atomic = o->amo_posted && !o->transmit_complete && !shmemi_settings.ofi_soft_amo &&
                          valid(0, FI_UINT64, FI_ATOMIC_WRITE);
    /* Gathered AMOs (ofi_gather.c) are applied by CPU atomics at the
     * target: only where the provider's are too, libfabric's software
     * atomics under rxm over tcp. */
    o->gather_capable = (o->info->caps & FI_MSG) && !o->mr_local &&
                        strcmp(o->info->fabric_attr->prov_name, "tcp;ofi_rxm") == 0;
}

const char *shmemi_ofi_amo_summary(void)
{
    static char buf[160];
    size_t n = 0;
    int soft = 0;

    for (int i = 0; i < DT_N; i++)
        soft += !shmemi_ofi.amo_native[i];
    if (!soft && shmemi_ofi.amo_windowed)
        return "provider atomics for every type, non-fetching ones windowed";
    if (!soft)
        return shmemi_ofi.posted ? "provider atomics for every type, non-fetching ones posted and flushed"
                                 : "provider atomics for every type, non-fetching ones round trips";
    n += (size_t)snprintf(buf + n, sizeof buf - n, "locked software path for");
    for (int i = 0; i < DT_N && n < sizeof buf; i++)
        if (!shmemi_ofi.amo_native[i])
            n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", dt_name[i]);
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "%s", shmemi_ofi.lock_capable ? "" : " (unavailable: no 64-bit cswap)");
    return buf;
}

/* ---- provider atomics ---- */

/* The one place that maps an AMO op to libfabric's. */
static enum fi_op fi_op_of(enum shmemi_amo_op op)
{
    return shmemi_amo_fi_op(op); /* generated from spec/ops.toml */
}

static void native(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op,
                   enum fi_datatype dt, const void *value, const void *cond, void *fetch, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key), zero = 0, scratch;
    fi_addr_t to = shmemi_ofi_addr(pe);
    enum fi_op fop = fi_op_of(op);

    if (op == SHMEMI_AMO_FETCH)
        value = &zero; /* ignored by FI_ATOMIC_READ, but must be readable */
    /* Non-fetching: fetched into scratch, complete on return. */
    if (!fetch)
        fetch = &scratch;
    /* A PE reads back what it wrote, as a get does (ofi_rma.c). */
    shmemi_ofi_writes_visible(e, pe, routine);
    if (o->mr_local) {
        /* Operand, compare value and result in the registered pool; the
         * result is copied out before the pool is let go. */
        size_t size = dt_bytes(dt);
        void *desc;
        char *buf = shmemi_ofi_bounce_grab(e, 3 * sizeof(uint64_t), &desc, pe, routine);

        memcpy(buf, value, size);
        if (cond)
            memcpy(buf + 8, cond, size);
        if (op == SHMEMI_AMO_CSWAP)
            SHMEMI_OFI_POST(e, &e->r, fi_compare_atomic(e->ep, buf, 1, desc, buf + 8, desc, buf + 16, desc, to,
                                                        raddr, key, dt, fop, op_ctx),
                            "fi_compare_atomic", pe, routine);
        else
            SHMEMI_OFI_POST(e, &e->r,
                            fi_fetch_atomic(e->ep, buf, 1, desc, buf + 16, desc, to, raddr, key, dt, fop, op_ctx),
                            "fi_fetch_atomic", pe, routine);
        shmemi_ofi_round_trip_wait(e, pe, routine);
        memcpy(fetch, buf + 16, size);
        shmemi_ofi_bounce_drop(e);
        return;
    }
    if (op == SHMEMI_AMO_CSWAP)
        SHMEMI_OFI_POST(e, &e->r, fi_compare_atomic(e->ep, value, 1, NULL, cond, NULL, fetch, NULL, to, raddr,
                                                    key, dt, fop, op_ctx),
                        "fi_compare_atomic", pe, routine);
    else
        SHMEMI_OFI_POST(e, &e->r, fi_fetch_atomic(e->ep, value, 1, NULL, fetch, NULL, to, raddr, key, dt, fop, op_ctx),
                        "fi_fetch_atomic", pe, routine);
    shmemi_ofi_round_trip_wait(e, pe, routine);
}

/* A posted non-fetching AMO (ofi_posted.c): fi_inject_atomic, the operand
 * copied at the post (into shm's command queue) and counted complete on
 * the write counter at once; an injected operand needs no registration.
 * shm's shortest atomic path: a burst of adds 0.10-0.13 us an add, against
 * 0.16 through fi_atomicmsg with no flags (docs/design.md). */
static void injected_op(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op,
                        enum fi_datatype dt, const void *value, const char *routine)
{
    uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key);

    SHMEMI_OFI_POST(e, &e->w, fi_inject_atomic(e->ep, value, 1, shmemi_ofi_addr(pe), raddr, key, dt, fi_op_of(op)),
                    "fi_inject_atomic", pe, routine);
}

/* Windowed (not shm): one message, left to quiet. Room first, by
 * waiting until half the window is free, so a long stream waits once per
 * half window, not per AMO. */
static void windowed(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op,
                     enum fi_datatype dt, const void *value, const char *routine)
{
    /* Without delivery completion, transmit completion asked for by name
     * (the endpoint's default is the provider's: ofi.c). */
    uint64_t done = shmemi_ofi.dc ? shmemi_ofi.dc : FI_TRANSMIT_COMPLETE, operand = 0;
    struct fi_ioc ioc = {.addr = &operand, .count = 1};
    struct fi_rma_ioc rma = {.count = 1};
    struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = shmemi_ofi_addr(pe), .rma_iov = &rma,
                                .rma_iov_count = 1, .datatype = dt, .op = fi_op_of(op)};

    memcpy(&operand, value, dt_bytes(dt));
    rma.addr = shmemi_ofi_raddr(pe, seg, off, &rma.key);
    if (__atomic_load_n(&e->w.issued, __ATOMIC_SEQ_CST) >=
        __atomic_load_n(&e->w.seen, __ATOMIC_ACQUIRE) + SHMEMI_OFI_AMO_WINDOW)
        shmemi_ofi_cntr_wait_slack(e, &e->w, SHMEMI_OFI_AMO_WINDOW / 2, pe, routine);
    /* The operand is free on return; the counter moves once the target
     * applied it (or, under transmit_complete, once it is sent). */
    SHMEMI_OFI_POST(e, &e->w, (msg.context = op_ctx, fi_atomicmsg(e->ep, &msg, FI_INJECT | done)), "fi_atomicmsg",
                    pe, routine);
    shmemi_ofi_written(e, pe);
    shmemi_ofi_sent_serve(e);
}

/* A lone gathered AMO, sent as the provider's (ofi_gather.c): windowed. */
void shmemi_ofi_amo_lone(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                         const char *routine)
{
    windowed(&shmemi_ofi.main, pe, seg, off, op, fi_type[dt_index(dtype)], value, routine);
}

/* The first non-fetching AMO to a PE after a flush (ofi_posted.c): a
 * fetching one into a discarded word, counted on the read counter and
 * left to quiet. shm copies the operand at the post. */
static void tracked(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op,
                    enum fi_datatype dt, const void *value, const char *routine)
{
    uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key);
    void *desc = NULL;
    char *buf = NULL;

    if (shmemi_ofi.mr_local) {
        buf = shmemi_ofi_bounce_grab(e, sizeof(uint64_t), &desc, pe, routine);
        memcpy(buf, value, dt_bytes(dt));
        value = buf;
    }
    SHMEMI_OFI_POST(e, &e->r,
                    fi_fetch_atomic(e->ep, value, 1, desc, shmemi_ofi_scratch.discard, shmemi_ofi.scratch_desc,
                                    shmemi_ofi_addr(pe), raddr, key, dt, fi_op_of(op), op_ctx),
                    "fi_fetch_atomic", pe, routine);
    if (buf)
        shmemi_ofi_bounce_drop(e);
}

/* A collective's signal: posted, neither marked for a flush nor waited
 * for (the receiver polls the word). Only where the provider places
 * writes in issue order, so that two signals to one word land in order,
 * and the type is native. */
int shmemi_ofi_signal(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v, const char *routine)
{
    if (!shmemi_ofi.amo_posted || !shmemi_ofi.ordered_writes || !shmemi_ofi.amo_native[DT_U64])
        return 0;
    injected_op(&shmemi_ofi.main, pe, seg, off, op, FI_UINT64, &v, routine);
    return 1;
}

/* ---- the locked software path ---- */

static void locked(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                   const void *value, const void *cond, void *fetch, const char *routine)
{
    const size_t lock_off = SHMEMI_CTRL_OFF(amo_lock);
    size_t size = SHMEMI_DT_SIZE(dtype);
    uint64_t me = (uint64_t)shmemi_world.my_pe + 1, free_ = 0, seen, cur = 0, v = 0, c = 0, nv;
    unsigned spins = 0;

    if (!shmemi_ofi.lock_capable)
        shmemi_fatal(routine, "provider %s lacks this atomic operation on %s, and has no 64-bit "
                     "compare-and-swap to emulate it with; choose another provider (SHMEM_OFI_PROVIDER)",
                     shmemi_ofi.info->fabric_attr->prov_name, dt_name[dt_index(dtype)]);
    for (;;) {
        native(e, pe, SHMEMI_SEG_CTRL, lock_off, SHMEMI_AMO_CSWAP, FI_UINT64, &me, &free_, &seen, routine);
        if (seen == 0)
            break;
        shmemi_ofi_progress();
        if (shmemi_wait_yields(++spins))
            shmemi_ofi_yield(spins);
    }
    if (value)
        memcpy(&v, value, size);
    if (cond)
        memcpy(&c, cond, size);
    /* A get waits for this endpoint's earlier writes first, and then
     * for itself. */
    {
        struct shmemi_ofi *o = &shmemi_ofi;
        uint64_t key, raddr = shmemi_ofi_raddr(pe, seg, off, &key);
        void *desc = NULL;
        uint64_t *buf = NULL; /* under FI_MR_LOCAL: cur and nv in the pool */

        shmemi_ofi_quiet_ep(e, routine);
        if (o->mr_local)
            buf = (uint64_t *)shmemi_ofi_bounce_grab(e, 2 * sizeof(uint64_t), &desc, pe, routine);
        SHMEMI_OFI_POST(e, &e->r,
                        fi_read(e->ep, buf ? &buf[0] : &cur, size, desc, shmemi_ofi_addr(pe), raddr, key, op_ctx),
                        "fi_read", pe, routine);
        shmemi_ofi_cntr_wait(e, &e->r, pe, routine);
        if (buf)
            memcpy(&cur, &buf[0], size);
        nv = shmemi_amo_value(op, dtype, cur, v, c);
        if (nv != cur) {
            if (buf)
                memcpy(&buf[1], &nv, size);
            SHMEMI_OFI_POST(e, &e->w,
                            fi_write(e->ep, buf ? &buf[1] : &nv, size, desc, shmemi_ofi_addr(pe), raddr, key, op_ctx),
                            "fi_write", pe, routine);
            /* Applied before the unlock can be seen: under
             * transmit_complete that takes a flush. */
            shmemi_ofi_written(e, pe);
            shmemi_ofi_quiet_ep(e, routine);
        }
        if (buf)
            shmemi_ofi_bounce_drop(e);
    }
    native(e, pe, SHMEMI_SEG_CTRL, lock_off, SHMEMI_AMO_SET, FI_UINT64, &free_, NULL, NULL, routine);
    if (fetch)
        memcpy(fetch, &cur, size);
}

/* A non-fetching AMO to a node-local peer of a mixed job was left in
 * flight (posted, tracked or windowed): mark the endpoint. Marked after the
 * post, with seq_cst, so that a settle which takes the mark reads an
 * issued count that holds this AMO. A mark holds the reads until the
 * quiet of the settle that takes it is done: while any is held, gets
 * leave the inline path. */
static void mark_local_write(struct shmemi_ofi_ep *e)
{
    if (!__atomic_load_n(&e->local_writes, __ATOMIC_SEQ_CST) &&
        !__atomic_exchange_n(&e->local_writes, 1, __ATOMIC_SEQ_CST))
        shmemi_fast_reads_hold();
}

void shmemi_ofi_local_reads_settle(shmem_ctx_t ctx, const char *routine)
{
    /* A context whose endpoint was never opened has nothing in flight. */
    struct shmemi_ofi_ep *e = ctx == SHMEM_CTX_DEFAULT || !ctx
                                  ? &shmemi_ofi.main
                                  : __atomic_load_n(&shmemi_tp_ctx_of(ctx)->ep, __ATOMIC_ACQUIRE);
    int took;

    if (!e || (!__atomic_load_n(&e->local_writes, __ATOMIC_SEQ_CST) &&
               !__atomic_load_n(&e->settling, __ATOMIC_SEQ_CST)))
        return;
    /* settling is raised before the mark is taken: a thread that finds the
     * mark gone while another thread's quiet has not yet covered its own
     * AMO quiets too, instead of reading too early. */
    __atomic_fetch_add(&e->settling, 1, __ATOMIC_SEQ_CST);
    took = __atomic_exchange_n(&e->local_writes, 0, __ATOMIC_SEQ_CST);
    shmemi_ofi_enter();
    shmemi_ofi_quiet_ep(e, routine);
    shmemi_ofi_leave();
    if (took)
        shmemi_fast_reads_release();
    __atomic_fetch_sub(&e->settling, 1, __ATOMIC_SEQ_CST);
}

void shmemi_ofi_local_writes_retired(struct shmemi_ofi_ep *e)
{
    if (__atomic_exchange_n(&e->local_writes, 0, __ATOMIC_SEQ_CST))
        shmemi_fast_reads_release();
}

static inline void amo_on(struct shmemi_ofi_ep *e, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                          const void *value, const void *cond, void *fetch, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    int i = dt_index(dtype);

    if (!o->amo_native[i]) {
        locked(e, pe, seg, off, op, dtype, value, cond, fetch, routine);
        return;
    }
    /* The default context's, to a PE not mapped here: gathered (the
     * node-local peers of a mixed job keep their marks, below). */
    if (!fetch && shmemi_gather.on && e == &o->main && shmemi_gather_amo_op(op) &&
        !(shmemi_tp_peer(pe)->flags & SHMEMI_PEER_LOADSTORE)) {
        shmemi_gather_amo(pe, seg, off, op, dtype, value, routine);
        return;
    }
    if (fetch || !(o->posted || o->amo_windowed)) {
        native(e, pe, seg, off, op, fi_type[i], value, cond, fetch, routine);
        return;
    }
    if (o->amo_posted && shmemi_ofi_post_this(e, pe)) {
        injected_op(e, pe, seg, off, op, fi_type[i], value, routine);
        shmemi_ofi_posted_mark(e, pe);
        shmemi_ofi_posted_serve(e);
    } else if (o->posted)
        tracked(e, pe, seg, off, op, fi_type[i], value, routine);
    else
        windowed(e, pe, seg, off, op, fi_type[i], value, routine);
    if (shmemi_tp_peer(pe)->flags & SHMEMI_PEER_LOADSTORE)
        mark_local_write(e);
}

/* Fetching AMOs complete before return even in their nbi form: the
 * operand may live on the caller's stack, and fi_fetch_atomic cannot
 * inject it. Non-fetching AMOs are posted and flushed where reads are
 * ordered after writes (ofi_posted.c), else windowed and left to quiet. */
void shmemi_ofi_amo(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                    const void *value, const void *cond, void *fetch, int nbi, const char *routine)
{
    (void)nbi;
    shmemi_ofi_enter();
    amo_on(shmemi_ofi_ctx_ep(ctx), pe, seg, off, op, dtype, value, cond, fetch, routine);
    shmemi_ofi_leave();
}
