/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/group.c — flag layout, signalling and peer access for collectives
 * (see group.h for the rules).
 *
 * Team block (radix 4, 64-byte slots):
 *   BAR[R] RDY[R] RDN[R] DOWN[3D] UP[3D] DIR[A] MISC[5] AUX[3]
 *   with A = min(n, SHMEMI_BARRIER_DIRECT_MAX) - 1 (grows with n, so a
 *   block sized for a larger team fits a smaller one)
 * pSync (radix 2, 8-byte slots; families used in one call never overlap,
 * and no two calls overlap on one pSync but consecutive barriers, which
 * use the same families):
 *   BAR[R] { RDY[R] RDN[R] FOLD[3] | DOWN[D] UP[D] | FWD BWD } AUX[3]
 * with R = ceil(log2 n), D = ceil(log_K n).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "coll/algo.h"
#include "coll/group.h"
#include "comm/backoff.h"
#include "memory/addr.h"
#include "team/pool.h"
#include "transport/transport.h"

#define TEAM_RADIX SHMEMI_TREE_RADIX
#define PSYNC_RADIX 2

static int ceil_log(int n, int k)
{
    int d = 0;
    for (long p = 1; p < n; p *= k)
        d++;
    return d;
}

static int direct_slots(int n)
{
    return (n < SHMEMI_BARRIER_DIRECT_MAX ? n : SHMEMI_BARRIER_DIRECT_MAX) - 1;
}

int shmemi_grp_team_slots(int n)
{
    return 3 * ceil_log(n, 2) + 2 * (TEAM_RADIX - 1) * ceil_log(n, TEAM_RADIX) + direct_slots(n) +
           SHMEMI_GRP_NMISC + SHMEMI_GRP_NAUX;
}

static int psync_slots(int n)
{
    return 3 * ceil_log(n, 2) + 3 + SHMEMI_GRP_NAUX;
}

int shmemi_grp_bar(const struct shmemi_group *g, int r)
{
    (void)g;
    return r;
}

int shmemi_grp_rdy(const struct shmemi_group *g, int r)
{
    return g->rounds + r;
}

int shmemi_grp_rdn(const struct shmemi_group *g, int r)
{
    return 2 * g->rounds + r;
}

static int tree_base(const struct shmemi_group *g)
{
    return g->counting ? g->rounds : 3 * g->rounds;
}

static int tree_span(const struct shmemi_group *g)
{
    return (g->radix - 1) * g->kdigits;
}

int shmemi_grp_down(const struct shmemi_group *g, int r, int j)
{
    return tree_base(g) + r * (g->radix - 1) + j - 1;
}

int shmemi_grp_up(const struct shmemi_group *g, int r, int j)
{
    return tree_base(g) + tree_span(g) + r * (g->radix - 1) + j - 1;
}

int shmemi_grp_direct(const struct shmemi_group *g, int k)
{
    return 3 * g->rounds + 2 * tree_span(g) + k - 1;
}

int shmemi_grp_misc(const struct shmemi_group *g, int which)
{
    if (!g->counting)
        return 3 * g->rounds + 2 * tree_span(g) + direct_slots(g->n) + which;
    /* pSync: FWD/BWD overlay the area's start, the fold slots follow RD's. */
    if (which == SHMEMI_GRP_FWD || which == SHMEMI_GRP_BWD)
        return g->rounds + which;
    return 3 * g->rounds + which - SHMEMI_GRP_FOLD_IN;
}

int shmemi_grp_aux(const struct shmemi_group *g, int i)
{
    return g->nslots - SHMEMI_GRP_NAUX + i;
}

static int members_mapped(const struct shmemi_team *t)
{
    for (int i = 0; i < t->size; i++)
        if (!shmemi_tp_is_mapped(shmemi_team_world_pe(t, i)))
            return 0;
    return 1;
}

static void layout(struct shmemi_group *g)
{
    g->rounds = ceil_log(g->n, 2);
    g->kdigits = ceil_log(g->n, g->radix);
    g->nslots = g->counting ? psync_slots(g->n) : shmemi_grp_team_slots(g->n);
}

