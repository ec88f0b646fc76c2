/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/gather_kernels.c — two of bale's kernels as a user writes them:
 * element at a time, and gathered by hand into buckets per target PE (the
 * "exstack" style), to show what aggregating small messages is worth on a
 * library and path. Standard OpenSHMEM 1.4 only.
 *
 *   histogram    every PE adds 1 to U random slots of random other PEs'
 *                counts (bench/patterns.h's streams, HIST_SLOTS per PE)
 *     element    shmem_long_atomic_add per update, then shmem_barrier_all
 *     gathered   slot indices bucketed per target PE; a full bucket (or
 *                the end) goes with shmem_putmem into this PE's inbox on
 *                the target, which applies it to its counts after a barrier
 *   permutation  a random permutation of the global index space (U
 *                indices per PE, in blocks): every PE writes the value of
 *                each of its indices to the index's image
 *     element    shmem_long_p per value, then shmem_barrier_all
 *     gathered   (slot, value) pairs bucketed and sent as above
 *
 * Rows "histogram_element", "histogram_gathered", "permutation_element",
 * "permutation_gathered", three figures each: "ms", the whole kernel's
 * wall time on the slowest PE (from a barrier to the kernel's last
 * barrier); "rate_Mops", U updates over that time (per PE);
 * "agg_rate_Mops", npes × U over it (the job). The inputs (targets,
 * values) are computed before the clock starts, as bale's kernels take
 * their index arrays. Before the rows every PE adds, puts and putmems once
 * to every PE, untimed, so no row times first contacts.
 *
 * Every run is checked on every PE: the histogram's counts slot by slot
 * against the counts recomputed from every PE's stream, the permutation's
 * every slot against the value of its preimage. A failed check prints a
 * skip line with the reason instead of the row, and the program exits 1.
 *
 *   gather_kernels [--kernel histogram|permutation|all]
 *                  [--version element|gathered|all] [--updates U] [--quick]
 *
 * --updates: per PE (default 200000; --quick 20000). The histogram needs 2
 * PEs or more (its updates go to other PEs only).
 */
#include "patterns.h"

#include <shmem.h>

#define HIST_SLOTS (1 << 14)  /* per PE: 128 KiB, cache-resident, so rows time the paths */
#define BUCKET 1024           /* entries per target PE before a bucket is sent */
#define MORE (1L << 40)       /* in an inbox's count: the source has more rounds */

static long updates = 200000;
static int updates_given;
static int want_kernel = 3, want_version = 3; /* bit 0: histogram, element; bit 1: permutation, gathered */
static int wrong;

/* ---- the 1.4 reductions (Open MPI 4.1's OSHMEM has no team ones) ---- */

static long red_in, red_out, red_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE], red_sync[SHMEM_REDUCE_SYNC_SIZE];

static long reduce(long mine, int max)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        red_sync[i] = SHMEM_SYNC_VALUE;
    red_in = mine;
    shmem_barrier_all(); /* nobody is still in the last reduction on red_sync */
    if (max)
        shmem_long_max_to_all(&red_out, &red_in, 1, 0, 0, shmem_n_pes(), red_wrk, red_sync);
    else
        shmem_long_sum_to_all(&red_out, &red_in, 1, 0, 0, shmem_n_pes(), red_wrk, red_sync);
    return red_out;
}

static void *sym_alloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);

    if (!p) {
        fprintf(stderr, "gather_kernels: symmetric allocation of %zu bytes failed\n", bytes);
        shmem_global_exit(1);
    }
    memset(p, 0, bytes); /* no page faults in a timing */
    return p;
}

/* ---- the exchange of the gathered versions ---- */

/*
 * Rounds: each PE fills its buckets until one is full (or its updates
 * end), puts every bucket into its own block of the target's inbox with
 * the count beside it, and all meet in a barrier (it completes every put);
 * then each applies what its inbox holds. Two inboxes, used in turn, so
 * one barrier a round suffices: a PE writes into an inbox again two rounds
 * later, after the barrier that every PE enters only once it has applied
 * that inbox. Every source sends every target a count every round, with
 * MORE while it has updates left, so all PEs see the same flags and stop
 * after the same round.
 */
