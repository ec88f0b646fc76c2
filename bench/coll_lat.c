/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/coll_lat.c — latency of collectives over all PEs:
 *   barrier_all, sync_all                      (every version)
 *   sync, broadcast, fcollect, alltoall, sum_reduce   1.4 active-set routines
 *                (shmem_sync, shmem_broadcast64, shmem_fcollect64,
 *                shmem_alltoall64, shmem_long_sum_to_all; BENCH_HAVE_AS_*)
 *   team_sync, team_broadcast, team_fcollect,        1.5 team routines on
 *   team_alltoall, team_sum_reduce                   SHMEM_TEAM_WORLD
 *                (BENCH_HAVE_TEAM_*)
 * Each form runs when the library has it, so libraries that have both are
 * compared on the same routines; each row names the API it used. Data rows run at each element count (longs) given by
 * --sizes (bytes / 8).
 *
 * Every PE times batches of back-to-back calls; the row's value is the
 * largest, over PEs, of each PE's median time per call.
 */
#include "common.h"

#include <shmem.h>

#if defined(BENCH_HAVE_AS_SYNC) || defined(BENCH_HAVE_AS_BROADCAST) || defined(BENCH_HAVE_AS_FCOLLECT) || \
    defined(BENCH_HAVE_AS_ALLTOALL) || defined(BENCH_HAVE_AS_SUM_TO_ALL)
#define BENCH_ACTIVE_SET 1
/* Consecutive active-set calls rotate through pSync (and, for the
 * reductions, pWrk) arrays, so a call never reuses the arrays of one a
 * slower PE may still be in: the spec's rule for both. */
#define PSYNC_ROT 4
#define PSYNC_LEN 256
static long *psync[PSYNC_ROT];
static long *pwrk[PSYNC_ROT];
static unsigned rot;
#endif

#define MAX_PES 1024

struct coll {
    long *src, *dst;          /* symmetric */
    size_t nelems;
    int npes;
};

static double *results;       /* symmetric [npes] on PE 0 */
static int *calib;            /* symmetric */

/* ---- one call of each collective ---------------------------------- */
static void barrier_all_batch(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
}

static void sync_all_batch(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_sync_all();
}

/* Team forms (1.5): the library synchronises internally, since no pSync
 * of the caller's says when a buffer may be reused. */
#if defined(BENCH_HAVE_TEAM_SYNC)
static void team_sync_batch(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_team_sync(SHMEM_TEAM_WORLD);
}
#endif
#if defined(BENCH_HAVE_TEAM_BROADCAST)
static void team_broadcast_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_long_broadcast(SHMEM_TEAM_WORLD, c->dst, c->src, c->nelems, 0);
}
#endif
#if defined(BENCH_HAVE_TEAM_FCOLLECT)
static void team_fcollect_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_long_fcollect(SHMEM_TEAM_WORLD, c->dst, c->src, c->nelems);
}
#endif
#if defined(BENCH_HAVE_TEAM_ALLTOALL)
static void team_alltoall_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_long_alltoall(SHMEM_TEAM_WORLD, c->dst, c->src, c->nelems);
}
#endif
#if defined(BENCH_HAVE_TEAM_SUM_REDUCE)
static void team_sum_reduce_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, c->dst, c->src, c->nelems);
}
#endif

/* Active-set forms (1.4), the ones both libraries have: the rows that
 * compare like with like. The caller's rotating pSync lets a PE start the
 * next call while a slower one still finishes this one. */
#if defined(BENCH_HAVE_AS_SYNC)
static void sync_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_sync(0, 0, c->npes, psync[rot++ % PSYNC_ROT]);
}
#endif
#if defined(BENCH_HAVE_AS_BROADCAST)
static void broadcast_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_broadcast64(c->dst, c->src, c->nelems, 0, 0, 0, c->npes, psync[rot++ % PSYNC_ROT]);
}
#endif
#if defined(BENCH_HAVE_AS_FCOLLECT)
static void fcollect_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_fcollect64(c->dst, c->src, c->nelems, 0, 0, c->npes, psync[rot++ % PSYNC_ROT]);
}
#endif
#if defined(BENCH_HAVE_AS_ALLTOALL)
static void alltoall_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++)
        shmem_alltoall64(c->dst, c->src, c->nelems, 0, 0, c->npes, psync[rot++ % PSYNC_ROT]);
}
#endif
#if defined(BENCH_HAVE_AS_SUM_TO_ALL)
static void sum_reduce_batch(void *arg, long n)
{
    struct coll *c = arg;
    for (long i = 0; i < n; i++, rot++)
        shmem_long_sum_to_all(c->dst, c->src, (int)c->nelems, 0, 0, c->npes, pwrk[rot % PSYNC_ROT],
                              psync[rot % PSYNC_ROT]);
}
#endif

/* ---- measuring ------------------------------------------------------ */

/* On an oversubscribed node the first row measured something left over
 * from start-up (single runs up to 100x the rows after it; the launcher's
 * daemons, presumably): run barriers for about 0.2 s first, PE 0's clock
 * deciding for everyone. */
static void settle(struct coll *c)
{
    static long more; /* symmetric */
    double t0 = bench_now_ns();

    for (long n = 1;; n *= 2) {
        barrier_all_batch(c, n);
        if (shmem_my_pe() == 0)
            more = bench_now_ns() - t0 < 2e8;
        shmem_barrier_all();
        if (!shmem_long_g(&more, 0))
            break;
        shmem_barrier_all(); /* nobody reads `more` while PE 0 writes it */
    }
}

