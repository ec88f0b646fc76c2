/* SPDX-License-Identifier: BSD-3-Clause */
/* SHMEM_THREAD_MULTIPLE: NTHREADS threads per PE hammer counters on every PE
 * with fetch_add, add and a compare-swap increment loop, through three kinds
 * of context at once: the default context and one created shared context
 * (both used by every thread) and a private context per thread.  Between the
 * AMOs each thread puts a small, a medium (bounced on the network path) or a
 * large (zero-copy) block to its own slot on every PE, quiets the context and
 * reads the block back.  At the end every total
 * must be exact on every PE, the fetch_add tickets of each counter must sum
 * to 0 + 1 + ... + (n - 1), and every slot must hold its thread's last
 * block. */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define NTHREADS 4
#define ITERS 60      /* per thread, per target PE, per context kind */
#define NSIZES 3
#define SMALL 4       /* longs: below every provider's inject size */
#define MEDIUM 768    /* longs (6 KiB): above inject sizes, below the bounce size */
#define LARGE 2048    /* longs (16 KiB): above the default bounce size */
#define MAX_PES 8
#define CAS_LIMIT 10000000L

enum { CTX_DEFAULT, CTX_SHARED, CTX_PRIVATE, NKINDS };
enum { FADD, ADD, CAS, NOPS };

static const char *const kind_name[NKINDS] = {"default", "shared", "private"};
static const char *const op_name[NOPS] = {"fetch_add", "add", "cswap loop"};

static long counter[NKINDS][NOPS];
static long ticket_sum[NKINDS]; /* sums of the fetch_add tickets taken here */
static const size_t block_len[NSIZES] = {SMALL, MEDIUM, LARGE};
static long slot[NSIZES][MAX_PES][NTHREADS][LARGE];

static shmem_ctx_t shared_ctx;
static pthread_barrier_t start_line;

struct worker {
    int tid;
    long fetched[NKINDS][MAX_PES]; /* this thread's sum of tickets, per target */
    int fails;
};

static long pattern(int pe, int tid, int iter, int k)
{
    return ((long)pe << 40) | ((long)tid << 32) | ((long)iter << 12) | k;
}

static void cswap_increment(shmem_ctx_t ctx, long *dest, int pe, struct worker *w)
{
    long seen = shmem_ctx_long_atomic_fetch(ctx, dest, pe);

    for (long tries = 0;; tries++) {
        long prev = shmem_ctx_long_atomic_compare_swap(ctx, dest, seen, seen + 1, pe);
        if (prev == seen)
            return;
        seen = prev;
        if (tries > CAS_LIMIT) {
            fprintf(stderr, "PE %d thread %d: FAIL compare_swap loop on PE %d did not converge\n",
                    shmem_my_pe(), w->tid, pe);
            w->fails++;
            return;
        }
    }
}

/* Put a block to this thread's slot on pe, complete it, read it back. */
static void put_and_read_back(shmem_ctx_t ctx, long *slot, size_t n, int pe, int iter, struct worker *w)
{
    long out[LARGE], back[LARGE];
    int me = shmem_my_pe();

    for (size_t k = 0; k < n; k++)
        out[k] = pattern(me, w->tid, iter, (int)k);
    shmem_ctx_long_put(ctx, slot, out, n, pe);
    memset(out, 0, n * sizeof out[0]); /* the source is reusable at once */
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_get(ctx, back, slot, n, pe);
    for (size_t k = 0; k < n; k++)
        if (back[k] != pattern(me, w->tid, iter, (int)k)) {
            fprintf(stderr, "PE %d thread %d: FAIL read back %ld of %zu longs from PE %d: element %zu = %#lx, "
                    "want %#lx\n", me, w->tid, (long)iter, n, pe, k, (unsigned long)back[k],
                    (unsigned long)pattern(me, w->tid, iter, (int)k));
            w->fails++;
            return;
        }
}