struct exchange {
    int me, npes, words;      /* words: longs per entry */
    long *inbox[2];           /* symmetric: npes blocks of BUCKET entries, one per source */
    long *count[2];           /* symmetric: npes, entries (| MORE) from each source */
    int parity;               /* the inbox of this round */
    long *out;                /* private: npes buckets of BUCKET entries */
    long *fill;               /* private: npes */
};

static void exchange_init(struct exchange *x, int words)
{
    x->me = shmem_my_pe();
    x->npes = shmem_n_pes();
    x->words = words;
    x->parity = 0;
    for (int p = 0; p < 2; p++) {
        x->inbox[p] = sym_alloc((size_t)x->npes * BUCKET * words * sizeof(long));
        x->count[p] = sym_alloc((size_t)x->npes * sizeof(long));
    }
    x->out = bench_alloc_private((size_t)x->npes * BUCKET * words * sizeof(long));
    x->fill = bench_alloc_private((size_t)x->npes * sizeof(long));
    memset(x->fill, 0, (size_t)x->npes * sizeof(long));
}

/* Send every bucket, meet; returns whether any source has more rounds.
 * The received entries are in x->inbox[x->parity] until the next call. */
static int exchange_round(struct exchange *x, int more)
{
    long *in, *count = x->count[x->parity];
    size_t block = (size_t)BUCKET * x->words;
    int any = 0;

    in = x->inbox[x->parity];
    for (int i = 1; i <= x->npes; i++) {
        int pe = (x->me + i) % x->npes; /* each from its right neighbour: not all at PE 0 at once */
        long n = x->fill[pe];

        if (n)
            shmem_putmem(in + (size_t)x->me * block, x->out + (size_t)pe * block,
                         (size_t)n * x->words * sizeof(long), pe);
        shmem_long_p(&count[x->me], n | (more ? MORE : 0), pe);
        x->fill[pe] = 0;
    }
    shmem_barrier_all();
    for (int s = 0; s < x->npes; s++)
        any |= (count[s] & MORE) != 0;
    return any;
}

/* ---- histogram ---- */

struct histogram {
    long *counts;             /* symmetric, HIST_SLOTS */
    int *pe;                  /* private, updates: the target PE of each update */
    long *slot;               /* private, updates: its slot */
    long *expected;           /* private, HIST_SLOTS: the check's counts */
    struct exchange x;
};

static void histogram_element(struct histogram *h)
{
    for (long k = 0; k < updates; k++)
        shmem_long_atomic_add(&h->counts[h->slot[k]], 1, h->pe[k]);
    shmem_barrier_all();
}

static void histogram_gathered(struct histogram *h)
{
    struct exchange *x = &h->x;
    long k = 0;
    int more;

    do {
        while (k < updates) {
            int pe = h->pe[k];
            long n = x->fill[pe]++;

            x->out[(size_t)pe * BUCKET + n] = h->slot[k++];
            if (n + 1 == BUCKET)
                break;
        }
        more = exchange_round(x, k < updates);
        for (int s = 0; s < x->npes; s++) {
            const long *e = x->inbox[x->parity] + (size_t)s * BUCKET;
            long n = x->count[x->parity][s] & ~MORE;

            for (long j = 0; j < n; j++)
                h->counts[e[j]]++;
        }
        x->parity ^= 1;
    } while (more);
}

/* Every PE's counts against every PE's stream replayed. */
static long histogram_check(const struct histogram *h)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long bad = 0;

    memset(h->expected, 0, HIST_SLOTS * sizeof(long));
    for (int w = 0; w < npes; w++)
        for (long k = 0; k < updates; k++) {
            struct pattern_target t = pattern_target(w, npes, HIST_SLOTS - 1, (uint64_t)k);
            if (t.pe == me)
                h->expected[t.slot]++;
        }
    for (long i = 0; i < HIST_SLOTS; i++)
        if (h->counts[i] != h->expected[i] && bad++ == 0)
            fprintf(stderr, "gather_kernels: PE %d: histogram slot %ld holds %ld, expected %ld\n", me, i,
                    h->counts[i], h->expected[i]);
    return bad;
}

