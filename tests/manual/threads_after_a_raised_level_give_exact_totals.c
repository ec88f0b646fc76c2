/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that starts with shmem_init (SHMEM_THREAD_SINGLE) and raises
 * its thread level with shmem_init_thread(SHMEM_THREAD_MULTIPLE) later must
 * get MULTIPLE and be served at it. On the network path the domain was
 * opened for one thread at a time (Shoal serializes its calls below
 * MULTIPLE: transport/ofi.h), so this is the case where that serialization
 * also has to keep the program's own threads apart. NTHREADS threads per PE
 * take fetch_add tickets, add, and put + quiet + get a block, on the
 * default context and on a private context each, towards every PE. Every
 * total, ticket sum and block is checked exactly on every PE. */
#include "check.h"

#include <pthread.h>

#define NTHREADS 3
#define ITERS 80 /* per thread, per target PE, per context */
#define BLOCK 16 /* longs */
#define MAX_PES 8

enum { CTX_DEFAULT, CTX_PRIVATE, NKINDS };

static long tickets[NKINDS], adds[NKINDS];
static long ticket_sum[NKINDS]; /* the tickets taken here, handed in at the end */
static long slot[MAX_PES][NTHREADS][BLOCK];
static pthread_barrier_t start_line;

struct worker {
    int tid;
    long fetched[NKINDS][MAX_PES];
    int fails;
};

static long pattern(int pe, int tid, int iter, int k)
{
    return ((long)pe << 40) | ((long)tid << 32) | ((long)iter << 8) | k;
}

static void round_on(shmem_ctx_t ctx, int kind, int pe, int iter, struct worker *w)
{
    int me = shmem_my_pe();
    long out[BLOCK], back[BLOCK];

    w->fetched[kind][pe] += shmem_ctx_long_atomic_fetch_add(ctx, &tickets[kind], 1, pe);
    shmem_ctx_long_atomic_add(ctx, &adds[kind], 5, pe);
    for (int k = 0; k < BLOCK; k++)
        out[k] = pattern(me, w->tid, iter, k);
    shmem_ctx_long_put(ctx, slot[me][w->tid], out, BLOCK, pe);
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_get(ctx, back, slot[me][w->tid], BLOCK, pe);
    for (int k = 0; k < BLOCK; k++)
        if (back[k] != out[k]) {
            fprintf(stderr, "PE %d thread %d: FAIL block read back from PE %d: element %d = %#lx, want %#lx\n",
                    me, w->tid, pe, k, (unsigned long)back[k], (unsigned long)out[k]);
            w->fails++;
            return;
        }
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
            int pe = (me + step) % npes;
            round_on(SHMEM_CTX_DEFAULT, CTX_DEFAULT, pe, iter, w);
            round_on(own, CTX_PRIVATE, pe, iter, w);
        }
    shmem_ctx_quiet(own);
    if (own != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(own);
    return NULL;
}

int main(void)
{
    static struct worker workers[NTHREADS];
    pthread_t tids[NTHREADS];
    int provided = -1, me, npes;

    shmem_init();
    shmem_query_thread(&provided);
    if (provided != SHMEM_THREAD_SINGLE) {
        fprintf(stderr, "FAIL shmem_init gave thread level %d, want SHMEM_THREAD_SINGLE\n", provided);
        shmem_global_exit(1);
    }
    /* Traffic at the first level, so that every path is open before the raise. */
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "FAIL this test runs on at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    shmem_long_atomic_add(&adds[CTX_DEFAULT], 0, (me + 1) % npes);
    shmem_barrier_all();

    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "PE %d: FAIL shmem_init_thread after shmem_init gave %d, want SHMEM_THREAD_MULTIPLE\n",
                me, provided);
        shmem_global_exit(1);
    }
    shmem_query_thread(&provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "shmem_query_thread after the raise gives %d", provided);

    pthread_barrier_init(&start_line, NULL, NTHREADS);
    for (int t = 0; t < NTHREADS; t++) {
        workers[t].tid = t;
        pthread_create(&tids[t], NULL, work, &workers[t]);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(tids[t], NULL);
        CHECK(workers[t].fails == 0, "thread %d reported %d failure(s)", t, workers[t].fails);
    }
    shmem_barrier_all();
    for (int kind = 0; kind < NKINDS; kind++)
        for (int pe = 0; pe < npes; pe++) {
            long sum = 0;
            for (int t = 0; t < NTHREADS; t++)
                sum += workers[t].fetched[kind][pe];
            shmem_long_atomic_add(&ticket_sum[kind], sum, pe);
        }
    shmem_barrier_all();

    {
        long n = (long)npes * NTHREADS * ITERS;
        for (int kind = 0; kind < NKINDS; kind++) {
            CHECK(tickets[kind] == n, "context %d: %ld fetch_add tickets taken here, want %ld", kind,
                  tickets[kind], n);
            CHECK(adds[kind] == 5 * n, "context %d: adds total %ld, want %ld", kind, adds[kind], 5 * n);
            CHECK(ticket_sum[kind] == n * (n - 1) / 2, "context %d: tickets sum to %ld, want %ld", kind,
                  ticket_sum[kind], n * (n - 1) / 2);
        }
        for (int pe = 0; pe < npes; pe++)
            for (int t = 0; t < NTHREADS; t++)
                for (int k = 0; k < BLOCK; k++)
                    CHECK(slot[pe][t][k] == pattern(pe, t, ITERS - 1, k),
                          "block of PE %d thread %d: element %d = %#lx, want %#lx", pe, t, k,
                          (unsigned long)slot[pe][t][k], (unsigned long)pattern(pe, t, ITERS - 1, k));
    }

    pthread_barrier_destroy(&start_line);
    int rc = check_finish();
    shmem_finalize(); /* one finalize per initialization */
    shmem_finalize();
    return rc;
}
