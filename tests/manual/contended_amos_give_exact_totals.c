/* SPDX-License-Identifier: BSD-3-Clause */
/* Every PE hammers counters on PE 0 with fetch_add, add, inc, fetch_inc and a
 * compare-swap increment loop, for int, long, long long and uint64_t.  The
 * totals must be exact and the values returned by fetch_add (the "tickets")
 * must form a permutation of 0..npes*K-1: gathered on PE 0 and checked. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define K 1000          /* operations of each kind per PE */
#define CAS_LIMIT 10000000L

enum { FADD, ADD, INC, FINC, CAS, NOPS };

static int ci[NOPS];
static long cl[NOPS];
static long long cll[NOPS];
static uint64_t cu[NOPS];

/* Start 64-bit counters just below a 32-bit boundary so carries into the high
 * word are exercised. */
#define BASE64 ((uint64_t)0xFFFFFFFFu - 100)

static long long *tickets;   /* symmetric heap: npes * K on PE 0 */

/* PE 0 checks that tickets[0..n) minus base is a permutation of 0..n. */
static void check_permutation(const char *what, long long base, int npes)
{
    size_t n = (size_t)npes * K;
    unsigned char *seen = calloc(n, 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        long long t = tickets[i] - base;
        if (t < 0 || (size_t)t >= n || seen[t]) {
            if (bad++ < 5)
                CHECK(0, "%s ticket %lld from PE %zu (slot %zu) out of range or repeated",
                      what, tickets[i], i / K, i % K);
        } else {
            seen[t] = 1;
        }
    }
    if (bad > 5)
        CHECK(0, "%s: %zu bad tickets in all", what, bad);
    free(seen);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    long long mine[K];

    tickets = shmem_malloc((size_t)npes * K * sizeof(long long));
    if (!tickets) {
        fprintf(stderr, "PE %d: FAIL shmem_malloc for tickets returned NULL\n", me);
        shmem_global_exit(1);
    }
    if (me == 0)
        for (int op = 0; op < NOPS; op++) {
            cll[op] = (long long)BASE64;
            cu[op] = BASE64;
        }
    shmem_barrier_all();

    /* ---- int ---- */
    for (int k = 0; k < K; k++)
        mine[k] = shmem_int_atomic_fetch_add(&ci[FADD], 1, 0);
    shmem_longlong_put(tickets + (size_t)me * K, mine, K, 0);
    for (int k = 0; k < K; k++) {
        shmem_int_atomic_add(&ci[ADD], 3, 0);
        shmem_int_atomic_inc(&ci[INC], 0);
        int f = shmem_int_atomic_fetch_inc(&ci[FINC], 0);
        CHECK(f >= 0 && f < npes * K, "int fetch_inc returned %d", f);
        int seen = shmem_int_atomic_fetch(&ci[CAS], 0);
        for (long tries = 0;; tries++) {
            int prev = shmem_int_atomic_compare_swap(&ci[CAS], seen, seen + 1, 0);
            if (prev == seen)
                break;
            seen = prev;
            if (tries > CAS_LIMIT) {
                CHECK(0, "int compare_swap loop did not converge");
                break;
            }
        }
    }
    shmem_barrier_all();
    if (me == 0)
        check_permutation("int fetch_add", 0, npes);
    shmem_barrier_all();

    /* ---- long (C11 generic names) ---- */
    for (int k = 0; k < K; k++)
        mine[k] = shmem_atomic_fetch_add(&cl[FADD], 1L, 0);
    shmem_longlong_put(tickets + (size_t)me * K, mine, K, 0);
    for (int k = 0; k < K; k++) {
        shmem_atomic_add(&cl[ADD], 3L, 0);
        shmem_atomic_inc(&cl[INC], 0);
        long f = shmem_atomic_fetch_inc(&cl[FINC], 0);
        CHECK(f >= 0 && f < (long)npes * K, "long fetch_inc returned %ld", f);
        long seen = shmem_atomic_fetch(&cl[CAS], 0);
        for (long tries = 0;; tries++) {
            long prev = shmem_atomic_compare_swap(&cl[CAS], seen, seen + 1, 0);
            if (prev == seen)
                break;
            seen = prev;
            if (tries > CAS_LIMIT) {
                CHECK(0, "long compare_swap loop did not converge");
                break;
            }
        }
    }
    shmem_barrier_all();
    if (me == 0)
        check_permutation("long fetch_add", 0, npes);
    shmem_barrier_all();

    /* ---- long long ---- */
    for (int k = 0; k < K; k++)
        mine[k] = shmem_longlong_atomic_fetch_add(&cll[FADD], 1LL, 0);
    shmem_longlong_put(tickets + (size_t)me * K, mine, K, 0);
    for (int k = 0; k < K; k++) {
        shmem_longlong_atomic_add(&cll[ADD], 3LL, 0);
        shmem_longlong_atomic_inc(&cll[INC], 0);
        long long f = shmem_longlong_atomic_fetch_inc(&cll[FINC], 0);
        CHECK(f >= (long long)BASE64 && f < (long long)BASE64 + (long long)npes * K,
              "long long fetch_inc returned %lld", f);
        long long seen = shmem_longlong_atomic_fetch(&cll[CAS], 0);
        for (long tries = 0;; tries++) {
            long long prev = shmem_longlong_atomic_compare_swap(&cll[CAS], seen, seen + 1, 0);
            if (prev == seen)
                break;
            seen = prev;
            if (tries > CAS_LIMIT) {
                CHECK(0, "long long compare_swap loop did not converge");
                break;
            }
        }
    }
    shmem_barrier_all();
    if (me == 0)
        check_permutation("long long fetch_add", (long long)BASE64, npes);
    shmem_barrier_all();

    /* ---- uint64_t ---- */
    for (int k = 0; k < K; k++)
        mine[k] = (long long)shmem_uint64_atomic_fetch_add(&cu[FADD], 1, 0);
    shmem_longlong_put(tickets + (size_t)me * K, mine, K, 0);
    for (int k = 0; k < K; k++) {
        shmem_uint64_atomic_add(&cu[ADD], 3, 0);
        shmem_uint64_atomic_inc(&cu[INC], 0);
        uint64_t f = shmem_uint64_atomic_fetch_inc(&cu[FINC], 0);
        CHECK(f >= BASE64 && f < BASE64 + (uint64_t)npes * K, "uint64 fetch_inc returned %llu",
              (unsigned long long)f);
        uint64_t seen = shmem_uint64_atomic_fetch(&cu[CAS], 0);
        for (long tries = 0;; tries++) {
            uint64_t prev = shmem_uint64_atomic_compare_swap(&cu[CAS], seen, seen + 1, 0);
            if (prev == seen)
                break;
            seen = prev;
            if (tries > CAS_LIMIT) {
                CHECK(0, "uint64 compare_swap loop did not converge");
                break;
            }
        }
    }
    shmem_barrier_all();
    if (me == 0)
        check_permutation("uint64 fetch_add", (long long)BASE64, npes);
    shmem_barrier_all();

    /* Exact totals, read by every PE through AMO fetches. */
    long long n = (long long)npes * K;
    long long want[NOPS] = {n, 3 * n, n, n, n};
    static const char *opname[NOPS] = {"fetch_add", "add", "inc", "fetch_inc", "cswap loop"};
    for (int op = 0; op < NOPS; op++) {
        int vi = shmem_int_atomic_fetch(&ci[op], 0);
        long vl = shmem_long_atomic_fetch(&cl[op], 0);
        long long vll = shmem_longlong_atomic_fetch(&cll[op], 0);
        uint64_t vu = shmem_uint64_atomic_fetch(&cu[op], 0);
        CHECK(vi == want[op], "int %s total = %d, want %lld", opname[op], vi, want[op]);
        CHECK(vl == want[op], "long %s total = %ld, want %lld", opname[op], vl, want[op]);
        CHECK(vll == (long long)BASE64 + want[op], "long long %s total = %lld, want %lld",
              opname[op], vll, (long long)BASE64 + want[op]);
        CHECK(vu == BASE64 + (uint64_t)want[op], "uint64 %s total = %llu, want %llu", opname[op],
              (unsigned long long)vu, (unsigned long long)(BASE64 + (uint64_t)want[op]));
    }

    int rc = check_finish();
    shmem_free(tickets);
    shmem_finalize();
    return rc;
}