/* Where a member notes the call it has reached (its epoch), in its own
 * team block: beside the last data word, in a line its peers read only
 * to report (the hang report's "arrived"). */
#define ARRIVAL_BYTE 32
_Static_assert(SHMEMI_POOL_GRANULE >= ARRIVAL_BYTE + 8, "a team block slot holds the arrival word");

static size_t arrival_off(const struct shmemi_group *g)
{
    return shmemi_grp_slot_off(g, shmemi_grp_aux(g, SHMEMI_GRP_NAUX - 1)) + ARRIVAL_BYTE;
}

void shmemi_grp_team(struct shmemi_group *g, struct shmemi_team *t, const char *routine)
{
    *g = (struct shmemi_group){.t = t, .me = t->my_pe, .n = t->size, .routine = routine,
                               .seg = SHMEMI_SEG_CTRL, .off = t->block_off, .stride = SHMEMI_POOL_GRANULE,
                               .counting = 0, .epoch = ++t->epoch, .radix = TEAM_RADIX};
    layout(g);
    __atomic_store_n((uint64_t *)shmemi_grp_addr(g->seg, arrival_off(g)), g->epoch, __ATOMIC_RELAXED);
    if (t->all_mapped < 0)
        t->all_mapped = members_mapped(t);
    g->all_mapped = t->all_mapped;
}

void shmemi_grp_active(struct shmemi_group *g, struct shmemi_team *scratch, int PE_start, int logPE_stride,
                       int PE_size, long *pSync, size_t psync_longs, const char *routine)
{
    int me = shmemi_world.my_pe, seg;
    size_t off;

    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1 ||
        PE_start + (long)(PE_size - 1) * (1L << logPE_stride) >= shmemi_world.n_pes)
        shmemi_fatal(routine, "active set (PE_start %d, logPE_stride %d, PE_size %d) does not fit in %d PEs",
                     PE_start, logPE_stride, PE_size, shmemi_world.n_pes);
    if (me < PE_start || (me - PE_start) % (1 << logPE_stride) ||
        (me - PE_start) >> logPE_stride >= PE_size)
        shmemi_fatal(routine, "this PE (%d) is not in the active set (PE_start %d, logPE_stride %d, PE_size %d)",
                     me, PE_start, logPE_stride, PE_size);
    *scratch = (struct shmemi_team){.start = PE_start, .stride = 1 << logPE_stride, .size = PE_size,
                                    .my_pe = (me - PE_start) >> logPE_stride};
    *g = (struct shmemi_group){.t = scratch, .me = scratch->my_pe, .n = PE_size, .routine = routine,
                               .stride = sizeof(long), .counting = 1, .radix = PSYNC_RADIX};
    layout(g);
    g->all_mapped = members_mapped(scratch);
    if ((size_t)g->nslots > psync_longs)
        shmemi_fatal(routine, "%d PEs need %d pSync words; this pSync has %zu", PE_size, g->nslots,
                     psync_longs);
    /* Only the words this set uses must be symmetric: a Fortran pSync of
     * default INTEGERs holds half the bytes of the C one. */
    seg = shmemi_sym_ref(routine, "pSync", pSync, (size_t)g->nslots * sizeof(long), &off);
    g->seg = seg;
    g->off = off;
}

/* Flag value of (epoch, phase, step): 32 | 12 | 20 bits. */
static uint64_t stamp(const struct shmemi_group *g, unsigned step)
{
    return g->epoch << 32 | (uint64_t)(g->phase & 0xfff) << 20 | (step & 0xfffff);
}

/* A signal or a consumption where CPU atomics are not the job's
 * atomicity domain goes through the transport's AMO:
 *  - a count (pSync) adds, and adds commute: a signal to another PE is a
 *    non-fetching AMO, whatever order the path lands them in (its reader
 *    takes the count off: wait_count).
 *  - a stamp (team) to another PE is one-way where the path lands one
 *    writer's signals to a slot in order (shmemi_tp_signal: a provider
 *    that orders writes), else a fetching AMO, complete on return (an
 *    injected AMO could overtake the one before it and leave the older
 *    stamp). */
