/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/app_patterns.c — the patterns graph and sorting codes make (GUPS,
 * ISx, bale's kernels): every PE issuing at once, each operation to a
 * random slot of a random other PE's table (bench/patterns.h):
 *   random_add         shmem_long_atomic_add of 1, one shmem_quiet per 1024
 *                      adds (GUPS)
 *   random_g           shmem_long_g, one at a time (an index gather)
 *   random_put_w64,    shmem_long_put_nbi of 8 bytes, one shmem_quiet per
 *   random_put_w1024   window of 64 or 1024
 *   alltoall           shmem_alltoall64 (1.4 active set; BENCH_HAVE_AS_ALLTOALL)
 *   team_alltoall      shmem_long_alltoall on SHMEM_TEAM_WORLD (1.5;
 *                      BENCH_HAVE_TEAM_ALLTOALL), at each --sizes (bytes per
 *                      pair of PEs; default 8, 64, 512, 4096)
 *
 * The random rows print two figures: rate_Mops, the mean over PEs of each
 * PE's median rate, and agg_rate_Mops, their sum (the job's rate); the
 * slowest and fastest PE are in the line. The all-to-all rows print the
 * slowest PE's median time per call. Each batch starts on every PE at once
 * and has the same length everywhere (patterns.h).
 *
 * Every row is checked before it is printed, so a library that skips work
 * cannot show a fast figure: the gets' sum against the table's known
 * contents; the last batch of puts slot by slot; the adds by their count and
 * a weighted checksum summed over all tables; the all-to-all's blocks. A
 * failed check prints a skip line with the reason instead of the row, and
 * the program exits 1. Before the rows each PE reads every other table
 * whole (shmem_getmem, untimed, checked), so no row times first touches.
 *
 *   app_patterns [--quick] [--sizes a,b,c] [--budget-ms X] [--table-mib M]
 *
 * --table-mib: each PE's table (default 4 MiB; a power of two of 8-byte
 * slots). --budget-ms: the timed part of one row (default 200 ms, quick 20).
 */
#include "patterns.h"

#include <shmem.h>

#define ALLTOALL_MAX_BYTES (1 << 16)
#if defined(BENCH_HAVE_AS_ALLTOALL) || defined(BENCH_HAVE_TEAM_ALLTOALL)
#define BENCH_ALLTOALL 1
#endif

#if defined(BENCH_HAVE_AS_ALLTOALL)
/* Consecutive calls rotate through pSync arrays: a PE is at most one call
 * ahead of another (an all-to-all needs everyone's data), so a pSync is
 * never reused by a call another PE is still in. */
#define PSYNC_ROT 4
static long *psync[PSYNC_ROT];
static unsigned psync_next;
#endif

/* What the all-to-all rows use. */
struct a2a {
    long *src, *dst;          /* symmetric, a block per PE of the largest size */
    size_t elems;             /* per pair of PEs */
    int npes;
};

static double *gathered;      /* symmetric, npes */
static long put_src[1024];    /* put_nbi sources stay untouched until quiet */
static struct pattern_options options = PATTERN_OPTIONS_DEFAULT;

/* ---- the group, for patterns.h ---- */

static void group_barrier(void)
{
    shmem_barrier_all();
}

static void group_allgather(double mine, double *all)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();

    shmem_barrier_all(); /* everyone has read the last round */
    for (int pe = 0; pe < npes; pe++)
        shmem_double_p(&gathered[me], mine, pe);
    shmem_barrier_all();
    memcpy(all, gathered, (size_t)npes * sizeof *all);
}

/* ---- the batches ---- */

static void add_batch(void *arg, long n)
{
    struct pattern_run *r = arg;
    long *table = (long *)r->table;
    uint64_t mask = r->nslots - 1;

    for (long i = 0; i < n; i += r->window) {
        for (int w = 0; w < r->window; w++) {
            struct pattern_target t = pattern_target(r->g->me, r->g->npes, mask, r->k++);
            shmem_long_atomic_add(&table[t.slot], 1, t.pe);
        }
        shmem_quiet();
    }
}