/* ---- permutation ---- */

/*
 * The permutation: a 4-round Feistel network on the smallest even power of
 * two of indices that holds all npes × U, walked until it lands below
 * npes × U (a bijection of [0, npes × U), whose inverse the check runs the
 * same way). Any PE computes any index's image without the others.
 */
struct feistel {
    uint64_t n;               /* the indices */
    int half;                 /* bits of each half */
    uint64_t mask;            /* (1 << half) - 1 */
};

static uint64_t feistel_f(uint64_t x, int round)
{
    return pattern_mix(x * 0x9e3779b97f4a7c15ULL + (uint64_t)round * 0xd1b54a32d192ed03ULL + 57);
}

static uint64_t feistel_step(const struct feistel *f, uint64_t x, int inverse)
{
    uint64_t l = x >> f->half, r = x & f->mask;

    for (int i = 0; i < 4; i++) {
        uint64_t t;
        if (!inverse) { /* (l, r) -> (r, l ^ F(r)) */
            t = l ^ (feistel_f(r, i) & f->mask);
            l = r;
            r = t;
        } else {        /* (l, r) -> (r ^ F(l), l), rounds backwards */
            t = r ^ (feistel_f(l, 3 - i) & f->mask);
            r = l;
            l = t;
        }
    }
    return (l << f->half) | r;
}

static uint64_t feistel_apply(const struct feistel *f, uint64_t x, int inverse)
{
    do
        x = feistel_step(f, x, inverse);
    while (x >= f->n);
    return x;
}

struct permutation {
    long *dst;                /* symmetric, updates */
    int *pe;                  /* private, updates: where each of this PE's values goes */
    long *slot;
    long *value;              /* private, updates: the values */
    struct feistel f;
    struct exchange x;
};

/* What global index g's value is: its origin, never 0 (the slots' start). */
static long permutation_value(uint64_t g)
{
    return (long)pattern_put_value((int)(g / (uint64_t)updates), g % (uint64_t)updates);
}

static void permutation_element(struct permutation *p)
{
    for (long i = 0; i < updates; i++)
        shmem_long_p(&p->dst[p->slot[i]], p->value[i], p->pe[i]);
    shmem_barrier_all();
}

static void permutation_gathered(struct permutation *p)
{
    struct exchange *x = &p->x;
    long i = 0;
    int more;

    do {
        while (i < updates) {
            int pe = p->pe[i];
            long n = x->fill[pe]++;
            long *e = x->out + ((size_t)pe * BUCKET + n) * 2;

            e[0] = p->slot[i];
            e[1] = p->value[i++];
            if (n + 1 == BUCKET)
                break;
        }
        more = exchange_round(x, i < updates);
        for (int s = 0; s < x->npes; s++) {
            const long *e = x->inbox[x->parity] + (size_t)s * BUCKET * 2;
            long n = x->count[x->parity][s] & ~MORE;

            for (long j = 0; j < n; j++)
                p->dst[e[2 * j]] = e[2 * j + 1];
        }
        x->parity ^= 1;
    } while (more);
}

/* Every slot of this PE against the value of its preimage. */
static long permutation_check(const struct permutation *p)
{
    int me = shmem_my_pe();
    long bad = 0;

    for (long s = 0; s < updates; s++) {
        uint64_t from = feistel_apply(&p->f, (uint64_t)me * (uint64_t)updates + (uint64_t)s, 1);
        long want = permutation_value(from);

        if (p->dst[s] != want && bad++ == 0)
            fprintf(stderr, "gather_kernels: PE %d: permutation slot %ld holds %#lx, expected %#lx (index %llu)\n",
                    me, s, (unsigned long)p->dst[s], (unsigned long)want, (unsigned long long)from);
    }
    return bad;
}