static void flag_amo(const struct shmemi_group *g, int pe, int slot, enum shmemi_amo_op op, uint64_t v)
{
    size_t off = shmemi_grp_slot_off(g, slot);
    uint64_t old, *flag = shmemi_tp_cpu_amo_addr(pe, g->seg, off);
    int dt = SHMEMI_DT(SHMEMI_DT_UINT, 8);

    /* Where CPU atomics are the job's atomicity domain: one locked
     * instruction, no dispatch. */
    if (flag) {
        if (op == SHMEMI_AMO_ADD)
            __atomic_fetch_add(flag, v, __ATOMIC_SEQ_CST);
        else
            __atomic_exchange_n(flag, v, __ATOMIC_SEQ_CST);
        return;
    }
    if (pe != shmemi_world.my_pe &&
        shmemi_tp_signal(pe, g->seg, off, op == SHMEMI_AMO_SWAP ? SHMEMI_AMO_SET : op, v, g->routine))
        return;
    shmemi_tp_amo(SHMEM_CTX_DEFAULT, pe, g->seg, off, op, dt, &v, NULL,
                  op == SHMEMI_AMO_ADD && pe != shmemi_world.my_pe ? NULL : &old, 0, g->routine);
}

void shmemi_grp_signal(struct shmemi_group *g, int slot, int rank, unsigned step)
{
    flag_amo(g, shmemi_grp_pe(g, rank), slot, g->counting ? SHMEMI_AMO_ADD : SHMEMI_AMO_SWAP,
             g->counting ? 1 : stamp(g, step));
}

/* ---- what a member waits for, in the hang report's words ---- */

struct group_wait {
    const struct shmemi_group *g;
    int slot;
};

/* The rank whose signal `slot` awaits, where the slot alone tells
 * (group.h: the writer of each slot family), else -1. */
static int slot_writer(const struct shmemi_group *g, int slot)
{
    int me = g->me, n = g->n;

    if (g->counting)
        return -1; /* pSync families overlay each other */
    if (slot < g->rounds)
        return ((me - (1 << slot)) % n + n) % n;
    if (slot < 3 * g->rounds)
        return me ^ (1 << (slot % g->rounds));
    slot -= 3 * g->rounds + 2 * tree_span(g);
    if (slot >= 0 && slot < direct_slots(n))
        return ((me - (slot + 1)) % n + n) % n;
    return -1; /* tree slots depend on the root; misc slots on the algorithm */
}

static int team_label(const struct shmemi_group *g, char *buf, size_t len)
{
    const struct shmemi_team *t = g->t;

    if (g->counting)
        return snprintf(buf, len, "in the active set of PE_start %d, stride %d, PE_size %d", t->start, t->stride,
                        t->size);
    if (t == shmemi_team_of(SHMEM_TEAM_WORLD))
        return snprintf(buf, len, "in SHMEM_TEAM_WORLD (%d PEs)", t->size);
    if (t == shmemi_team_of(SHMEM_TEAM_SHARED))
        return snprintf(buf, len, "in SHMEM_TEAM_SHARED (%d PEs)", t->size);
    if (t == shmemi_team_of(SHMEMX_TEAM_NODE))
        return snprintf(buf, len, "in SHMEMX_TEAM_NODE (%d PEs)", t->size);
    return snprintf(buf, len, "in a team of %d PEs", t->size);
}

/* Appends " <label> PEs a, b, c" for the ranks whose state is `which`
 * (at most 16 named); nothing when there are none. */
