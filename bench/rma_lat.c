/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/rma_lat.c — latency of the RMA routines, PE 0 to PE 1 (2 PEs):
 *   p         shmem_long_p + shmem_quiet (a completed 8-byte put)
 *   g         shmem_long_g
 *   putmem    shmem_putmem + shmem_quiet, at each size
 *   getmem    shmem_getmem, at each size
 *   p_roundtrip  PE 0 puts a value to PE 1, which waits for it and puts it
 *             back; PE 0 waits: one full round trip (to compare with the
 *             cache-line round trip)
 * PE 1 takes no part in the one-sided rows (it waits in a barrier).
 */
#include "common.h"

#include <shmem.h>

struct rma {
    char *sym;      /* symmetric buffer, max size */
    char *loc;      /* private buffer, max size */
    long *word;     /* symmetric long */
    size_t size;
    int peer;
};

static volatile long sink;

static void p_batch(void *arg, long n)
{
    struct rma *r = arg;
    for (long i = 0; i < n; i++) {
        shmem_long_p(r->word, i, r->peer);
        shmem_quiet();
    }
}

static void g_batch(void *arg, long n)
{
    struct rma *r = arg;
    long s = 0;
    for (long i = 0; i < n; i++)
        s += shmem_long_g(r->word, r->peer);
    sink = s;
}

static void putmem_batch(void *arg, long n)
{
    struct rma *r = arg;
    for (long i = 0; i < n; i++) {
        shmem_putmem(r->sym, r->loc, r->size, r->peer);
        shmem_quiet();
    }
}

static void getmem_batch(void *arg, long n)
{
    struct rma *r = arg;
    for (long i = 0; i < n; i++) {
        shmem_getmem(r->loc, r->sym, r->size, r->peer);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* Ping-pong over two symmetric words: ping lives on PE 1, pong on PE 0. */
static long *ping, *pong;
static long seq;

static void roundtrip_pe0(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        long v = ++seq;
        shmem_long_p(ping, v, 1);
        shmem_long_wait_until(pong, SHMEM_CMP_EQ, v);
    }
}

static void roundtrip_pe1(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        long v = ++seq;
        shmem_long_wait_until(ping, SHMEM_CMP_EQ, v);
        shmem_long_p(pong, v, 0);
    }
}

static void one_sided(const char *op, bench_batch_fn f, struct rma *r, const struct bench_args *a, int me)
{
    shmem_barrier_all();
    if (me == 0) {
        double ns = bench_time_local(f, r, a->budget_ns);
        bench_emit("rma_lat", op, r->size, shmem_n_pes(), "lat_ns", ns, NULL);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    struct bench_args a;
    struct rma r;
    int me, npes;
    size_t max;

    bench_parse_args(argc, argv, &a, 1, (size_t)4 << 20);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            bench_skip("rma_lat", "all", npes, "needs 2 PEs");
        shmem_finalize();
        return 0;
    }
    max = bench_max_size(&a);
    r.sym = shmem_malloc(max);
    r.word = shmem_malloc(sizeof(long));
    ping = shmem_calloc(1, sizeof(long));
    pong = shmem_calloc(1, sizeof(long));
    if (!r.sym || !r.word || !ping || !pong) {
        fprintf(stderr, "rma_lat: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    memset(r.sym, 0, max);
    *r.word = 0;
    r.loc = bench_alloc_private(max);
    r.peer = 1;

    r.size = sizeof(long);
    one_sided("p", p_batch, &r, &a, me);
    one_sided("g", g_batch, &r, &a, me);
    for (int i = 0; i < a.n_sizes; i++) {
        r.size = a.sizes[i];
        one_sided("putmem", putmem_batch, &r, &a, me);
        one_sided("getmem", getmem_batch, &r, &a, me);
    }

    /* Round trip: both PEs run the same fixed counts. */
    shmem_barrier_all();
    if (me <= 1) {
        long n = a.quick ? 500 : 2000;
        int batches = a.quick ? 7 : 31;
        bench_batch_fn f = me == 0 ? roundtrip_pe0 : roundtrip_pe1;

        f(NULL, n); /* warm-up */
        double ns = bench_time_fixed(f, NULL, n, batches);
        if (me == 0)
            bench_emit("rma_lat", "p_roundtrip", sizeof(long), npes, "lat_ns", ns, NULL);
    }
    shmem_barrier_all();
    shmem_free(pong);
    shmem_free(ping);
    shmem_free(r.word);
    shmem_free(r.sym);
    free(r.loc);
    shmem_finalize();
    return 0;
}
