/* SPDX-License-Identifier: BSD-3-Clause */
/* sos_extension_names_work.c — the shmemx_ names programs written for
 * Sandia OpenSHMEM call do what that library's do, with exact values on
 * every PE: the 1.6 routines under their shmemx_ names (ibput/ibget,
 * signal_add/set, sum_inscan/exscan), SHMEMX_TEAM_NODE,
 * SHMEMX_MALLOC_NO_BARRIER, shmemx_wtime, shmemx_register_gettid and the
 * performance counters.
 *
 * The node team's oracle assumes every PE runs on this machine (as the
 * test runner does): the node is then the whole job, cut into
 * SHMEM_VIRTUAL_NODES contiguous groups when that is set.
 */
#include "check.h"

#include <shmemx.h>

#include <stdint.h>
#include <string.h>

enum { K = 8 };

static long src[K], dst[4 * K];
static uint64_t sig[2];
static long scan_in[2], scan_out[2];
static long node_sum_src, node_sum_dst;
static int gettid_calls;

static uint64_t my_gettid(void)
{
    gettid_calls++;
    return 42;
}

static int me, npes, left, right;

static void check_strided(void)
{
    int i;

    for (i = 0; i < K; i++)
        src[i] = me * 100 + i;
    memset(dst, 0, sizeof dst);
    shmem_barrier_all();
    /* Blocks of 2 from src (stride 2) into the right neighbour's dst with
     * stride 4: dst[0,1] = src[0,1], dst[4,5] = src[2,3], ... */
    shmemx_long_ibput(dst, src, 4, 2, 2, K / 2, right);
    shmem_barrier_all();
    for (i = 0; i < 4 * K; i++) {
        long want = (i % 4 < 2 && i / 4 < K / 2) ? left * 100 + (i / 4) * 2 + i % 4 : 0;
        CHECK(dst[i] == want, "shmemx_long_ibput: dst[%d] = %ld, want %ld", i, dst[i], want);
    }
    shmem_barrier_all();
    /* And back: the generic and the sized ctx form fetch what was written. */
    {
        long back[K] = {0}, back2[K] = {0};
        shmemx_ibget(back, dst, 2, 4, 2, K / 2, right);
        shmemx_ctx_ibget64(SHMEM_CTX_DEFAULT, back2, dst, 2, 4, 2, K / 2, right);
        for (i = 0; i < K; i++) {
            CHECK(back[i] == me * 100 + i, "shmemx_ibget: back[%d] = %ld, want %d", i, back[i], me * 100 + i);
            CHECK(back2[i] == me * 100 + i, "shmemx_ctx_ibget64: back[%d] = %ld", i, back2[i]);
        }
    }
    shmem_barrier_all();
}

static void check_signals(void)
{
    uint64_t total = 0;
    int pe;

    sig[0] = sig[1] = 0;
    shmem_barrier_all();
    /* Every PE adds me + 1 three ways onto PE 0's sig[0]. */
    shmemx_signal_add(&sig[0], (uint64_t)me + 1, 0);
    shmemx_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig[0], (uint64_t)me + 1, 0);
    (shmemx_signal_add)(&sig[0], (uint64_t)me + 1, 0);
    shmemx_signal_set(&sig[1], (uint64_t)me + 7, right);
    shmem_barrier_all();
    for (pe = 0; pe < npes; pe++)
        total += 3 * ((uint64_t)pe + 1);
    if (me == 0)
        CHECK(shmem_signal_fetch(&sig[0]) == total, "shmemx_signal_add: total %llu, want %llu",
              (unsigned long long)shmem_signal_fetch(&sig[0]), (unsigned long long)total);
    CHECK(shmem_signal_fetch(&sig[1]) == (uint64_t)left + 7, "shmemx_signal_set: %llu, want %d",
          (unsigned long long)shmem_signal_fetch(&sig[1]), left + 7);
    shmem_barrier_all();
    shmemx_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig[1], 5, right);
    shmemx_signal_set(SHMEM_CTX_DEFAULT, &sig[1], 6, right); /* generic, with a context */
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig[1]) == 6, "shmemx_ctx_signal_set: %llu, want 6",
          (unsigned long long)shmem_signal_fetch(&sig[1]));
    shmem_barrier_all();
}