/* ---- the rows ---- */

/* Time one run of a kernel from a barrier, check it, print its row. A
 * first, untimed run (then `reset`) warms what the timed one uses: a
 * library's buffers and connections are first touched there, and without
 * it the first row of a launch took 2 to 3 times as long as when it came
 * second (Shoal on tcp, 4 PEs: permutation 43-47 ms first, 18 second). */
static void row(const char *op, void (*kernel)(void *), void *arg, long (*check)(const void *),
                void (*reset)(void *), const char *extra)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long ns, bad;
    double t0;

    shmem_barrier_all();
    kernel(arg);
    shmem_barrier_all();
    reset(arg);
    shmem_barrier_all();
    t0 = bench_now_ns();
    kernel(arg);
    ns = reduce((long)(bench_now_ns() - t0), 1);
    bad = reduce(check(arg), 0);
    if (me != 0)
        return;
    if (bad) {
        fprintf(stderr, "gather_kernels: %s (%d PEs): %ld slots wrong\n", op, npes, bad);
        printf("{\"bench\":\"gather_kernels\",\"op\":\"%s\",\"size\":8,\"npes\":%d,\"skip\":\"wrong results: %ld "
               "slots wrong\"}\n", op, npes, bad);
        fflush(stdout);
        wrong = 1;
        return;
    }
    bench_emit("gather_kernels", op, 8, npes, "ms", (double)ns / 1e6, extra);
    bench_emit("gather_kernels", op, 8, npes, "rate_Mops", (double)updates * 1e3 / (double)ns, extra);
    bench_emit("gather_kernels", op, 8, npes, "agg_rate_Mops", (double)updates * npes * 1e3 / (double)ns, extra);
}

/* Every PE knows whether any failed (rows print on PE 0 only). */
static void share_wrong(void)
{
    wrong = reduce(wrong, 1) != 0;
}

static void hist_element_fn(void *h) { histogram_element(h); }
static void hist_gathered_fn(void *h) { histogram_gathered(h); }
static long hist_check_fn(const void *h) { return histogram_check(h); }
static void hist_reset_fn(void *h) { memset(((struct histogram *)h)->counts, 0, HIST_SLOTS * sizeof(long)); }
static void perm_element_fn(void *p) { permutation_element(p); }
static void perm_gathered_fn(void *p) { permutation_gathered(p); }
static long perm_check_fn(const void *p) { return permutation_check(p); }
static void perm_reset_fn(void *p) { memset(((struct permutation *)p)->dst, 0, (size_t)updates * sizeof(long)); }

static void run_histogram(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    struct histogram h;
    char extra[160];

    if (npes < 2) {
        if (me == 0)
            bench_skip("gather_kernels", "histogram", npes, "needs 2 PEs or more");
        return;
    }
    h.counts = sym_alloc(HIST_SLOTS * sizeof(long));
    h.pe = bench_alloc_private((size_t)updates * sizeof(int));
    h.slot = bench_alloc_private((size_t)updates * sizeof(long));
    h.expected = bench_alloc_private(HIST_SLOTS * sizeof(long));
    for (long k = 0; k < updates; k++) {
        struct pattern_target t = pattern_target(me, npes, HIST_SLOTS - 1, (uint64_t)k);
        h.pe[k] = t.pe;
        h.slot[k] = (long)t.slot;
    }
    exchange_init(&h.x, 1);
    if (want_version & 1) {
        snprintf(extra, sizeof extra, "\"updates\":%ld,\"slots\":%d", updates, HIST_SLOTS);
        row("histogram_element", hist_element_fn, &h, hist_check_fn, hist_reset_fn, extra);
        shmem_barrier_all(); /* every check has read its counts */
        memset(h.counts, 0, HIST_SLOTS * sizeof(long));
    }
    if (want_version & 2) {
        snprintf(extra, sizeof extra, "\"updates\":%ld,\"slots\":%d,\"bucket\":%d", updates, HIST_SLOTS, BUCKET);
        row("histogram_gathered", hist_gathered_fn, &h, hist_check_fn, hist_reset_fn, extra);
    }
    shmem_barrier_all();
}

