/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/progress_cost.c — what a progress thread costs a PE that computes,
 * and how soon that PE serves a peer. Standard OpenSHMEM only: run it
 * against any library, with and without its progress thread, e.g.
 *
 *   python3 bench/compare.py --mode ofi-tcp --prog progress_cost \
 *       --env on: --env off:SHMEM_PROGRESS_THREAD=0 shoal=build
 *
 *   progress_cost [compute] [serve] [phase] [--quick]   (no part named: all three)
 *
 * compute  every PE runs the same arithmetic loop with no library call;
 *          row "compute": ms per PE, the mean over PEs ("max": the
 *          slowest). Against a launch without the thread, the difference is
 *          the thread's share of the core.
 * serve    PE 1 computes; PE 0 sends it 400 fetch-adds, each followed by
 *          an 8-byte get, 0.5 ms apart; rows "serve_fetch_add" and
 *          "serve_get": the median in us (p90 and max beside it), how long a
 *          peer waits for a computing PE. A library that serves a
 *          computing PE only in its calls gets a skip row instead (after 5 s
 *          more than the operations take).
 * phase    30 times: PE 1 calls the library (shmem_test) for 20 ms, then
 *          computes for 25 ms; PE 0 sends one fetch-add 1 ms after PE 1
 *          stopped calling; row "phase_fetch_add": the median in us, how
 *          soon a thread standing aside takes over (without one: about
 *          24 ms, when PE 1 calls again).
 * serve and phase need 2 PEs or more. Every fetched value is checked: a
 * wrong one ends the run with status 1.
 */
#include "common.h"

#include <shmem.h>

#define MAX_PES 1024 /* PEs whose compute times PE 0 gathers */

static long long counter, never, source[1], landing[1];
static double times_ms[MAX_PES];
static int stop;

/* Busy arithmetic the compiler cannot drop, without library calls. */
static void compute_until(double until_ns)
{
    volatile unsigned long x = 0;

    while (bench_now_ns() < until_ns)
        for (int i = 0; i < 10000; i++)
            x += (unsigned long)i;
}

static void emit_spread(const char *op, double *v, int n)
{
    char extra[96];
    double p90 = bench_quantile(v, n, 0.9), max = bench_quantile(v, n, 1.0);

    snprintf(extra, sizeof extra, "\"p90_us\":%.6g,\"max_us\":%.6g", p90, max);
    bench_emit("progress_cost", op, 8, shmem_n_pes(), "us", bench_median(v, n), extra);
}

static int compute(int quick)
{
    static double mine;
    const unsigned long loops = quick ? 30000000UL : 300000000UL;
    volatile unsigned long x = 0;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    double t0;

    shmem_barrier_all();
    t0 = bench_now_ns();
    for (unsigned long i = 0; i < loops; i++)
        x += i;
    mine = (bench_now_ns() - t0) / 1e6;
    if (me < MAX_PES)
        shmem_double_put(&times_ms[me], &mine, 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        int n = npes < MAX_PES ? npes : MAX_PES;
        double sum = 0, max = 0;
        char extra[64];

        for (int pe = 0; pe < n; pe++) {
            sum += times_ms[pe];
            max = times_ms[pe] > max ? times_ms[pe] : max;
        }
        snprintf(extra, sizeof extra, "\"max\":%.6g", max);
        bench_emit("progress_cost", "compute", 0, npes, "ms", sum / n, extra);
    }
    return 0;
}

static int serve(int quick)
{
    static double fadd[400], get[400];
    static int unserved; /* PE 1 gave up computing: nothing served it meanwhile */
    const int ops = quick ? 40 : 400;
    int bad = 0;

    source[0] = 42;
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        /* Computes until PE 0 says stop (read with plain loads). A library
         * that serves a PE only in its calls never says it: give up after
         * 5 s more than the operations take, and call the library. */
        const double give_up = bench_now_ns() + 5e9 + ops * 1e6;

        while (!*(volatile int *)&stop && !unserved) {
            compute_until(bench_now_ns() + 100e3);
            unserved = bench_now_ns() > give_up;
        }
    } else if (shmem_my_pe() == 0) {
        const struct timespec gap = {0, 500000};

        for (int i = 0; i < ops; i++) {
            double t0 = bench_now_ns();
            long long v = shmem_longlong_atomic_fetch_add(&counter, 1, 1);

            fadd[i] = (bench_now_ns() - t0) / 1e3;
            t0 = bench_now_ns();
            shmem_getmem(landing, source, sizeof landing, 1);
            get[i] = (bench_now_ns() - t0) / 1e3;
            bad |= v != i || landing[0] != 42;
            nanosleep(&gap, NULL);
        }
        shmem_int_atomic_set(&stop, 1, 1);
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        if (shmem_int_g(&unserved, 1)) {
            bench_skip("progress_cost", "serve", shmem_n_pes(),
                       "a computing PE was served only once it called the library");
        } else {
            emit_spread("serve_fetch_add", fadd, ops);
            emit_spread("serve_get", get, ops);
        }
    }
    counter = 0;
    shmem_barrier_all();
    return bad;
}

static int phase(int quick)
{
    static double first[30];
    const int phases = quick ? 5 : 30;
    int bad = 0;

    for (int r = 0; r < phases; r++) {
        double t0;

        shmem_barrier_all();
        t0 = bench_now_ns();
        if (shmem_my_pe() == 1) {
            while (bench_now_ns() - t0 < 20e6)
                shmem_longlong_test(&never, SHMEM_CMP_EQ, -1);
            compute_until(t0 + 45e6);
        } else if (shmem_my_pe() == 0) {
            while (bench_now_ns() - t0 < 21e6)
                ;
            t0 = bench_now_ns();
            bad |= shmem_longlong_atomic_fetch_add(&counter, 1, 1) != r;
            first[r] = (bench_now_ns() - t0) / 1e3;
        }
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        emit_spread("phase_fetch_add", first, phases);
    return bad;
}

enum { COMPUTE = 1, SERVE = 2, PHASE = 4 };
static int parts; /* the parts named on the command line */

static int own_option(int argc, char **argv, int i)
{
    static const char *const names[] = {"compute", "serve", "phase"};

    (void)argc;
    for (int k = 0; k < 3; k++) {
        if (!strcmp(argv[i], names[k])) {
            parts |= 1 << k;
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    int bad = 0;

    bench_parse_args_own(argc, argv, &a, 8, 8, own_option);
    if (!parts)
        parts = COMPUTE | SERVE | PHASE;

    shmem_init();
    if (parts & COMPUTE)
        bad |= compute(a.quick);
    if (parts & (SERVE | PHASE) && shmem_n_pes() < 2) {
        if (shmem_my_pe() == 0)
            bench_skip("progress_cost", "serve,phase", shmem_n_pes(), "needs 2 PEs or more");
    } else {
        if (parts & SERVE)
            bad |= serve(a.quick);
        if (parts & PHASE)
            bad |= phase(a.quick);
    }
    if (bad)
        fprintf(stderr, "progress_cost: PE %d: a fetched value was wrong\n", shmem_my_pe());
    shmem_finalize();
    return bad;
}