static size_t list_pes(const struct shmemi_group *g, const signed char *state, int which, const char *label,
                       char *buf, size_t len)
{
    size_t n = 0;
    int count = 0, shown = 0;

    for (int r = 0; r < g->n; r++)
        count += state[r] == which;
    if (!count || len < 2)
        return 0;
    n += (size_t)snprintf(buf, len, "; %s: PE%s", label, count > 1 ? "s" : "");
    for (int r = 0; r < g->n && n < len; r++) {
        if (state[r] != which)
            continue;
        if (shown++ == 16) {
            n += (size_t)snprintf(buf + n, len - n, " and %d more", count - 16);
            break;
        }
        n += (size_t)snprintf(buf + n, len - n, "%s %d", shown > 1 ? "," : "", shmemi_grp_pe(g, r));
    }
    return n < len ? n : len - 1;
}

static void describe_group_wait(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct group_wait *w = rec->what;
    const struct shmemi_group *g = w->g;
    int from = slot_writer(g, w->slot);
    size_t n = (size_t)team_label(g, buf, len);
    signed char *state;

    if (n >= len)
        return;
    if (from >= 0)
        n += (size_t)snprintf(buf + n, len - n, " for PE %d", shmemi_grp_pe(g, from));
    else
        n += (size_t)snprintf(buf + n, len - n, " for another member's signal");
    /* Which members have reached this call: each notes its epoch in its
     * own block, readable where its memory is mapped here. */
    if (n >= len || g->counting || !(state = malloc((size_t)g->n)))
        return;
    for (int r = 0; r < g->n; r++) {
        const uint64_t *word = shmemi_grp_peer_ptr(g, r, g->seg, arrival_off(g));
        state[r] = r == g->me ? 1 : !word ? 2 : __atomic_load_n(word, __ATOMIC_RELAXED) >= g->epoch ? 1 : 0;
    }
    n += list_pes(g, state, 1, "arrived", buf + n, len - n);
    n += list_pes(g, state, 0, "not arrived", buf + n, len - n);
    list_pes(g, state, 2, "not known (memory not mapped here)", buf + n, len - n);
    free(state);
}

/* A flag not yet there: wait until flag + bias reaches want (unsigned),
 * with a record the hang report can read. */
static __attribute__((noinline)) void wait_blocked(const struct shmemi_group *g, const uint64_t *flag, int slot,
                                                   uint64_t want, uint64_t bias)
{
    struct group_wait w = {g, slot};
    struct shmemi_waiting rec = {.routine = g->routine, .describe = describe_group_wait, .what = &w};
    unsigned spins = 0;

    do
        shmemi_backoff(&rec, &spins);
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) + bias < want);
    shmemi_wait_leave(&rec);
}

/* A slot's bit in shmemi_group.consumed (slots 64 apart share one: a
 * false match only completes early). */
static uint64_t consumed_bit(int slot)
{
    return (uint64_t)1 << (slot & 63);
}

/* Complete the call's posted consumptions (wait_count): they are the
 * default context's non-fetching AMOs. */
static void consumed_complete(struct shmemi_group *g)
{
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    g->consumed = 0;
}

static void wait_at_least(struct shmemi_group *g, int slot, uint64_t want)
{
    const uint64_t *flag = shmemi_grp_local(g, slot);

    if (g->consumed & consumed_bit(slot))
        consumed_complete(g);

    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want)
        wait_blocked(g, flag, slot, want, 0);
}

/* Counting flags only: wait until own `slot` holds k, and take k off,
 * with the transport's AMO where CPU atomics are not the atomicity
 * domain. Two ways, for the two ways a path completes a non-fetching AMO:
 *  - by its acknowledgement (tcp; shmemi_transport_amo_acked): there a
 *    fetching AMO would first wait for this PE's signals in flight (a PE
 *    reads back what it wrote), so the count comes off by a non-fetching
 *    AMO, after the wait; one quiet completes the call's signals and
 *    consumptions together, before the slot is looked at again and
 *    before the call returns (shmemi_grp_end), so pSync is 0 on return.
 *  - by a read (shm, where reads follow writes): k comes off first, by a
 *    fetching AMO whose round trip overlaps the wait for the signals
 *    instead of following it; the count, k below its signals, is then
 *    awaited back at 0 or above (as signed: the same condition as
 *    holding k before). A fast member's signal for the next call leaves
 *    it above 0, as before. */
