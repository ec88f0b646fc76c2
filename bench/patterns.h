/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/patterns.h — what app_patterns.c (OpenSHMEM) and hw_ofi_random.c
 * (raw libfabric, its bound) share: the random streams of operations, the
 * checks that a run did what it timed, and the timing of batches that every
 * process runs at once. Plain C: no OpenSHMEM, no libfabric; the programs
 * pass in how their processes meet (struct pattern_group).
 *
 * A process's k-th operation comes from a counter-based generator
 * (splitmix64's finaliser of seed + k): any process can recompute any
 * other's k-th target without having run its stream, which is what lets the
 * checks replay the job's operations cheaply. Every process runs the same
 * number of operations in every batch, so the streams' lengths are known
 * everywhere too.
 *
 * Targets are the other processes only: a process's operations on its own
 * table would measure its memory, not the library's paths.
 */
#ifndef BENCH_PATTERNS_H
#define BENCH_PATTERNS_H

#include "common.h"

#define PATTERN_TABLE_MIB 4       /* per process: beyond L2, modest beside the heap */
#define PATTERN_BATCHES 15
#define PATTERN_BATCHES_QUICK 5
#define PATTERN_MAX_BATCH_OPS (1L << 22)
#define PATTERN_ADD_WINDOW 1024   /* adds between quiets, as GUPS buckets them */
#define PATTERN_MAX_PROCS 4096

/* ---- the streams ---- */

static inline uint64_t pattern_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The k-th draw of process `pe`: fixed seeds, so runs repeat. */
static inline uint64_t pattern_draw(int pe, uint64_t k)
{
    return pattern_mix(((uint64_t)pe + 1) * 0xd1b54a32d192ed03ULL + k * 0x9e3779b97f4a7c15ULL);
}

struct pattern_target {
    int pe;
    uint64_t slot;
};

/* Operation k of process `me`: a random slot (low bits; slots are a power
 * of two) of a random other process (high bits). */
static inline struct pattern_target pattern_target(int me, int npes, uint64_t slot_mask, uint64_t k)
{
    uint64_t r = pattern_draw(me, k);
    struct pattern_target t;

    t.pe = (me + 1 + (int)(((r >> 32) * (uint64_t)(npes - 1)) >> 32)) % npes;
    t.slot = r & slot_mask;
    return t;
}

/* What each table slot holds before the gets: who owns it and where. */
static inline uint64_t pattern_initial(int pe, uint64_t slot)
{
    return ((uint64_t)(pe + 1) << 40) | slot;
}

/* What put k of `writer` stores: its origin, so a slot can say which put
 * wrote it (bit 63 keeps it apart from every initial value). */
static inline uint64_t pattern_put_value(int writer, uint64_t k)
{
    return (1ULL << 63) | ((uint64_t)writer << 40) | (k & ((1ULL << 40) - 1));
}

/* Weights of the adds' checksum: an add that lands on the wrong slot or
 * process changes the weighted sum, not only the count. Small enough that
 * no sum of a run overflows. */
static inline uint64_t pattern_weight(int pe, uint64_t slot)
{
    return ((uint64_t)pe * 0x9e3779b1ULL + slot) % 65521 + 1;
}

static inline void pattern_fill_initial(uint64_t *table, uint64_t nslots, int me)
{
    for (uint64_t i = 0; i < nslots; i++)
        table[i] = pattern_initial(me, i);
}

/* ---- the checks (untimed) ---- */

/* The sum of the values gets k0..k1 of `me` must have read. */
static inline uint64_t pattern_expected_get_sum(int me, int npes, uint64_t mask, uint64_t k0, uint64_t k1)
{
    uint64_t sum = 0;

    for (uint64_t k = k0; k < k1; k++) {
        struct pattern_target t = pattern_target(me, npes, mask, k);
        sum += pattern_initial(t.pe, t.slot);
    }
    return sum;
}

/* The adds' checksums: what `me` issued (adds of 1, operations k0..k1)
 * and what its table holds. Summed over all processes, the two agree
 * exactly when every add landed once, where it was sent. */
struct pattern_add_sums {
    uint64_t count, weighted;
};

static inline struct pattern_add_sums pattern_issued_adds(int me, int npes, uint64_t mask, uint64_t k0, uint64_t k1)
{
    struct pattern_add_sums s = {0, 0};

    for (uint64_t k = k0; k < k1; k++) {
        struct pattern_target t = pattern_target(me, npes, mask, k);
        s.count++;
        s.weighted += pattern_weight(t.pe, t.slot);
    }
    return s;
}

static inline struct pattern_add_sums pattern_table_adds(const uint64_t *table, uint64_t nslots, int me)
{
    struct pattern_add_sums s = {0, 0};

    for (uint64_t i = 0; i < nslots; i++) {
        s.count += table[i];
        s.weighted += table[i] * pattern_weight(me, i);
    }
    return s;
}

#define PATTERN_SLOT_UNTOUCHED 0ULL
#define PATTERN_SLOT_SEVERAL 1ULL  /* no put value or initial value is 1 */

/*
 * After one batch of puts (operations k0..k1 of every process) into a
 * table that held its initial values, the slots of `me` that are wrong:
 * a slot no put aimed at must hold its initial value, a slot one put aimed
 * at that put's value, and a slot several aimed at (their order is not
 * defined within a batch) the value of one of them. `scratch` holds nslots
 * words.
 */
static inline uint64_t pattern_check_puts(const uint64_t *table, uint64_t *scratch, uint64_t nslots, int me,
                                          int npes, uint64_t k0, uint64_t k1)
{
    uint64_t bad = 0;

    memset(scratch, 0, nslots * sizeof *scratch);
    for (int w = 0; w < npes; w++) {
        if (w == me)
            continue;
        for (uint64_t k = k0; k < k1; k++) {
            struct pattern_target t = pattern_target(w, npes, nslots - 1, k);
            if (t.pe != me)
                continue;
            scratch[t.slot] = scratch[t.slot] == PATTERN_SLOT_UNTOUCHED ? pattern_put_value(w, k)
                                                                         : PATTERN_SLOT_SEVERAL;
        }
    }
    for (uint64_t i = 0; i < nslots; i++) {
        uint64_t v = table[i], want = scratch[i];

        if (want == PATTERN_SLOT_UNTOUCHED) {
            bad += v != pattern_initial(me, i);
        } else if (want != PATTERN_SLOT_SEVERAL) {
            bad += v != want;
        } else {
            /* One of the puts aimed here: decode it and recompute its target. */
            int w = (int)((v >> 40) & 0x7fffff);
            uint64_t k = v & ((1ULL << 40) - 1);
            struct pattern_target t;

            if (!(v >> 63) || w >= npes || k < k0 || k >= k1) {
                bad++;
                continue;
            }
            t = pattern_target(w, npes, nslots - 1, k);
            bad += t.pe != me || t.slot != i;
        }
    }
    return bad;
}

/* ---- timing batches that every process runs at once ---- */

/* How a program's processes meet: a barrier, and every process's value
 * on every process (all[npes]; it implies a barrier). */
struct pattern_group {
    int me, npes;
    void (*barrier)(void);
    void (*allgather)(double mine, double *all);
};

/* A batch runs `n` operations (a multiple of the row's unit). */
typedef void (*pattern_batch_fn)(void *arg, long n);

static inline double pattern_max_of(const struct pattern_group *g, double mine)
{
    static double all[PATTERN_MAX_PROCS];
    double m = mine;

    g->allgather(mine, all);
    for (int i = 0; i < g->npes; i++)
        if (all[i] > m)
            m = all[i];
    return m;
}

static inline double pattern_min_of(const struct pattern_group *g, double mine)
{
    static double all[PATTERN_MAX_PROCS];
    double m = mine;

    g->allgather(mine, all);
    for (int i = 0; i < g->npes; i++)
        if (all[i] < m)
            m = all[i];
    return m;
}

/* Enough random operations to reach every other process. */
#define PATTERN_FIRST_OPS(npes) (16L * (npes))

/* Every process must run the same number of operations per batch (the
 * checks replay the streams, and all should issue for all of a batch):
 * warm-up batches double until the fastest process takes a quarter of
 * `batch_ns`, and the count is scaled from that time, which every process
 * knows, so all compute the same. The fastest, since a process the
 * scheduler set aside for a few ms in a short warm-up batch would otherwise
 * leave every batch far too short. */
static inline long pattern_agree_batch(const struct pattern_group *g, pattern_batch_fn f, void *arg, long unit,
                                       long first, double batch_ns)
{
    long n = unit;

    /* `first` operations untimed: the first operation to each process may
     * cost a millisecond (connections, mappings), which would leave every
     * batch a few operations long. */
    g->barrier();
    f(arg, (first + unit - 1) / unit * unit);
    for (;;) {
        double t0, fastest;

        g->barrier();
        t0 = bench_now_ns();
        f(arg, n);
        fastest = pattern_min_of(g, bench_now_ns() - t0);
        if (fastest >= batch_ns / 4 || n >= PATTERN_MAX_BATCH_OPS) {
            double scaled = (double)n * batch_ns / (fastest > 1.0 ? fastest : 1.0);
            long units = (long)(scaled / (double)unit + 0.5);
            if (units < 1)
                units = 1;
            if (units * unit > PATTERN_MAX_BATCH_OPS)
                units = PATTERN_MAX_BATCH_OPS / unit;
            return units * unit;
        }
        n *= 2;
    }
}

/* Time `batches` batches of n operations, each started by all processes
 * together (the barrier is not timed); `before_last` (may be NULL) runs
 * untimed before the last one, between barriers. Returns this
 * process's median time per operation, in ns. */
static inline double pattern_time_batches(const struct pattern_group *g, pattern_batch_fn f, void *arg, long n,
                                          int batches, void (*before_last)(void *arg))
{
    static double per_op[BENCH_MAX_BATCHES];

    if (batches > BENCH_MAX_BATCHES)
        batches = BENCH_MAX_BATCHES;
    for (int b = 0; b < batches; b++) {
        double t0;

        if (b == batches - 1 && before_last) {
            g->barrier(); /* nobody still issues the batch before */
            before_last(arg);
        }
        g->barrier();
        t0 = bench_now_ns();
        f(arg, n);
        per_op[b] = (bench_now_ns() - t0) / (double)n;
    }
    return bench_median(per_op, batches);
}

/* Rates over processes, from each one's median time per operation. */
struct pattern_rates {
    double mean_Mops, min_Mops, max_Mops, total_Mops;
};

static inline struct pattern_rates pattern_gather_rates(const struct pattern_group *g, double per_op_ns)
{
    static double all[PATTERN_MAX_PROCS];
    struct pattern_rates r = {0, 0, 0, 0};

    g->allgather(per_op_ns > 0 ? 1e3 / per_op_ns : 0, all);
    r.min_Mops = all[0];
    for (int i = 0; i < g->npes; i++) {
        r.total_Mops += all[i];
        if (all[i] < r.min_Mops)
            r.min_Mops = all[i];
        if (all[i] > r.max_Mops)
            r.max_Mops = all[i];
    }
    r.mean_Mops = r.total_Mops / g->npes;
    return r;
}

static inline double pattern_sum_of(const struct pattern_group *g, double mine)
{
    static double all[PATTERN_MAX_PROCS];
    double s = 0;

    g->allgather(mine, all);
    for (int i = 0; i < g->npes; i++)
        s += all[i];
    return s;
}

/* ---- the random rows ---- */

/* One process's side of the random rows. The batch functions issue
 * operations k, k+1, ... of this process's stream and advance k; each
 * batch ends with its operations complete at their targets (quiet, or a
 * counter), so a barrier after it finds them in place. */
struct pattern_run {
    const struct pattern_group *g;
    uint64_t *table;          /* this process's, remotely accessible; nslots */
    uint64_t nslots;          /* a power of two */
    uint64_t k;               /* the next draw; equal on every process between rows */
    int window;               /* operations between completions */
    uint64_t get_sum;         /* what the gets read */
    uint64_t last_batch_k0;   /* the first operation of the checked batch of puts */
    uint64_t *scratch;        /* private, nslots: the put check's expectations */
    int quick;
    double budget_ns;         /* the timed part of a row */
    const char *bench;        /* the rows' "bench" */
    const char *extra;        /* the program's own fields of every row, or "" */
    int wrong;                /* a check failed */
};

static inline int pattern_batches(const struct pattern_run *r)
{
    return r->quick ? PATTERN_BATCHES_QUICK : PATTERN_BATCHES;
}

/* A row whose check failed: a skip line with the reason, never a figure. */
static inline void pattern_refuse(struct pattern_run *r, const char *op, size_t size, const char *why)
{
    r->wrong = 1;
    if (r->g->me == 0) {
        fprintf(stderr, "%s: %s (%zu B, %d processes): %s\n", r->bench, op, size, r->g->npes, why);
        printf("{\"bench\":\"%s\",\"op\":\"%s\",\"size\":%zu,\"npes\":%d,\"skip\":\"wrong results: %s\"}\n",
               r->bench, op, size, r->g->npes, why);
        fflush(stdout);
    }
}

/* rate_Mops: the mean over processes of each one's median rate;
 * agg_rate_Mops: their sum, the job's rate. */
static inline void pattern_emit_rates(const struct pattern_run *r, const char *op, const struct pattern_rates *rt,
                                      long n, const char *more)
{
    char extra[768];

    if (r->g->me != 0)
        return;
    snprintf(extra, sizeof extra,
             "\"per_pe_min_Mops\":%.6g,\"per_pe_max_Mops\":%.6g,\"window\":%d,\"batch_ops\":%ld,\"batches\":%d,"
             "\"table_bytes\":%llu%s%s%s%s",
             rt->min_Mops, rt->max_Mops, r->window, n, pattern_batches(r),
             (unsigned long long)(r->nslots * sizeof *r->table), *r->extra ? "," : "", r->extra,
             more && *more ? "," : "", more ? more : "");
    bench_emit(r->bench, op, 8, r->g->npes, "rate_Mops", rt->mean_Mops, extra);
    bench_emit(r->bench, op, 8, r->g->npes, "agg_rate_Mops", rt->total_Mops, extra);
}

/* random_g: the gets' sum must be that of the table's initial values at
 * the slots the streams chose. */
static inline void pattern_get_row(struct pattern_run *r, const char *op, pattern_batch_fn f, const char *more)
{
    const struct pattern_group *g = r->g;
    int batches = pattern_batches(r);
    uint64_t k0 = r->k;
    long n;
    double ns, bad;
    struct pattern_rates rt;

    r->window = 1;
    r->get_sum = 0;
    n = pattern_agree_batch(g, f, r, 1, PATTERN_FIRST_OPS(g->npes), r->budget_ns / batches);
    ns = pattern_time_batches(g, f, r, n, batches, NULL);
    rt = pattern_gather_rates(g, ns);
    bad = pattern_sum_of(g, r->get_sum != pattern_expected_get_sum(g->me, g->npes, r->nslots - 1, k0, r->k));
    if (bad)
        pattern_refuse(r, op, 8, "gets read values other than the table's");
    else
        pattern_emit_rates(r, op, &rt, n, more);
}

static inline void pattern_reset_for_put_check(void *arg)
{
    struct pattern_run *r = arg;

    pattern_fill_initial(r->table, r->nslots, r->g->me);
    r->last_batch_k0 = r->k;
}

/* random_put_wW: the table is reset before the last batch, which is then
 * checked slot by slot (pattern_check_puts); the table ends as it began. */
static inline void pattern_put_row(struct pattern_run *r, const char *op, pattern_batch_fn f, int window,
                                   const char *more)
{
    const struct pattern_group *g = r->g;
    int batches = pattern_batches(r);
    long n;
    double ns, bad;
    struct pattern_rates rt;

    r->window = window;
    n = pattern_agree_batch(g, f, r, window, PATTERN_FIRST_OPS(g->npes), r->budget_ns / batches);
    ns = pattern_time_batches(g, f, r, n, batches, pattern_reset_for_put_check);
    rt = pattern_gather_rates(g, ns); /* a barrier: every put is in place */
    bad = pattern_sum_of(g, (double)pattern_check_puts(r->table, r->scratch, r->nslots, g->me, g->npes,
                                                       r->last_batch_k0, r->k));
    if (bad) {
        char why[96];
        snprintf(why, sizeof why, "%.0f slots wrong after the last batch of puts", bad);
        pattern_refuse(r, op, 8, why);
    } else {
        pattern_emit_rates(r, op, &rt, n, more);
    }
    pattern_fill_initial(r->table, r->nslots, g->me);
    g->barrier();
}

/* random_add: adds of 1 into zeroed tables; summed over processes, the
 * tables' count and weighted checksum must equal those of the adds issued. */
static inline void pattern_add_row(struct pattern_run *r, const char *op, pattern_batch_fn f, int window,
                                   const char *more)
{
    const struct pattern_group *g = r->g;
    int batches = pattern_batches(r);
    uint64_t k0;
    long n;
    double ns, count_diff, weighted_diff;
    struct pattern_rates rt;
    struct pattern_add_sums issued, held;

    g->barrier(); /* nobody reads the table any more */
    memset(r->table, 0, r->nslots * sizeof *r->table);
    g->barrier();
    k0 = r->k;
    r->window = window;
    n = pattern_agree_batch(g, f, r, window, PATTERN_FIRST_OPS(g->npes), r->budget_ns / batches);
    ns = pattern_time_batches(g, f, r, n, batches, NULL);
    rt = pattern_gather_rates(g, ns); /* a barrier: every add is in place */
    issued = pattern_issued_adds(g->me, g->npes, r->nslots - 1, k0, r->k);
    held = pattern_table_adds(r->table, r->nslots, g->me);
    /* Doubles hold the differences exactly: every sum is far below 2^53. */
    count_diff = pattern_sum_of(g, (double)held.count - (double)issued.count);
    weighted_diff = pattern_sum_of(g, (double)held.weighted - (double)issued.weighted);
    if (count_diff != 0 || weighted_diff != 0) {
        char why[160];
        snprintf(why, sizeof why, "the tables hold %.0f adds more than were issued (weighted checksum off by %.0f)",
                 count_diff, weighted_diff);
        pattern_refuse(r, op, 8, why);
    } else {
        pattern_emit_rates(r, op, &rt, n, more);
    }
    pattern_fill_initial(r->table, r->nslots, g->me);
    g->barrier();
}

/* ---- the options ---- */

/* What both programs take beside common.h's options. */
struct pattern_options {
    double table_mib;         /* --table-mib: each process's table */
    double budget_ms;         /* --budget-ms, else 0 */
};

#define PATTERN_OPTIONS_DEFAULT {PATTERN_TABLE_MIB, 0}

/* --table-mib M and --budget-ms X, as a program's own options (common.h's
 * bench_own_fn): returns how many words it took from argv[i]. */
static inline int pattern_option(struct pattern_options *o, int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        return 0;
    if (!strcmp(argv[i], "--table-mib"))
        o->table_mib = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--budget-ms"))
        o->budget_ms = atof(argv[i + 1]);
    else
        return 0;
    return 2;
}

/* A row's timed part: --budget-ms if given, else ten times common.h's
 * budget, since every process contends and batches must hold many
 * operations. */
static inline double pattern_budget_ns(const struct pattern_options *o, double common_budget_ns)
{
    return o->budget_ms > 0 ? o->budget_ms * 1e6 : common_budget_ns * 10;
}

/* The largest power of two of 8-byte slots within `mib` MiB (at least 2). */
static inline uint64_t pattern_slots_within(double mib)
{
    uint64_t n = 2;

    while (n * 2 * 8 <= (uint64_t)(mib * (1 << 20)))
        n *= 2;
    return n;
}

#endif /* BENCH_PATTERNS_H */