static void check_scans(void)
{
    long in = 0, ex = 0;
    int pe, rc;

    scan_in[0] = me + 1;
    scan_in[1] = 10 * (me + 1);
    shmem_barrier_all();
    rc = shmemx_long_sum_inscan(SHMEM_TEAM_WORLD, scan_out, scan_in, 2);
    for (pe = 0; pe <= me; pe++)
        in += pe + 1;
    CHECK(rc == 0 && scan_out[0] == in && scan_out[1] == 10 * in,
          "shmemx_long_sum_inscan: rc %d, %ld %ld, want %ld %ld", rc, scan_out[0], scan_out[1], in, 10 * in);
    rc = shmemx_sum_exscan(SHMEM_TEAM_WORLD, scan_out, scan_in, 2);
    ex = in - (me + 1);
    /* Exclusive scan: PE 0's result is the sum of nothing. */
    CHECK(rc == 0 && scan_out[0] == ex && scan_out[1] == 10 * ex,
          "shmemx_sum_exscan: rc %d, %ld %ld, want %ld %ld", rc, scan_out[0], scan_out[1], ex, 10 * ex);
    shmem_barrier_all();
}

/* PE p is in virtual node p * k / npes (bootstrap/virtual.c's split). */
static int node_of(int pe, long k)
{
    return k > 1 ? (int)((long)pe * (k > npes ? npes : k) / npes) : 0;
}

static void check_node_team(void)
{
    const char *v = getenv("SHMEM_VIRTUAL_NODES");
    long k = v ? strtol(v, NULL, 10) : 1;
    int want_size = 0, want_me = -1, first = -1, pe, i, n, rc;
    long want_sum = 0;

    for (pe = 0; pe < npes; pe++)
        if (node_of(pe, k) == node_of(me, k)) {
            if (pe == me)
                want_me = want_size;
            if (first < 0)
                first = pe;
            want_size++;
            want_sum += pe;
        }
    n = shmem_team_n_pes(SHMEMX_TEAM_NODE);
    CHECK(n == want_size, "SHMEMX_TEAM_NODE has %d PEs, want %d", n, want_size);
    CHECK(shmem_team_my_pe(SHMEMX_TEAM_NODE) == want_me, "SHMEMX_TEAM_NODE: my_pe %d, want %d",
          shmem_team_my_pe(SHMEMX_TEAM_NODE), want_me);
    for (i = 0; i < n && i < want_size; i++)
        CHECK(shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD) == first + i,
              "SHMEMX_TEAM_NODE PE %d is world PE %d, want %d", i,
              shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD), first + i);
    /* Its PEs whose memory is mapped: all of them on the node-local path,
     * this PE alone when SHMEM_TRANSPORT=ofi forces the network path. */
    if (getenv("SHMEM_TRANSPORT") && strcmp(getenv("SHMEM_TRANSPORT"), "ofi") == 0)
        CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == 1, "SHMEM_TEAM_SHARED under SHMEM_TRANSPORT=ofi has %d PEs",
              shmem_team_n_pes(SHMEM_TEAM_SHARED));
    else
        CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == n, "SHMEM_TEAM_SHARED has %d PEs, the node %d",
              shmem_team_n_pes(SHMEM_TEAM_SHARED), n);
    /* A collective on it. */
    node_sum_src = me;
    shmem_team_sync(SHMEMX_TEAM_NODE);
    rc = shmem_long_sum_reduce(SHMEMX_TEAM_NODE, &node_sum_dst, &node_sum_src, 1);
    CHECK(rc == 0 && node_sum_dst == want_sum, "sum_reduce on SHMEMX_TEAM_NODE: rc %d, %ld, want %ld", rc,
          node_sum_dst, want_sum);
    shmem_barrier_all();
}