static void wait_count(struct shmemi_group *g, int slot, uint64_t k)
{
    const int me = shmemi_world.my_pe;
    const uint64_t sign = (uint64_t)1 << 63;
    size_t off = shmemi_grp_slot_off(g, slot);
    uint64_t old, minus_k = (uint64_t)0 - k, *flag = shmemi_tp_cpu_amo_addr(me, g->seg, off);
    int dt = SHMEMI_DT(SHMEMI_DT_UINT, 8);

    if (flag) {
        wait_at_least(g, slot, k);
        __atomic_fetch_add(flag, minus_k, __ATOMIC_SEQ_CST);
        return;
    }
    if (shmemi_transport_amo_acked()) {
        wait_at_least(g, slot, k);
        g->consumed |= consumed_bit(slot);
        shmemi_tp_amo(SHMEM_CTX_DEFAULT, me, g->seg, off, SHMEMI_AMO_ADD, dt, &minus_k, NULL, NULL, 0, g->routine);
        return;
    }
    shmemi_tp_amo(SHMEM_CTX_DEFAULT, me, g->seg, off, SHMEMI_AMO_ADD, dt, &minus_k, NULL, &old, 0, g->routine);
    if (old + minus_k + sign < sign)
        wait_blocked(g, shmemi_grp_local(g, slot), slot, sign, sign);
}

void shmemi_grp_end(struct shmemi_group *g)
{
    if (g->consumed)
        consumed_complete(g);
}

void shmemi_grp_wait(struct shmemi_group *g, int slot, unsigned step)
{
    if (g->counting) {
        wait_count(g, slot, 1);
        return;
    }
    wait_at_least(g, slot, stamp(g, step));
}

void shmemi_grp_arrive_all(struct shmemi_group *g)
{
    int slot = shmemi_grp_arrivals(g);

    shmemi_grp_release_puts(g);
    for (int k = 1; k < g->n; k++)
        shmemi_grp_signal(g, slot, (g->me + k) % g->n, 1);
    wait_count(g, slot, (uint64_t)g->n - 1);
}

void shmemi_grp_release(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

void shmemi_grp_release_puts(const struct shmemi_group *g)
{
    shmemi_grp_release();
    if (!g->all_mapped)
        shmemi_fence(SHMEM_CTX_DEFAULT);
}

const void *shmemi_grp_peer_ptr(const struct shmemi_group *g, int rank, int seg, size_t off)
{
    int pe = shmemi_grp_pe(g, rank);
    return shmemi_tp_ptr(pe, seg, off);
}

void shmemi_grp_get(const struct shmemi_group *g, void *dst, int rank, int seg, size_t off, size_t n)
{
    int pe = shmemi_grp_pe(g, rank);
    const void *p;

    if (!n)
        return;
    p = shmemi_tp_ptr(pe, seg, off);
    if (p) {
        if (p != dst)
            shmemi_copy(dst, p, n);
    } else {
        shmemi_tp_get(SHMEM_CTX_DEFAULT, dst, pe, seg, off, n, 0, g->routine);
    }
}

void shmemi_grp_put(const struct shmemi_group *g, int rank, int seg, size_t off, const void *src, size_t n)
{
    int pe = shmemi_grp_pe(g, rank);
    void *p;

    if (!n)
        return;
    p = shmemi_tp_ptr(pe, seg, off);
    if (p) {
        if (p != src)
            shmemi_copy(p, src, n);
    } else {
        shmemi_tp_collective_puts++;
        shmemi_tp_put(SHMEM_CTX_DEFAULT, pe, seg, off, src, n, 0, g->routine);
        shmemi_tp_collective_puts--;
    }
}

void *shmemi_grp_malloc(const struct shmemi_group *g, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        shmemi_fatal(g->routine, "out of memory (%zu bytes of scratch)", n);
    return p;
}
