/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mixed_operations_soak: a long, bounded run of mixed operations from every
 * PE — blocking and nbi puts, gets, AMOs, put-with-signal and signal waits,
 * fences, quiets, barriers and collectives — in an order drawn from a
 * pseudo-random generator with a fixed seed. Every PE draws the same
 * schedule, so every PE knows what each peer did: values read during the
 * run are checked as they arrive, and at the end every PE checks its whole
 * memory (each put slot, each AMO word, each signal) exactly.
 */
#include "check.h"

#include <stdint.h>

enum { ITERS = 1200, KINDS = 10 };

enum kind { PUT, PUT_NBI, GET, ADD, FETCH_ADD, XOR, PUT_SIGNAL, FENCE_QUIET, BARRIER, COLLECTIVE };

static long *board;   /* [writer][iter]: what `writer` put here in `iter` (0 if none) */
static long *mail;    /* [writer][iter]: what `writer` sent here with a signal */
static uint64_t *sig; /* [writer]: sum of the signal adds from `writer` */
static long added;    /* ADD and FETCH_ADD land here */
static unsigned long mixed; /* XOR lands here */
static long red_src, red_dst, bc_src, bc_dst;

static uint64_t rng_state;

/* xorshift64*: the same sequence on every PE. */
static uint64_t draw(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

struct step {
    enum kind kind;
    int shift; /* PE p's target in this step is (p + 1 + shift) % npes */
};

static struct step schedule[ITERS];

static void draw_schedule(int npes)
{
    rng_state = 0x5eed0f5a0a1ULL;
    for (int i = 0; i < ITERS; i++) {
        uint64_t x = draw();
        schedule[i] = (struct step){(enum kind)(x % KINDS), (int)((x >> 32) % (uint64_t)npes)};
    }
}

static int target_of(int i, int pe, int npes)
{
    return (pe + 1 + schedule[i].shift) % npes;
}

static long put_value(int i, int pe)
{
    return (long)(i + 1) * 16 + pe + 1; /* never 0 */
}

static long add_value(int i, int pe)
{
    return (long)(i % 7 + 1) * (pe + 1);
}

static unsigned long xor_value(int i, int pe)
{
    return 1UL << ((i * 5 + pe) % 64);
}

static size_t at(int writer, int i)
{
    return (size_t)writer * ITERS + (size_t)i;
}

static int last_synced;       /* every step before this one has completed everywhere */
static uint64_t sig_seen[64]; /* signal sums received so far, per writer (npes <= 64) */

/* A GET reads back, from its target, the latest put of this PE there that a
 * barrier has completed; every PE knows which one that is. */
static void do_get(int i, int me, int npes)
{
    int t = target_of(i, me, npes);

    for (int j = last_synced - 1; j >= 0; j--)
        if ((schedule[j].kind == PUT || schedule[j].kind == PUT_NBI) && target_of(j, me, npes) == t) {
            long v = shmem_long_g(&board[at(me, j)], t);
            CHECK(v == put_value(j, me), "step %d: get of step %d from PE %d gave %ld, want %ld", i, j, t, v,
                  put_value(j, me));
            return;
        }
}

/* Wait for every signal aimed at this PE in this step, then read its data. */
static void receive_signals(int i, int me, int npes)
{
    for (int w = 0; w < npes; w++) {
        if (target_of(i, w, npes) != me)
            continue;
        sig_seen[w] += (uint64_t)i + 1;
        shmem_signal_wait_until(&sig[w], SHMEM_CMP_GE, sig_seen[w]);
        CHECK(mail[at(w, i)] == put_value(i, w), "step %d: mail from PE %d is %ld, want %ld", i, w, mail[at(w, i)],
              put_value(i, w));
    }
}

static void collective(int i, int me, int npes)
{
    int root = (int)((unsigned)i % (unsigned)npes);

    red_src = (long)i * me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
    CHECK(red_dst == (long)i * npes * (npes - 1) / 2, "step %d: sum %ld, want %ld", i, red_dst,
          (long)i * npes * (npes - 1) / 2);
    bc_src = put_value(i, me);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &bc_dst, &bc_src, 1, root);
    CHECK(bc_dst == put_value(i, root), "step %d: broadcast %ld, want %ld", i, bc_dst, put_value(i, root));
}

