/* SPDX-License-Identifier: BSD-3-Clause */
/* check.h — shared helpers for the hand-written behaviour tests.
 *
 * CHECK(cond, fmt, ...) records a failure with the PE number, source line and
 * a formatted explanation, and keeps going so one run reports every broken
 * value.  check_finish() sums the failures of all PEs on PE 0, which prints a
 * final "OK" line only when every PE passed.  wait_*_bounded() poll with a
 * deadline so a missing update ends the job with a message instead of a hang.
 */
#ifndef SHOAL_MANUAL_CHECK_H
#define SHOAL_MANUAL_CHECK_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds a bounded wait polls before it declares the update lost. */
#define CHECK_WAIT_LIMIT_S 40.0
/* Failures printed per PE before the rest are only counted. */
#define CHECK_PRINT_LIMIT 25

static int check_fails;
static long check_fail_total; /* symmetric: summed on PE 0 */

static inline void check_report(int line, const char *cond)
{
    check_fails++;
    if (check_fails <= CHECK_PRINT_LIMIT)
        fprintf(stderr, "PE %d: FAIL line %d: (%s): ", shmem_my_pe(), line, cond);
}

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            check_report(__LINE__, #cond);                                    \
            if (check_fails <= CHECK_PRINT_LIMIT) {                           \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
                fflush(stderr);                                               \
            }                                                                 \
        }                                                                     \
    } while (0)

static inline double check_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Give up on a lost update: report it and end every PE. */
static inline void check_timeout(const char *what)
{
    fprintf(stderr, "PE %d: FAIL timeout after %.0f s waiting for %s\n",
            shmem_my_pe(), CHECK_WAIT_LIMIT_S, what);
    fflush(stderr);
    shmem_global_exit(2);
}

static inline void wait_long_bounded(long *ivar, int cmp, long value, const char *what)
{
    double start = check_now();
    while (!shmem_long_test(ivar, cmp, value)) {
        if (check_now() - start > CHECK_WAIT_LIMIT_S)
            check_timeout(what);
        sched_yield();
    }
}

static inline void wait_int_bounded(int *ivar, int cmp, int value, const char *what)
{
    double start = check_now();
    while (!shmem_int_test(ivar, cmp, value)) {
        if (check_now() - start > CHECK_WAIT_LIMIT_S)
            check_timeout(what);
        sched_yield();
    }
}

/* Sleep, making no library call, until *w holds v (a peer puts it) or
 * patience_s has passed since t0: what such a PE left gathered only its
 * progress thread can send. */
static inline void check_sleep_until(volatile long long *w, long long v, double t0, double patience_s)
{
    const struct timespec nap = {0, 200000};

    while (*w != v && check_now() - t0 < patience_s)
        nanosleep(&nap, NULL);
}

/* Collective: sums every PE's failures; the sum is exact on PE 0 (other PEs
 * get their own count).  Prints nothing. */
static inline long check_collect(void)
{
    long total = check_fails;

    if (check_fails)
        shmem_long_atomic_add(&check_fail_total, (long)check_fails, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        total = shmem_long_atomic_fetch(&check_fail_total, 0);
    shmem_barrier_all();
    return total;
}

/* Collective: PE 0 prints "OK" when no PE failed.  Returns the exit status
 * this PE should use. */
static inline int check_finish(void)
{
    long total = check_collect();

    if (shmem_my_pe() == 0) {
        if (total == 0)
            printf("OK\n");
        else
            fprintf(stderr, "FAILED: %ld check(s) failed across %d PE(s)\n",
                    total, shmem_n_pes());
        fflush(stdout);
        fflush(stderr);
    }
    return total != 0 ? 1 : 0;
}

#endif /* SHOAL_MANUAL_CHECK_H */
