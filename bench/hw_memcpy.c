/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/hw_memcpy.c — the bandwidth bound: single-core memcpy between two
 * private, pre-touched buffers, at each size, measured the way the RMA
 * benchmarks measure (same buffers every time, median over batches).
 * Not an OpenSHMEM program; run directly on one core.
 */
#include "common.h"

struct copy {
    char *dst, *src;
    size_t size;
};

/* Not inlined, and the size arrives at run time: a library's put can do
 * no better than a call to libc's memcpy with an unknown length. */
__attribute__((noinline)) static void copy_batch(void *arg, long n)
{
    struct copy *c = arg;
    for (long i = 0; i < n; i++) {
        memcpy(c->dst, c->src, c->size);
        __asm__ __volatile__("" ::: "memory"); /* keep every copy */
    }
}

int main(int argc, char **argv)
{
    struct bench_args a;
    struct copy c;
    size_t max;

    bench_parse_args(argc, argv, &a, 1, (size_t)4 << 20);
    max = bench_max_size(&a);
    c.dst = bench_alloc_private(max);
    c.src = bench_alloc_private(max);
    for (int i = 0; i < a.n_sizes; i++) {
        double ns;
        char extra[64];

        c.size = a.sizes[i];
        ns = bench_time_local(copy_batch, &c, a.budget_ns);
        snprintf(extra, sizeof extra, "\"bw_GBps\":%.6g", (double)c.size / ns);
        bench_emit("hw", "memcpy", c.size, 1, "lat_ns", ns, extra);
    }
    free(c.dst);
    free(c.src);
    return 0;
}