static void step(int i, int me, int npes)
{
    int t = target_of(i, me, npes);
    long v = put_value(i, me);

    switch (schedule[i].kind) {
    case PUT:
        shmem_long_put(&board[at(me, i)], &v, 1, t);
        break;
    case PUT_NBI: {
        static long nbi_src[ITERS]; /* must outlive the step: completed at the next quiet */
        nbi_src[i] = v;
        shmem_long_put_nbi(&board[at(me, i)], &nbi_src[i], 1, t);
        break;
    }
    case GET:
        do_get(i, me, npes);
        break;
    case ADD:
        shmem_long_atomic_add(&added, add_value(i, me), t);
        break;
    case FETCH_ADD: {
        long old = shmem_long_atomic_fetch_add(&added, add_value(i, me), t);
        CHECK(old >= 0, "step %d: fetch_add returned %ld", i, old);
        break;
    }
    case XOR:
        shmem_ulong_atomic_xor(&mixed, xor_value(i, me), t);
        break;
    case PUT_SIGNAL:
        shmem_long_put_signal(&mail[at(me, i)], &v, 1, &sig[me], (uint64_t)i + 1, SHMEM_SIGNAL_ADD, t);
        receive_signals(i, me, npes);
        break;
    case FENCE_QUIET:
        if (i % 2)
            shmem_fence();
        else
            shmem_quiet();
        break;
    case BARRIER:
        shmem_barrier_all();
        last_synced = i;
        break;
    case COLLECTIVE:
        collective(i, me, npes);
        break;
    }
}

/* Replays the schedule for PE `me` and checks its memory. */
static void check_final_state(int me, int npes)
{
    long want_added = 0;
    unsigned long want_mixed = 0;

    for (int i = 0; i < ITERS; i++)
        for (int w = 0; w < npes; w++) {
            int here = target_of(i, w, npes) == me;
            enum kind k = schedule[i].kind;
            long want_board = here && (k == PUT || k == PUT_NBI) ? put_value(i, w) : 0;
            long want_mail = here && k == PUT_SIGNAL ? put_value(i, w) : 0;
            CHECK(board[at(w, i)] == want_board, "board[%d][%d] = %ld, want %ld", w, i, board[at(w, i)],
                  want_board);
            CHECK(mail[at(w, i)] == want_mail, "mail[%d][%d] = %ld, want %ld", w, i, mail[at(w, i)], want_mail);
            if (here && (k == ADD || k == FETCH_ADD))
                want_added += add_value(i, w);
            if (here && k == XOR)
                want_mixed ^= xor_value(i, w);
        }
    CHECK(added == want_added, "added = %ld, want %ld", added, want_added);
    CHECK(mixed == want_mixed, "mixed = 0x%lx, want 0x%lx", mixed, want_mixed);
    for (int w = 0; w < npes; w++)
        CHECK(sig[w] == sig_seen[w], "signal from PE %d = %llu, want %llu", w, (unsigned long long)sig[w],
              (unsigned long long)sig_seen[w]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    if (npes > 64) {
        if (me == 0)
            fprintf(stderr, "mixed_operations_soak: at most 64 PEs\n");
        shmem_finalize();
        return 1;
    }
    board = shmem_calloc((size_t)npes * ITERS, sizeof(long));
    mail = shmem_calloc((size_t)npes * ITERS, sizeof(long));
    sig = shmem_calloc((size_t)npes, sizeof(uint64_t));
    if (!board || !mail || !sig) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(2);
    }
    draw_schedule(npes);
    shmem_barrier_all();
    for (int i = 0; i < ITERS; i++)
        step(i, me, npes);
    shmem_barrier_all();
    /* AMO results are read through the library: on the network path the
     * provider, not this CPU, applied them. */
    added = shmem_long_atomic_fetch(&added, me);
    mixed = shmem_ulong_atomic_fetch(&mixed, me);
    check_final_state(me, npes);

    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(mail);
    shmem_free(board);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
