/*
 * bench/progress_cost.c — what a progress thread costs a PE that computes,
 * and how soon that PE serves a peer (docs/design.md, "Progress": what
 * serving costs, what standing aside costs). Standard OpenSHMEM only: run
 * it against any library, with or without its progress thread.
 *
 *   oshcc -O2 bench/progress_cost.c -o /tmp/progress_cost
 *   SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp FI_TCP_IFACE=lo oshrun -n 2 /tmp/progress_cost compute
 *
 * compute  every PE runs the same arithmetic loop with no library call;
 *          PE 0 prints each PE's time in ms. Against the same launch with
 *          SHMEM_PROGRESS_THREAD=0: the difference is the thread's share.
 * serve    PE 1 computes; PE 0 sends it 400 fetch-adds, each followed by
 *          an 8-byte get, 0.5 ms apart, and prints the median, 90th
 *          percentile and maximum of each in us: how long a peer waits for
 *          a computing PE.
 * phase    30 times: PE 1 calls the library (shmem_test) for 20 ms, then
 *          computes; PE 0 sends one fetch-add 1 ms after PE 1 stopped
 *          calling and prints the median, 90th percentile and maximum in
 *          us: how soon a thread standing aside takes over.
 * Every fetched value is checked: a wrong one ends the run with status 1.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERVE_OPS 400
#define PHASES 30

static double now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void print_spread(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf("%s: median %.1f us, p90 %.1f, max %.1f\n", what, v[n / 2], v[n * 9 / 10], v[n - 1]);
}

/* Busy arithmetic the compiler cannot drop, without library calls. */
static void compute_for(double until_us)
{
    volatile unsigned long x = 0;

    while (now_us() < until_us)
        for (int i = 0; i < 10000; i++)
            x += (unsigned long)i;
}

static long long counter, never, source[1], landing[1];
#define MAX_PES 1024 /* PEs whose times PE 0 prints */

static double times_ms[MAX_PES];
static int stop;

static int compute(void)
{
    static double mine;
    volatile unsigned long x = 0;
    double t0;

    shmem_barrier_all();
    t0 = now_us();
    for (unsigned long i = 0; i < 300000000UL; i++)
        x += i;
    mine = (now_us() - t0) / 1e3;
    if (shmem_my_pe() < MAX_PES)
        shmem_double_put(&times_ms[shmem_my_pe()], &mine, 1, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        printf("compute ms per PE:");
        for (int pe = 0; pe < shmem_n_pes() && pe < MAX_PES; pe++)
            printf(" %.1f", times_ms[pe]);
        printf("\n");
    }
    return 0;
}

static int serve(void)
{
    static double fadd[SERVE_OPS], get[SERVE_OPS];
    int bad = 0;

    source[0] = 42;
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        /* Computes until PE 0 says stop (read with plain loads). */
        while (!*(volatile int *)&stop)
            compute_for(now_us() + 100);
    } else if (shmem_my_pe() == 0) {
        const struct timespec gap = {0, 500000};

        for (int i = 0; i < SERVE_OPS; i++) {
            double t0 = now_us();
            long long v = shmem_longlong_atomic_fetch_add(&counter, 1, 1);

            fadd[i] = now_us() - t0;
            t0 = now_us();
            shmem_getmem(landing, source, sizeof landing, 1);
            get[i] = now_us() - t0;
            bad |= v != i || landing[0] != 42;
            nanosleep(&gap, NULL);
        }
        shmem_int_atomic_set(&stop, 1, 1);
        print_spread("fetch-add to a computing PE", fadd, SERVE_OPS);
        print_spread("get 8 B from a computing PE", get, SERVE_OPS);
    }
    shmem_barrier_all();
    return bad;
}

static int phase(void)
{
    static double first[PHASES];
    int bad = 0;

    for (int r = 0; r < PHASES; r++) {
        double t0;

        shmem_barrier_all();
        t0 = now_us();
        if (shmem_my_pe() == 1) {
            while (now_us() - t0 < 20000)
                shmem_longlong_test(&never, SHMEM_CMP_EQ, -1);
            compute_for(t0 + 45000);
        } else if (shmem_my_pe() == 0) {
            while (now_us() - t0 < 21000)
                ;
            t0 = now_us();
            bad |= shmem_longlong_atomic_fetch_add(&counter, 1, 1) != r;
            first[r] = now_us() - t0;
        }
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        print_spread("first fetch-add to a PE 1 ms into computing", first, PHASES);
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int bad;

    shmem_init();
    if (strcmp(mode, "compute") && (shmem_n_pes() < 2 || (strcmp(mode, "serve") && strcmp(mode, "phase")))) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "usage: oshrun -n 2 %s compute|serve|phase (serve and phase need 2 PEs or more)\n",
                    argv[0]);
        shmem_finalize();
        return 2;
    }
    bad = !strcmp(mode, "compute") ? compute() : !strcmp(mode, "serve") ? serve() : phase();
    if (bad)
        fprintf(stderr, "PE %d: a fetched value was wrong\n", shmem_my_pe());
    shmem_finalize();
    return bad;
}