static void g_batch(void *arg, long n)
{
    struct pattern_run *r = arg;
    long *table = (long *)r->table;
    uint64_t mask = r->nslots - 1, sum = 0;

    for (long i = 0; i < n; i++) {
        struct pattern_target t = pattern_target(r->g->me, r->g->npes, mask, r->k++);
        sum += (uint64_t)shmem_long_g(&table[t.slot], t.pe);
    }
    r->get_sum += sum;
}

static void put_batch(void *arg, long n)
{
    struct pattern_run *r = arg;
    long *table = (long *)r->table;
    uint64_t mask = r->nslots - 1;

    for (long i = 0; i < n; i += r->window) {
        for (int w = 0; w < r->window; w++) {
            struct pattern_target t = pattern_target(r->g->me, r->g->npes, mask, r->k);
            put_src[w] = (long)pattern_put_value(r->g->me, r->k++);
            shmem_long_put_nbi(&table[t.slot], &put_src[w], 1, t.pe);
        }
        shmem_quiet();
    }
}

#if defined(BENCH_HAVE_AS_ALLTOALL)
static void alltoall_batch(void *arg, long n)
{
    struct a2a *c = arg;
    for (long i = 0; i < n; i++)
        shmem_alltoall64(c->dst, c->src, c->elems, 0, 0, c->npes, psync[psync_next++ % PSYNC_ROT]);
}
#endif

#if defined(BENCH_HAVE_TEAM_ALLTOALL)
static void team_alltoall_batch(void *arg, long n)
{
    struct a2a *c = arg;
    for (long i = 0; i < n; i++)
        shmem_long_alltoall(SHMEM_TEAM_WORLD, c->dst, c->src, c->elems);
}
#endif

#if defined(BENCH_ALLTOALL)
/* Block e of the all-to-all from PE `from` to PE `to`. */
static long a2a_value(int from, int to, size_t e)
{
    return (long)(((uint64_t)(from + 1) << 40) | ((uint64_t)to << 20) | e);
}

static void alltoall_row(struct pattern_run *r, struct a2a *c, const char *op, const char *api, pattern_batch_fn f,
                         size_t bytes)
{
    const struct pattern_group *g = r->g;
    int batches = pattern_batches(r);
    long n;
    double ns, slowest, bad = 0;
    char extra[160];

    c->elems = bytes / 8;
    for (int pe = 0; pe < g->npes; pe++)
        for (size_t e = 0; e < c->elems; e++)
            c->src[(size_t)pe * c->elems + e] = a2a_value(g->me, pe, e);
    shmem_barrier_all();
    n = pattern_agree_batch(g, f, c, 1, 2, r->budget_ns / batches); /* one call reaches every PE */
    ns = pattern_time_batches(g, f, c, n, batches, NULL);
    slowest = pattern_max_of(g, ns);
    /* One more call into a cleared destination, checked block by block. */
    memset(c->dst, 0, (size_t)g->npes * c->elems * sizeof(long));
    shmem_barrier_all();
    f(c, 1);
    for (int pe = 0; pe < g->npes; pe++)
        for (size_t e = 0; e < c->elems; e++)
            bad += c->dst[(size_t)pe * c->elems + e] != a2a_value(pe, g->me, e);
    bad = pattern_sum_of(g, bad);
    if (bad) {
        char why[96];
        snprintf(why, sizeof why, "%.0f elements of the all-to-all wrong", bad);
        pattern_refuse(r, op, bytes, why);
    } else if (g->me == 0) {
        snprintf(extra, sizeof extra, "\"api\":\"%s\",\"pe0_ns\":%.6g,\"calls_per_batch\":%ld,\"batches\":%d", api, ns,
                 n, batches);
        bench_emit("pattern", op, bytes, g->npes, "lat_ns", slowest, extra);
    }
}
#endif

/* Every other PE's table read whole, untimed: node-local this maps in every
 * page of them (a page's first touch is a fault, which the random rows would
 * otherwise time), and it checks that the tables start as they should. */
static void read_every_table(struct pattern_run *r)
{
    const struct pattern_group *g = r->g;
    double bad = 0;

    for (int pe = 0; pe < g->npes; pe++) {
        if (pe == g->me)
            continue;
        shmem_getmem(r->scratch, r->table, r->nslots * sizeof *r->table, pe);
        for (uint64_t i = 0; i < r->nslots; i++)
            bad += r->scratch[i] != pattern_initial(pe, i);
    }
    bad = pattern_sum_of(g, bad);
    if (bad) {
        char why[96];
        snprintf(why, sizeof why, "%.0f slots of the tables read back wrong before the rows", bad);
        pattern_refuse(r, "all", 8, why);
    }
}