static void check_malloc_no_barrier(void)
{
    long *a = shmem_malloc_with_hints(4 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
    long *b = shmem_malloc_with_hints(4 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER | SHMEM_MALLOC_ATOMICS_REMOTE);
    long *c = shmem_malloc(sizeof(long)); /* with its barrier */
    long got;

    CHECK(a && b && c, "shmem_malloc_with_hints(SHMEMX_MALLOC_NO_BARRIER) returned NULL");
    if (!(a && b && c))
        return;
    /* Symmetric (same offsets on every PE): the put and the add below
     * land in the right neighbour's a[1] and b[0] only if they are. */
    a[1] = -1;
    b[0] = 0;
    shmem_barrier_all(); /* the program's own synchronisation */
    shmem_long_p(&a[1], me, right);
    shmem_long_atomic_add(&b[0], me + 1, right);
    shmem_barrier_all();
    got = a[1];
    CHECK(got == left, "a block from SHMEMX_MALLOC_NO_BARRIER got %ld from the left, want %d", got, left);
    CHECK(b[0] == left + 1, "atomic add into a hinted block: %ld, want %d", b[0], left + 1);
    shmem_free(c);
    shmem_free(b);
    shmem_free(a);
}

static void check_wtime_and_gettid(void)
{
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    double t0 = shmemx_wtime(), t1;

    nanosleep(&ten_ms, NULL);
    t1 = shmemx_wtime();
    CHECK(t1 - t0 >= 0.0099 && t1 - t0 < 5.0, "shmemx_wtime: %.6f s across a 10 ms sleep", t1 - t0);
    shmemx_register_gettid(my_gettid);
    shmem_barrier_all();
    shmem_long_p(&dst[0], 1, right);
    shmem_quiet();
    CHECK(gettid_calls == 0, "the registered gettid was called %d times; Shoal never needs it", gettid_calls);
    shmem_barrier_all();
}

/* Deltas of a private context's counters around K puts and a quiet, then
 * K gets. On the network path each put and each get is one counted
 * operation; on the node-local path nothing is counted. */
static void check_pcntr(void)
{
    shmem_ctx_t ctx;
    uint64_t iw0, cw0, ir0, cr0, iw, cw, ir, cr, target = 1;
    shmemx_pcntr_t all;
    int network = shmem_ptr(dst, right) == NULL;
    uint64_t want = network ? K : 0;
    long sink = 0;
    int i;

    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    /* The context takes its endpoint at its first operation, maybe one a
     * destroyed context counted on before: deltas from here on. */
    sink = shmem_ctx_long_g(ctx, &src[0], right) - right * 100;
    shmemx_pcntr_get_issued_write(ctx, &iw0);
    shmemx_pcntr_get_completed_write(ctx, &cw0);
    shmemx_pcntr_get_issued_read(ctx, &ir0);
    shmemx_pcntr_get_completed_read(ctx, &cr0);
    CHECK(cw0 == iw0 && cr0 == ir0, "counters before any operation: writes %llu/%llu reads %llu/%llu",
          (unsigned long long)cw0, (unsigned long long)iw0, (unsigned long long)cr0, (unsigned long long)ir0);
    for (i = 0; i < K; i++)
        shmem_ctx_long_p(ctx, &dst[i], i, right);
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_get_issued_write(ctx, &iw);
    shmemx_pcntr_get_completed_write(ctx, &cw);
    CHECK(iw - iw0 == want, "issued_write grew by %llu over %d puts, want %llu", (unsigned long long)(iw - iw0), K,
          (unsigned long long)want);
    CHECK(cw - cw0 == want, "completed_write grew by %llu over %d puts and a quiet, want %llu",
          (unsigned long long)(cw - cw0), K, (unsigned long long)want);
    shmemx_pcntr_get_issued_read(ctx, &ir0); /* quiet may have read to flush */
    for (i = 0; i < K; i++)
        sink += shmem_ctx_long_g(ctx, &src[i], right);
    shmemx_pcntr_get_issued_read(ctx, &ir);
    shmemx_pcntr_get_completed_read(ctx, &cr);
    CHECK(ir - ir0 == want, "issued_read grew by %llu over %d gets, want %llu", (unsigned long long)(ir - ir0), K,
          (unsigned long long)want);
    CHECK(cr == ir, "completed_read %llu after blocking gets, issued %llu", (unsigned long long)cr,
          (unsigned long long)ir);
    CHECK(sink == K * (long)right * 100 + K * (K - 1) / 2, "gets returned %ld", sink);
    shmemx_pcntr_get_all(ctx, &all);
    CHECK(all.pending_put == iw && all.completed_put == cw && all.pending_get == ir && all.completed_get == cr,
          "shmemx_pcntr_get_all: %llu %llu %llu %llu, want %llu %llu %llu %llu",
          (unsigned long long)all.pending_put, (unsigned long long)all.completed_put,
          (unsigned long long)all.pending_get, (unsigned long long)all.completed_get, (unsigned long long)iw,
          (unsigned long long)cw, (unsigned long long)ir, (unsigned long long)cr);
    shmemx_pcntr_get_completed_target(&target);
    CHECK(target == 0 && all.target == 0, "completed_target %llu, get_all's %llu: Shoal counts none",
          (unsigned long long)target, (unsigned long long)all.target);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;

    check_strided();
    check_signals();
    check_scans();
    check_node_team();
    check_malloc_no_barrier();
    check_wtime_and_gettid();
    for (int i = 0; i < K; i++) /* check_pcntr reads these back */
        src[i] = me * 100 + i;
    shmem_barrier_all();
    check_pcntr();

    int status = check_finish();
    shmem_finalize();
    return status;
}
