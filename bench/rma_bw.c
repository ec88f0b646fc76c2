/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/rma_bw.c — bandwidth and message rate, PE 0 to PE 1 (2 PEs):
 *   put_bw      blocking shmem_putmem back to back, one quiet per batch
 *   put_nbi_bw  a window of shmem_putmem_nbi, then shmem_quiet
 *   get_bw      blocking shmem_getmem back to back
 *   get_nbi_bw  a window of shmem_getmem_nbi, then shmem_quiet
 *   put_rate / get_rate   8-byte nbi operations per second (window + quiet)
 * Bandwidth is size / (median time per operation), in GB/s (1e9 B/s).
 * --offset B puts the private buffer B bytes into its page, as malloc
 * gives its large blocks (16), where it starts page-aligned otherwise; the
 * rows are then named op@B (get_bw@16).
 * --copies adds memcpy between this PE's own symmetric object and the
 * private buffer, each way (memcpy_put, memcpy_get, timed as put_bw and
 * get_bw): the CPU's copy between the same alignments as the put's and
 * the get's, which some offsets slow (docs/design.md, "The node-local
 * path"); bench/hw_memcpy copies between page-aligned buffers.
 */
#include "common.h"

#include <shmem.h>

#define WINDOW_MAX BENCH_BACK_TO_BACK

static size_t loc_offset; /* --offset */
static int copies;        /* --copies */

static int own_args(int argc, char **argv, int i)
{
    if (!strcmp(argv[i], "--offset") && i + 1 < argc) {
        loc_offset = (size_t)strtoul(argv[i + 1], NULL, 10) % 4096;
        return 2;
    }
    if (!strcmp(argv[i], "--copies")) {
        copies = 1;
        return 1;
    }
    return 0;
}

struct bw {
    char *sym;        /* symmetric, max size */
    char *loc;
    size_t size;
    int window;
    size_t stride;    /* distance between window slots (0: one buffer) */
    int peer;
};

static void put_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n; i++)
        shmem_putmem(b->sym, b->loc, b->size, b->peer);
    shmem_quiet();
}

static void get_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n; i++) {
        shmem_getmem(b->loc, b->sym, b->size, b->peer);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* Not inlined, the size known only at run time: as a put's or get's copy. */
__attribute__((noinline)) static void memcpy_put_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n; i++) {
        memcpy(b->sym, b->loc, b->size);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) static void memcpy_get_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n; i++) {
        memcpy(b->loc, b->sym, b->size);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* One "operation" of an nbi batch is one transfer; the quiet ends a window. */
static void put_nbi_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n;) {
        for (int w = 0; w < b->window && i < n; w++, i++)
            shmem_putmem_nbi(b->sym + (size_t)w * b->stride, b->loc + (size_t)w * b->stride, b->size, b->peer);
        shmem_quiet();
    }
}

static void get_nbi_batch(void *arg, long n)
{
    struct bw *b = arg;
    for (long i = 0; i < n;) {
        for (int w = 0; w < b->window && i < n; w++, i++)
            shmem_getmem_nbi(b->loc + (size_t)w * b->stride, b->sym + (size_t)w * b->stride, b->size, b->peer);
        shmem_quiet();
    }
}

static void row(const char *op, bench_batch_fn f, struct bw *b, const struct bench_args *a, int me, int rate)
{
    shmem_barrier_all();
    if (me == 0) {
        double ns = bench_time_batches(f, b, a->budget_ns, b->window); /* whole windows */
        char extra[64], name[64];

        if (loc_offset) {
            snprintf(name, sizeof name, "%s@%zu", op, loc_offset);
            op = name;
        }

        snprintf(extra, sizeof extra, "\"lat_ns\":%.6g,\"window\":%d", ns, b->window);
        if (rate)
            bench_emit("rma_bw", op, b->size, shmem_n_pes(), "rate_Mops", 1e3 / ns, extra);
        else
            bench_emit("rma_bw", op, b->size, shmem_n_pes(), "bw_GBps", (double)b->size / ns, extra);
    }
    shmem_barrier_all();
}

/* Every slot of a window targets the same buffers: the nbi rows measure
 * issue and completion overlap, not a larger cache footprint, and compare
 * with memcpy measured the same way. */
static void set_window(struct bw *b, size_t size, int window)
{
    b->size = size;
    b->window = window;
    b->stride = 0;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    struct bw b;
    int me, npes;
    size_t max;

    bench_parse_args_own(argc, argv, &a, 8, (size_t)4 << 20, own_args);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            bench_skip("rma_bw", "all", npes, "needs 2 PEs");
        shmem_finalize();
        return 0;
    }
    max = bench_max_size(&a);
    b.sym = shmem_malloc(max);
    if (!b.sym) {
        fprintf(stderr, "rma_bw: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    memset(b.sym, 0, max);
    b.loc = bench_alloc_private(max + loc_offset) + loc_offset;
    b.peer = 1;

    for (int i = 0; i < a.n_sizes; i++) {
        set_window(&b, a.sizes[i], 1);
        row("put_bw", put_batch, &b, &a, me, 0);
        row("get_bw", get_batch, &b, &a, me, 0);
        if (copies) {
            row("memcpy_put", memcpy_put_batch, &b, &a, me, 0);
            row("memcpy_get", memcpy_get_batch, &b, &a, me, 0);
        }
        set_window(&b, a.sizes[i], WINDOW_MAX);
        row("put_nbi_bw", put_nbi_batch, &b, &a, me, 0);
        row("get_nbi_bw", get_nbi_batch, &b, &a, me, 0);
    }
    set_window(&b, 8, WINDOW_MAX);
    row("put_rate", put_nbi_batch, &b, &a, me, 1);
    row("get_rate", get_nbi_batch, &b, &a, me, 1);

    shmem_barrier_all();
    shmem_free(b.sym);
    free(b.loc - loc_offset);
    shmem_finalize();
    return 0;
}
