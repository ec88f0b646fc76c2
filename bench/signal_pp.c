/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/signal_pp.c — put-with-signal ping-pong (OpenSHMEM 1.5), 2 PEs:
 * PE 0 does shmem_putmem_signal to PE 1 and waits on its own signal word
 * with shmem_signal_wait_until; PE 1 waits, then answers the same way.
 * One iteration is one round trip carrying `size` bytes each way.
 * Built with BENCH_HAVE_PUT_SIGNAL when the library declares the routines;
 * otherwise it reports a skip.
 */
#include "common.h"

#include <shmem.h>

#ifdef BENCH_HAVE_PUT_SIGNAL
static char *buf;          /* symmetric */
static uint64_t *sig;      /* symmetric */
static char *loc;
static size_t size;
static uint64_t seq;

static void pe0(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        uint64_t v = ++seq;
        shmem_putmem_signal(buf, loc, size, sig, v, SHMEM_SIGNAL_SET, 1);
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, v);
    }
}

static void pe1(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        uint64_t v = ++seq;
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, v);
        shmem_putmem_signal(buf, loc, size, sig, v, SHMEM_SIGNAL_SET, 0);
    }
}
#endif

int main(int argc, char **argv)
{
    struct bench_args a;
    int me, npes;

    bench_parse_args(argc, argv, &a, 8, 8);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#ifdef BENCH_HAVE_PUT_SIGNAL
    if (npes >= 2) {
        size_t max = bench_max_size(&a);

        buf = shmem_malloc(max);
        sig = shmem_calloc(1, sizeof *sig);
        if (!buf || !sig) {
            fprintf(stderr, "signal_pp: symmetric allocation failed\n");
            shmem_global_exit(1);
        }
        loc = bench_alloc_private(max);
        for (int s = 0; s < a.n_sizes; s++) {
            size = a.sizes[s];
            shmem_barrier_all();
            if (me <= 1) {
                long n = a.quick ? 500 : 2000;
                int batches = a.quick ? 7 : 31;
                bench_batch_fn f = me == 0 ? pe0 : pe1;
                double ns;

                if (size > 65536)
                    n = n / 20 + 1;
                f(NULL, n); /* warm-up */
                ns = bench_time_fixed(f, NULL, n, batches);
                if (me == 0)
                    bench_emit("signal", "put_signal_roundtrip", size, npes, "lat_ns", ns, NULL);
            }
        }
        shmem_barrier_all();
        free(loc);
        shmem_free(sig);
        shmem_free(buf);
    } else if (me == 0) {
        bench_skip("signal", "put_signal_roundtrip", npes, "needs 2 PEs");
    }
#else
    (void)a;
    if (me == 0)
        bench_skip("signal", "put_signal_roundtrip", npes, "library lacks shmem_putmem_signal/shmem_signal_wait_until");
#endif
    shmem_finalize();
    return 0;
}
