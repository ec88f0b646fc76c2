/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gathered_updates_give_exact_totals [default|threads|contexts]: every PE
 * updates random PEs one element at a time, as a program written without
 * aggregation does (docs/design.md, "Gathering"):
 *   - adds of 1 to 3 to random counters, some of them fetching (the
 *     provider's atomics on words that gathered adds also reach);
 *   - 8-byte puts and atomic sets to cells only this PE writes, each once
 *     a round, and now and then a get of a cell it put to earlier in the
 *     round (a PE reads back what it wrote, gathered or not);
 *   - ORs of this PE's bit into a word of the target.
 * threads: SHMEM_THREAD_MULTIPLE, two threads share the stream.
 * contexts: every other operation goes through a created context, whose
 * AMOs are the provider's, on the same counters as the gathered ones.
 * After each round (quiet, barrier) every PE checks its own memory
 * against all PEs' streams, replayed: exact totals on every PE.
 */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define ROUNDS 3
#define OPS 12000   /* per PE and round */
#define SLOTS 256   /* counters per PE */
#define CELLS OPS   /* put cells per writer: op k of a round writes cell k at most */
#define MAXPE 8

static long counts[SLOTS];
static long cells[MAXPE][CELLS]; /* [writer][k] */
static unsigned long bits[SLOTS];

enum { MODE_DEFAULT, MODE_THREADS, MODE_CONTEXTS };
static int mode, me, npes;
static shmem_ctx_t ctx2;
static long fetch_bad;

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct op {
    int kind; /* 0..5 add, 6 fetch-add, 7 put, 8 set, 9 or */
    int pe, slot;
    long val;
};

static struct op op_of(int pe, int round, long k)
{
    uint64_t r = mix(((uint64_t)pe << 40) ^ ((uint64_t)round << 32) ^ (uint64_t)k ^ 0x5eedULL);
    struct op o;

    o.kind = (int)(r % 10);
    o.pe = (int)((r >> 8) % (uint64_t)npes);
    o.slot = (int)((r >> 16) % SLOTS);
    o.val = 1 + (long)((r >> 32) % 3);
    return o;
}

static long cell_value(int writer, int round, long k)
{
    return ((long)round << 40) + ((long)writer << 32) + k + 1;
}

static void run(int round, long from, long to, int stride)
{
    for (long k = from; k < to; k += stride) {
        struct op o = op_of(me, round, k);
        shmem_ctx_t c = mode == MODE_CONTEXTS && (k & 1) ? ctx2 : SHMEM_CTX_DEFAULT;

        switch (o.kind) {
        case 6: {
            long old = shmem_ctx_long_atomic_fetch_add(c, &counts[o.slot], o.val, o.pe);
            if (old < 0)
                __atomic_fetch_add(&fetch_bad, 1, __ATOMIC_RELAXED);
            break;
        }
        case 7:
            shmem_ctx_long_p(c, &cells[me][k], cell_value(me, round, k), o.pe);
            if (k % 7 == 0) {
                long got = shmem_ctx_long_g(c, &cells[me][k], o.pe);
                CHECK(got == cell_value(me, round, k), "round %d op %ld: read back %ld from PE %d, put %ld", round,
                      k, got, o.pe, cell_value(me, round, k));
            }
            break;
        case 8:
            shmem_ctx_long_atomic_set(c, &cells[me][k], cell_value(me, round, k), o.pe);
            break;
        case 9:
            shmem_ctx_ulong_atomic_or(c, &bits[o.slot], 1UL << me, o.pe);
            break;
        default:
            shmem_ctx_long_atomic_add(c, &counts[o.slot], o.val, o.pe);
        }
    }
}

struct half {
    int round, which;
};

static void *thread_main(void *arg)
{
    struct half *h = arg;
    run(h->round, h->which, OPS, 2);
    return NULL;
}

static void check_round(int round)
{
    static long want_counts[SLOTS];
    static unsigned long want_bits[SLOTS];

    for (int p = 0; p < npes; p++)
        for (long k = 0; k < OPS; k++) {
            struct op o = op_of(p, round, k);
            if (o.pe != me)
                continue;
            if (o.kind <= 6)
                want_counts[o.slot] += o.val;
            else if (o.kind == 9)
                want_bits[o.slot] |= 1UL << p;
            else
                CHECK(cells[p][k] == cell_value(p, round, k), "round %d: cell [%d][%ld] holds %ld, want %ld", round,
                      p, k, cells[p][k], cell_value(p, round, k));
        }
    for (int s = 0; s < SLOTS; s++) {
        CHECK(counts[s] == want_counts[s], "round %d: counter %d holds %ld, want %ld", round, s, counts[s],
              want_counts[s]);
        CHECK(bits[s] == want_bits[s], "round %d: bits %d hold %#lx, want %#lx", round, s, bits[s], want_bits[s]);
    }
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "default";
    int provided = 0;

    mode = !strcmp(m, "threads") ? MODE_THREADS : !strcmp(m, "contexts") ? MODE_CONTEXTS : MODE_DEFAULT;
    if (mode == MODE_THREADS) {
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        if (provided != SHMEM_THREAD_MULTIPLE) {
            fprintf(stderr, "SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
            shmem_global_exit(1);
        }
    } else
        shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXPE) {
        if (me == 0)
            printf("OK\n"); /* the cells are sized for up to MAXPE writers */
        shmem_finalize();
        return 0;
    }
    if (mode == MODE_CONTEXTS && shmem_ctx_create(0, &ctx2) != 0) {
        fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    for (int round = 0; round < ROUNDS; round++) {
        if (mode == MODE_THREADS) {
            pthread_t t;
            struct half a = {round, 0}, b = {round, 1};
            pthread_create(&t, NULL, thread_main, &b);
            thread_main(&a);
            pthread_join(t, NULL);
        } else
            run(round, 0, OPS, 1);
        if (mode == MODE_CONTEXTS)
            shmem_ctx_quiet(ctx2);
        shmem_quiet();
        shmem_barrier_all();
        check_round(round);
        shmem_barrier_all(); /* checked before the next round adds more */
    }
    CHECK(fetch_bad == 0, "%ld fetch-adds returned a negative count", fetch_bad);
    if (mode == MODE_CONTEXTS)
        shmem_ctx_destroy(ctx2);
    return check_finish();
}