/* Every PE must run the same number of calls: PE 0 times a few, picks the
 * batch length, and tells everyone. */
static long agree_batch_len(bench_batch_fn f, struct coll *c, double batch_ns)
{
    int me = shmem_my_pe();
    double t0 = bench_now_ns();

    f(c, 4); /* warm-up, everyone */
    f(c, 8);
    if (me == 0) {
        double per = (bench_now_ns() - t0) / 12.0;
        long n = (long)(batch_ns / (per > 1.0 ? per : 1.0));
        if (n < 1)
            n = 1;
        if (n > 100000)
            n = 100000;
        for (int pe = 0; pe < c->npes; pe++)
            shmem_int_p(calib, (int)n, pe);
    }
    shmem_barrier_all();
    return *calib;
}

static void row(const char *op, const char *api, bench_batch_fn f, struct coll *c, const struct bench_args *a)
{
    static double per_op[BENCH_MAX_BATCHES];
    int me = shmem_my_pe(), batches = a->quick ? 5 : 15;
    long n;
    double med, worst = 0.0, sum = 0.0;
    char extra[160];

    shmem_barrier_all();
    n = agree_batch_len(f, c, a->budget_ns / batches);
    for (int b = 0; b < batches; b++) {
        double t0 = bench_now_ns();
        f(c, n);
        per_op[b] = (bench_now_ns() - t0) / (double)n;
    }
    med = bench_median(per_op, batches);
    shmem_double_p(&results[me], med, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 0; pe < c->npes; pe++) {
            sum += results[pe];
            if (results[pe] > worst)
                worst = results[pe];
        }
        snprintf(extra, sizeof extra, "\"api\":\"%s\",\"pe0_ns\":%.6g,\"mean_ns\":%.6g,\"calls_per_batch\":%ld",
                 api, results[0], sum / c->npes, n);
        bench_emit("coll", op, c->nelems * sizeof(long), c->npes, "lat_ns", worst, extra);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    struct bench_args a;
    struct coll c;
    size_t max_elems = 1;
    int me;

    bench_parse_args(argc, argv, &a, 8, 8);
    a.budget_ns *= 2; /* several PEs share the cores */
    shmem_init();
    me = shmem_my_pe();
    c.npes = shmem_n_pes();
    if (c.npes > MAX_PES) {
        if (me == 0)
            bench_skip("coll", "all", c.npes, "more PEs than this benchmark supports");
        shmem_finalize();
        return 0;
    }
    for (int i = 0; i < a.n_sizes; i++)
        if (a.sizes[i] / sizeof(long) > max_elems)
            max_elems = a.sizes[i] / sizeof(long);
    c.src = shmem_malloc(max_elems * (size_t)c.npes * sizeof(long));
    c.dst = shmem_malloc(max_elems * (size_t)c.npes * sizeof(long));
    results = shmem_calloc((size_t)c.npes, sizeof(double));
    calib = shmem_calloc(1, sizeof(int));
    if (!c.src || !c.dst || !results || !calib) {
        fprintf(stderr, "coll_lat: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < max_elems * (size_t)c.npes; i++)
        c.src[i] = (long)i + me, c.dst[i] = 0;
#ifdef BENCH_ACTIVE_SET
    for (int r = 0; r < PSYNC_ROT; r++) {
        psync[r] = shmem_malloc(PSYNC_LEN * sizeof(long));
        if (!psync[r])
            shmem_global_exit(1);
        for (int i = 0; i < PSYNC_LEN; i++)
            psync[r][i] = SHMEM_SYNC_VALUE;
    }
    {
        size_t w = max_elems / 2 + 1;
        if (w < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
            w = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
        for (int r = 0; r < PSYNC_ROT; r++)
            if (!(pwrk[r] = shmem_malloc(w * sizeof(long))))
                shmem_global_exit(1);
    }
#endif
    c.nelems = 0;
    settle(&c);
    row("barrier_all", "1.0", barrier_all_batch, &c, &a);
    row("sync_all", "1.4", sync_all_batch, &c, &a);
#if defined(BENCH_HAVE_TEAM_SYNC)
    row("team_sync", "team", team_sync_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_AS_SYNC)
    row("sync", "active-set", sync_batch, &c, &a);
#endif
    for (int i = 0; i < a.n_sizes; i++) {
        c.nelems = a.sizes[i] / sizeof(long) ? a.sizes[i] / sizeof(long) : 1;
#if defined(BENCH_HAVE_AS_BROADCAST)
        row("broadcast", "active-set", broadcast_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_AS_FCOLLECT)
        row("fcollect", "active-set", fcollect_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_AS_ALLTOALL)
        row("alltoall", "active-set", alltoall_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_AS_SUM_TO_ALL)
        row("sum_reduce", "active-set", sum_reduce_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_TEAM_BROADCAST)
        row("team_broadcast", "team", team_broadcast_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_TEAM_FCOLLECT)
        row("team_fcollect", "team", team_fcollect_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_TEAM_ALLTOALL)
        row("team_alltoall", "team", team_alltoall_batch, &c, &a);
#endif
#if defined(BENCH_HAVE_TEAM_SUM_REDUCE)
        row("team_sum_reduce", "team", team_sum_reduce_batch, &c, &a);
#endif
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
