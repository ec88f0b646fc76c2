/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/common.h — timing, statistics, argument parsing, pinning and output
 * shared by the benchmark programs: each program holds only what it
 * measures. Standard OpenSHMEM (1.4 names) only, so the same sources build
 * against Shoal and against any other implementation; newer routines are
 * used only under BENCH_HAVE_* macros that bench/run.py and bench/compare.py
 * set after a compile-and-link test.
 *
 * Output: one JSON object per line on PE 0's stdout, e.g.
 *   {"bench":"rma_lat","op":"putmem","size":8,"npes":2,"metric":"lat_ns","value":41.2,...}
 * Latency figures are the median, over batches, of the time per operation in
 * a batch (a batch is long enough that clock_gettime's own cost vanishes).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_SIZES 40
#define BENCH_MAX_BATCHES 4096

struct bench_args {
    int quick;
    int sizes_given;            /* --sizes was given */
    double budget_ns;           /* time spent measuring one row */
    int n_sizes;
    size_t sizes[BENCH_MAX_SIZES];
};

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void bench_default_sizes(struct bench_args *a, size_t lo, size_t hi)
{
    a->n_sizes = 0;
    for (size_t s = lo; s <= hi && a->n_sizes < BENCH_MAX_SIZES; s *= 2)
        a->sizes[a->n_sizes++] = s;
}

/* A program's own options, tried before the common ones: returns how many
 * words from argv[i] it took (0: none, the word is not one of its own). */
typedef int (*bench_own_fn)(int argc, char **argv, int i);

/* --quick            short run (smaller budget, a few sizes)
 * --sizes a,b,c      message sizes in bytes (default: powers of 2, lo to hi)
 * --budget-ms X      measuring time per row
 * and whatever `own` takes; any other word ends the program (status 2). */
static inline void bench_parse_args_own(int argc, char **argv, struct bench_args *a, size_t lo, size_t hi,
                                        bench_own_fn own)
{
    a->quick = 0;
    a->sizes_given = 0;
    a->budget_ns = 20e6;
    bench_default_sizes(a, lo, hi);
    for (int i = 1; i < argc; i++) {
        int took = own ? own(argc, argv, i) : 0;

        if (took > 0) {
            i += took - 1;
        } else if (!strcmp(argv[i], "--quick")) {
            a->quick = 1;
            a->budget_ns = 2e6;
        } else if (!strcmp(argv[i], "--budget-ms") && i + 1 < argc) {
            a->budget_ns = atof(argv[++i]) * 1e6;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *p = argv[++i];
            a->sizes_given = 1;
            a->n_sizes = 0;
            while (*p && a->n_sizes < BENCH_MAX_SIZES) {
                char *end;
                unsigned long long v = strtoull(p, &end, 10);
                if (end == p)
                    break;
                a->sizes[a->n_sizes++] = (size_t)v;
                p = *end == ',' ? end + 1 : end;
            }
        } else {
            fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
            exit(2);
        }
    }
}

static inline void bench_parse_args(int argc, char **argv, struct bench_args *a, size_t lo, size_t hi)
{
    bench_parse_args_own(argc, argv, a, lo, hi, NULL);
}

static inline int bench_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0..n); sorts v. */
static inline double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The value at fraction p (0..1) of v[0..n), nearest rank (p = 1: the
 * largest); sorts v. */
static inline double bench_quantile(double *v, int n, double p)
{
    int i;

    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    i = (int)(p * (n - 1) + 0.5);
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Pin the calling process to one CPU (best effort: a cpuset may forbid it). */
static inline void bench_pin_cpu(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
}

/* A batch runs `n` operations back to back. */
typedef void (*bench_batch_fn)(void *arg, long n);

/*
 * Time a one-sided operation on the calling PE alone. Warm-up doubles the
 * batch, from `min_n` operations, until one batch takes at least
 * `batch_ns` (that also faults in every page and fills the caches), then
 * batches are timed until the budget is spent. Returns the median time per
 * operation, in ns.
 *
 * A row that spreads one completion over many operations (a window of nbi
 * operations and its quiet, AMOs back to back and one quiet) starts at the
 * count it names (BENCH_BACK_TO_BACK): started at 1, one batch that ran
 * long in warm-up ended the doubling early, and on tcp such a row timed
 * windows of 1 to 32 from one launch to the next (n = 1 is a put and its
 * quiet: 0.06 Mop/s where windows of 32 gave 0.4).
 */
#define BENCH_BACK_TO_BACK 64
static inline double bench_time_batches(bench_batch_fn f, void *arg, double budget_ns, long min_n)
{
    static double per_op[BENCH_MAX_BATCHES];
    const double batch_ns = budget_ns > 5e6 ? 50e3 : 20e3;
    long n = min_n > 1 ? min_n : 1;
    int nb = 0;
    double t0, dt, start;

    f(arg, 1);
    for (;;) {
        t0 = bench_now_ns();
        f(arg, n);
        dt = bench_now_ns() - t0;
        if (dt >= batch_ns || n >= (1L << 24))
            break;
        n *= 2;
    }
    start = bench_now_ns();
    while (nb < BENCH_MAX_BATCHES && (nb < 7 || bench_now_ns() - start < budget_ns)) {
        t0 = bench_now_ns();
        f(arg, n);
        per_op[nb++] = (bench_now_ns() - t0) / (double)n;
    }
    return bench_median(per_op, nb);
}

/* A latency row: every operation completes by itself. */
static inline double bench_time_local(bench_batch_fn f, void *arg, double budget_ns)
{
    return bench_time_batches(f, arg, budget_ns, 1);
}

/* Batches of exactly `n` operations, `batches` times (for operations that
 * need the peer to run the same count, e.g. ping-pong). */
static inline double bench_time_fixed(bench_batch_fn f, void *arg, long n, int batches)
{
    static double per_op[BENCH_MAX_BATCHES];
    double t0;

    if (batches > BENCH_MAX_BATCHES)
        batches = BENCH_MAX_BATCHES;
    for (int b = 0; b < batches; b++) {
        t0 = bench_now_ns();
        f(arg, n);
        per_op[b] = (bench_now_ns() - t0) / (double)n;
    }
    return bench_median(per_op, batches);
}

static inline void bench_emit(const char *bench, const char *op, size_t size, int npes, const char *metric,
                       double value, const char *extra)
{
    printf("{\"bench\":\"%s\",\"op\":\"%s\",\"size\":%zu,\"npes\":%d,\"metric\":\"%s\",\"value\":%.6g%s%s}\n",
           bench, op, size, npes, metric, value, extra && *extra ? "," : "", extra ? extra : "");
    fflush(stdout);
}

static inline void bench_skip(const char *bench, const char *op, int npes, const char *why)
{
    printf("{\"bench\":\"%s\",\"op\":\"%s\",\"npes\":%d,\"skip\":\"%s\"}\n", bench, op, npes, why);
    fflush(stdout);
}

/* Aligned private buffer, touched so no page faults land in a timing. */
static inline void *bench_alloc_private(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, size ? size : 1) != 0) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", size);
        exit(1);
    }
    memset(p, 1, size);
    return p;
}

static inline size_t bench_max_size(const struct bench_args *a)
{
    size_t m = 8;
    for (int i = 0; i < a->n_sizes; i++)
        if (a->sizes[i] > m)
            m = a->sizes[i];
    return m;
}

#endif /* BENCH_COMMON_H */