static int own_option(int argc, char **argv, int i)
{
    return pattern_option(&options, argc, argv, i);
}

static void *sym_alloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);

    if (!p) {
        fprintf(stderr, "app_patterns: symmetric allocation of %zu bytes failed\n", bytes);
        shmem_global_exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    struct pattern_group g = {0, 0, group_barrier, group_allgather};
    struct pattern_run r;
#if defined(BENCH_ALLTOALL)
    struct a2a c;
    size_t a2a_max = 8;
#endif

    bench_parse_args_own(argc, argv, &a, 8, 4096, own_option);
    if (!a.sizes_given) {
        static const size_t sizes[] = {8, 64, 512, 4096};
        a.n_sizes = 4;
        memcpy(a.sizes, sizes, sizeof sizes);
    }
    shmem_init();
    g.me = shmem_my_pe();
    g.npes = shmem_n_pes();
    if (g.npes < 2 || g.npes > PATTERN_MAX_PROCS) {
        if (g.me == 0)
            bench_skip("pattern", "all", g.npes, "needs 2 to 4096 PEs");
        shmem_finalize();
        return 0;
    }
    memset(&r, 0, sizeof r);
    r.g = &g;
    r.quick = a.quick;
    r.budget_ns = pattern_budget_ns(&options, a.budget_ns);
    r.bench = "pattern";
    r.extra = "";
    r.nslots = pattern_slots_within(options.table_mib);
    r.table = sym_alloc(r.nslots * sizeof *r.table);
    r.scratch = bench_alloc_private(r.nslots * sizeof *r.scratch);
    gathered = sym_alloc((size_t)g.npes * sizeof *gathered);
#if defined(BENCH_ALLTOALL)
    for (int i = 0; i < a.n_sizes; i++)
        if (a.sizes[i] > a2a_max && a.sizes[i] <= ALLTOALL_MAX_BYTES)
            a2a_max = a.sizes[i];
    c.npes = g.npes;
    c.src = sym_alloc((size_t)g.npes * a2a_max);
    c.dst = sym_alloc((size_t)g.npes * a2a_max);
#endif
#if defined(BENCH_HAVE_AS_ALLTOALL)
    for (int i = 0; i < PSYNC_ROT; i++) {
        psync[i] = sym_alloc(SHMEM_ALLTOALL_SYNC_SIZE * sizeof(long));
        for (int j = 0; j < SHMEM_ALLTOALL_SYNC_SIZE; j++)
            psync[i][j] = SHMEM_SYNC_VALUE;
    }
#endif
    pattern_fill_initial(r.table, r.nslots, g.me);
    shmem_barrier_all();
    read_every_table(&r);

    pattern_get_row(&r, "random_g", g_batch, NULL);
    pattern_put_row(&r, "random_put_w64", put_batch, 64, NULL);
    pattern_put_row(&r, "random_put_w1024", put_batch, 1024, NULL);
    pattern_add_row(&r, "random_add", add_batch, PATTERN_ADD_WINDOW, NULL);
#if defined(BENCH_ALLTOALL)
    for (int i = 0; i < a.n_sizes; i++) {
        size_t bytes = a.sizes[i];

        if (bytes < 8 || bytes % 8 || bytes > ALLTOALL_MAX_BYTES)
            continue;
#if defined(BENCH_HAVE_AS_ALLTOALL)
        alltoall_row(&r, &c, "alltoall", "active-set", alltoall_batch, bytes);
#endif
#if defined(BENCH_HAVE_TEAM_ALLTOALL)
        alltoall_row(&r, &c, "team_alltoall", "team", team_alltoall_batch, bytes);
#endif
    }
#else
    if (g.me == 0)
        bench_skip("pattern", "alltoall", g.npes, "built without BENCH_HAVE_AS_ALLTOALL or BENCH_HAVE_TEAM_ALLTOALL");
#endif

    shmem_barrier_all();
    shmem_finalize();
    return r.wrong;
}
