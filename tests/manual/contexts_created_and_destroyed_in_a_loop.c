/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * contexts_created_and_destroyed_in_a_loop: creating and destroying
 * contexts round after round, three alive at once and with every option mix
 * that allows stores, never runs out of context resources (on the network
 * path each one opens and closes an endpoint), and every context carries
 * its puts, nbi puts and AMOs to the right place before it goes: each
 * round's values are checked on every PE, and the AMO totals at the end.
 * shmem_ctx_destroy alone (no quiet) must complete the nbi puts.
 */
#include "check.h"

/* Few rounds: on the network path every context opens an endpoint of its
 * own, which costs libfabric tens of milliseconds. */
enum { ROUNDS = 10, ALIVE = 3, LEN = 32 };

static long slot[ALIVE][LEN];     /* from the left neighbour, per live context */
static long tail[ALIVE][LEN];     /* the same by nbi put, completed by destroy */
static long added;                /* shmem_ctx_long_atomic_add target */
static long tickets;              /* fetch_inc target, on PE 0 */

static const long store_options[] = {
    0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
};
#define NOPTIONS ((int)(sizeof store_options / sizeof store_options[0]))

static long value(int round, int pe, int c, int i)
{
    return (long)round * 1000000L + pe * 10000L + c * 100L + i;
}

/* Which PE receives PE `pe`'s add in `round` from its context `c`. */
static int add_target(int round, int pe, int c, int npes)
{
    return (pe + round + c) % npes;
}

static void one_round(int r, int me, int npes)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx[ALIVE];
    long src[LEN], nbi_src[ALIVE][LEN];

    for (int c = 0; c < ALIVE; c++) {
        long opt = store_options[(r + c) % NOPTIONS];
        ctx[c] = SHMEM_CTX_INVALID;
        int ret = shmem_ctx_create(opt, &ctx[c]);
        CHECK(ret == 0 && ctx[c] != SHMEM_CTX_INVALID, "round %d: shmem_ctx_create(%ld) returned %d", r,
              opt, ret);
    }
    for (int c = 0; c < ALIVE; c++) {
        if (ctx[c] == SHMEM_CTX_INVALID)
            continue;
        for (int i = 0; i < LEN; i++) {
            src[i] = value(r, me, c, i);
            nbi_src[c][i] = -value(r, me, c, i);
        }
        shmem_ctx_long_put(ctx[c], slot[c], src, LEN, right);
        shmem_ctx_long_put_nbi(ctx[c], tail[c], nbi_src[c], LEN, right);
        shmem_ctx_long_atomic_add(ctx[c], &added, me + 1, add_target(r, me, c, npes));
        long t = shmem_ctx_long_atomic_fetch_inc(ctx[c], &tickets, 0);
        CHECK(t >= 0 && t < (long)ROUNDS * ALIVE * npes, "round %d: ticket %ld out of range", r, t);
    }
    /* Destroy in an order that changes every round: the survivors keep
     * their endpoints while others go. */
    for (int k = 0; k < ALIVE; k++) {
        int c = (r % 2) ? k : ALIVE - 1 - k;
        shmem_ctx_destroy(ctx[c]);
    }
    shmem_barrier_all();
    for (int c = 0; c < ALIVE; c++)
        for (int i = 0; i < LEN; i++) {
            if (slot[c][i] != value(r, left, c, i) || tail[c][i] != -value(r, left, c, i)) {
                CHECK(0, "round %d ctx %d [%d]: put %ld nbi %ld, want %ld and %ld", r, c, i, slot[c][i],
                      tail[c][i], value(r, left, c, i), -value(r, left, c, i));
                break;
            }
        }
    shmem_barrier_all(); /* the next round overwrites slot and tail */
}

static long expected_added(int me, int npes)
{
    long sum = 0;

    for (int r = 0; r < ROUNDS; r++)
        for (int pe = 0; pe < npes; pe++)
            for (int c = 0; c < ALIVE; c++)
                if (add_target(r, pe, c, npes) == me)
                    sum += pe + 1;
    return sum;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    for (int r = 0; r < ROUNDS; r++)
        one_round(r, me, npes);
    long want = expected_added(me, npes);
    long got = shmem_long_atomic_fetch(&added, me);
    CHECK(got == want, "added = %ld, want %ld", got, want);
    if (me == 0) {
        long t = shmem_long_atomic_fetch(&tickets, 0);
        CHECK(t == (long)ROUNDS * ALIVE * npes, "tickets = %ld, want %ld", t, (long)ROUNDS * ALIVE * npes);
    }
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