static void run_permutation(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    struct permutation p;
    char extra[160];

    p.f.n = (uint64_t)npes * (uint64_t)updates;
    p.f.half = 1;
    while ((p.f.n - 1) >> (2 * p.f.half))
        p.f.half++;
    p.f.mask = (1ULL << p.f.half) - 1;
    p.dst = sym_alloc((size_t)updates * sizeof(long));
    p.pe = bench_alloc_private((size_t)updates * sizeof(int));
    p.slot = bench_alloc_private((size_t)updates * sizeof(long));
    p.value = bench_alloc_private((size_t)updates * sizeof(long));
    for (long i = 0; i < updates; i++) {
        uint64_t g = (uint64_t)me * (uint64_t)updates + (uint64_t)i;
        uint64_t to = feistel_apply(&p.f, g, 0);

        p.pe[i] = (int)(to / (uint64_t)updates);
        p.slot[i] = (long)(to % (uint64_t)updates);
        p.value[i] = permutation_value(g);
    }
    exchange_init(&p.x, 2);
    if (want_version & 1) {
        snprintf(extra, sizeof extra, "\"updates\":%ld", updates);
        row("permutation_element", perm_element_fn, &p, perm_check_fn, perm_reset_fn, extra);
        shmem_barrier_all(); /* every check has read its slots */
        memset(p.dst, 0, (size_t)updates * sizeof(long));
    }
    if (want_version & 2) {
        snprintf(extra, sizeof extra, "\"updates\":%ld,\"bucket\":%d", updates, BUCKET);
        row("permutation_gathered", perm_gathered_fn, &p, perm_check_fn, perm_reset_fn, extra);
    }
    shmem_barrier_all();
}

/* One add, one put and one putmem to every PE, untimed: connections,
 * mappings and first touches happen here, not in a row. */
static void first_contacts(void)
{
    static long word, last, block[BUCKET];
    int me = shmem_my_pe(), npes = shmem_n_pes();

    for (int i = 1; i <= npes; i++) {
        int pe = (me + i) % npes;
        shmem_long_atomic_add(&word, 1, pe);
        shmem_long_p(&last, me, pe);
        shmem_putmem(block, block, sizeof block, pe);
    }
    shmem_barrier_all();
    if (word != npes) {
        fprintf(stderr, "gather_kernels: PE %d: %ld first adds arrived, expected %d\n", me, word, npes);
        wrong = 1;
    }
}

static int pick(const char *v, const char *a, const char *b)
{
    return !strcmp(v, a) ? 1 : !strcmp(v, b) ? 2 : !strcmp(v, "all") ? 3 : 0;
}

static int own_option(int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        return 0;
    if (!strcmp(argv[i], "--kernel")) {
        want_kernel = pick(argv[i + 1], "histogram", "permutation");
    } else if (!strcmp(argv[i], "--version")) {
        want_version = pick(argv[i + 1], "element", "gathered");
    } else if (!strcmp(argv[i], "--updates")) {
        updates = atol(argv[i + 1]);
        updates_given = 1;
    } else {
        return 0;
    }
    if (!want_kernel || !want_version || updates < 1 || updates >= (1L << 32)) {
        fprintf(stderr, "gather_kernels: bad value %s %s\n", argv[i], argv[i + 1]);
        exit(2);
    }
    return 2;
}

int main(int argc, char **argv)
{
    struct bench_args a;

    bench_parse_args_own(argc, argv, &a, 8, 8, own_option);
    if (a.quick && !updates_given)
        updates = 20000;
    shmem_init();
    first_contacts();
    if (want_kernel & 1)
        run_histogram();
    if (want_kernel & 2)
        run_permutation();
    share_wrong();
    shmem_finalize();
    return wrong;
}