static void one_round(shmem_ctx_t ctx, int kind, int pe, int iter, struct worker *w)
{
    int me = shmem_my_pe();

    w->fetched[kind][pe] += shmem_ctx_long_atomic_fetch_add(ctx, &counter[kind][FADD], 1, pe);
    shmem_ctx_long_atomic_add(ctx, &counter[kind][ADD], 3, pe);
    cswap_increment(ctx, &counter[kind][CAS], pe, w);
    put_and_read_back(ctx, slot[iter % NSIZES][me][w->tid], block_len[iter % NSIZES], pe, iter, w);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t own;

    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &own)) {
        fprintf(stderr, "PE %d thread %d: FAIL shmem_ctx_create(PRIVATE)\n", me, w->tid);
        w->fails++;
        own = SHMEM_CTX_DEFAULT;
    }
    pthread_barrier_wait(&start_line);
    for (int iter = 0; iter < ITERS; iter++)
        for (int step = 0; step < npes; step++) {
            int pe = (me + step) % npes; /* PEs start on different targets */
            one_round(SHMEM_CTX_DEFAULT, CTX_DEFAULT, pe, iter, w);
            one_round(shared_ctx, CTX_SHARED, pe, iter, w);
            one_round(own, CTX_PRIVATE, pe, iter, w);
        }
    shmem_ctx_quiet(own);
    if (own != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(own);
    return NULL;
}

static void check_totals(int npes)
{
    long n = (long)npes * NTHREADS * ITERS;
    long want[NOPS] = {n, 3 * n, n};

    for (int kind = 0; kind < NKINDS; kind++) {
        for (int op = 0; op < NOPS; op++)
            CHECK(counter[kind][op] == want[op], "%s context %s total = %ld, want %ld", kind_name[kind],
                  op_name[op], counter[kind][op], want[op]);
        CHECK(ticket_sum[kind] == n * (n - 1) / 2, "%s context fetch_add tickets sum to %ld, want %ld",
              kind_name[kind], ticket_sum[kind], n * (n - 1) / 2);
    }
}

static void check_slots(int npes)
{
    for (int size = 0; size < NSIZES; size++) {
        int last_iter = (ITERS - 1) - ((ITERS - 1 - size) % NSIZES); /* the last one of this size */
        for (int pe = 0; pe < npes; pe++)
            for (int t = 0; t < NTHREADS; t++)
                for (size_t k = 0; k < block_len[size]; k++)
                    CHECK(slot[size][pe][t][k] == pattern(pe, t, last_iter, (int)k),
                          "slot of %zu longs from PE %d thread %d: element %zu = %#lx, want %#lx", block_len[size],
                          pe, t, k, (unsigned long)slot[size][pe][t][k],
                          (unsigned long)pattern(pe, t, last_iter, (int)k));
    }
}

int main(void)
{
    static struct worker workers[NTHREADS];
    pthread_t tids[NTHREADS];
    int provided = -1, me, npes;

    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "FAIL shmem_init_thread gave %d, want SHMEM_THREAD_MULTIPLE\n", provided);
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "FAIL this test runs on at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    if (shmem_ctx_create(0, &shared_ctx)) {
        fprintf(stderr, "PE %d: FAIL shmem_ctx_create(0)\n", me);
        shmem_global_exit(1);
    }
    pthread_barrier_init(&start_line, NULL, NTHREADS);
    shmem_barrier_all();
    for (int t = 0; t < NTHREADS; t++) {
        workers[t].tid = t;
        pthread_create(&tids[t], NULL, work, &workers[t]);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(tids[t], NULL);
        CHECK(workers[t].fails == 0, "thread %d reported %d failure(s)", t, workers[t].fails);
    }
    shmem_ctx_quiet(shared_ctx);
    shmem_barrier_all();

    /* Each PE hands every target the tickets its threads took there. */
    for (int kind = 0; kind < NKINDS; kind++)
        for (int pe = 0; pe < npes; pe++) {
            long sum = 0;
            for (int t = 0; t < NTHREADS; t++)
                sum += workers[t].fetched[kind][pe];
            shmem_long_atomic_add(&ticket_sum[kind], sum, pe);
        }
    shmem_barrier_all();
    check_totals(npes);
    check_slots(npes);

    shmem_ctx_destroy(shared_ctx);
    pthread_barrier_destroy(&start_line);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
