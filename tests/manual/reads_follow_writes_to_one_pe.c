/* SPDX-License-Identifier: BSD-3-Clause */
/* A PE reads back at once what it wrote to another PE, with no quiet in
 * between, and writes to one PE land in issue order (docs/design.md,
 * "Completion, ordering, contexts"). On libfabric's shm a get and a put
 * above the bounce size bypass the target's command queue (cross-memory
 * attach), so each must first complete what is still queued there: small
 * posted puts, posted and tracked adds. Every PE writes only to its right
 * neighbour's block and reads only that block, so every value is exact.
 *
 * Each round, on the neighbour's block:
 *   1. a stream of 1- to 64-byte puts (the first tracked, the rest posted),
 *      then one get of the whole stretch;
 *   2. a stream of adds to one word, then shmem_long_g of it; a lone add
 *      (tracked) then shmem_long_g;
 *   3. small puts, fence, a large put over them, fence, a small put over
 *      part of it: the block ends as the issue order says (blocking and
 *      nbi large puts);
 *   4. a 1-byte put then a 1-byte get of it (the smallest split target);
 *   5. adds on a context of its own then a get on that context; adds then
 *      a non-blocking get, completed by quiet.
 * In a job of several (virtual) nodes half the neighbours are node-local:
 * their gets are copies from mapped memory while their adds go through
 * libfabric, so a get must first complete the adds in flight. */
#include <string.h>

#include "check.h"

#define ROUNDS 40
#define SMALLS 48
#define BIG (64 * 1024)        /* bytes: above every bounce size */
#define ADDS 200

static unsigned char *block; /* symmetric: BIG bytes, written by the left neighbour */
static long *word;           /* symmetric: one word, added to by the left neighbour */
static unsigned char *big_src;
static unsigned char got[BIG];

static unsigned char byte_of(int round, int pass, size_t i)
{
    return (unsigned char)(round * 131 + pass * 17 + (int)(i % 251) + 1);
}

static void small_puts_then_get(int right, int round)
{
    unsigned char src[64];
    size_t at = 0;

    for (int k = 0; k < SMALLS; k++) {
        size_t n = 1 + (size_t)(k * 13 + round) % 64;
        for (size_t i = 0; i < n; i++)
            src[i] = byte_of(round, 1, at + i);
        shmem_putmem(block + at, src, n, right);
        at += n;
    }
    memset(got, 0, at);
    shmem_getmem(got, block, at, right);
    for (size_t i = 0; i < at; i++)
        if (got[i] != byte_of(round, 1, i)) {
            CHECK(got[i] == byte_of(round, 1, i), "round %d: byte %zu of %zu read back after small puts is %u, not %u",
                  round, i, at, got[i], byte_of(round, 1, i));
            break;
        }
}

static void adds_then_g(int right, int round)
{
    long before = shmem_long_g(word, right);

    for (int k = 0; k < ADDS; k++)
        shmem_long_atomic_add(word, k + 1, right);
    long after = shmem_long_g(word, right);
    CHECK(after == before + (long)ADDS * (ADDS + 1) / 2, "round %d: word after %d adds is %ld, not %ld", round, ADDS,
          after, before + (long)ADDS * (ADDS + 1) / 2);
    shmem_quiet(); /* the next add is the first since a flush: tracked */
    shmem_long_atomic_add(word, 7, right);
    long lone = shmem_long_g(word, right);
    CHECK(lone == after + 7, "round %d: word after a lone add is %ld, not %ld", round, lone, after + 7);
}

static void large_put_over_small_ones(int right, int round, int nbi)
{
    unsigned char src[64];

    for (int k = 0; k < 16; k++) {
        for (size_t i = 0; i < 64; i++)
            src[i] = byte_of(round, 2, (size_t)k * 64 + i);
        shmem_putmem(block + (size_t)k * 4096, src, 64, right);
    }
    shmem_fence();
    for (size_t i = 0; i < BIG; i++)
        big_src[i] = byte_of(round, 3, i);
    if (nbi)
        shmem_putmem_nbi(block, big_src, BIG, right);
    else
        shmem_putmem(block, big_src, BIG, right);
    shmem_fence();
    for (size_t i = 0; i < 64; i++)
        src[i] = byte_of(round, 4, i);
    shmem_putmem(block + 1000, src, 64, right);
    memset(got, 0, BIG);
    shmem_getmem(got, block, BIG, right);
    for (size_t i = 0; i < BIG; i++) {
        unsigned char want = i >= 1000 && i < 1064 ? byte_of(round, 4, i - 1000) : byte_of(round, 3, i);
        if (got[i] != want) {
            CHECK(got[i] == want, "round %d (%s large put): byte %zu is %u, not %u (issue order lost)", round,
                  nbi ? "nbi" : "blocking", i, got[i], want);
            break;
        }
    }
}

static void one_byte_put_then_get(int right, int round)
{
    unsigned char b = byte_of(round, 5, 0), back = 0;

    shmem_putmem(block + BIG - 1, &b, 1, right);
    shmem_getmem(&back, block + BIG - 1, 1, right);
    CHECK(back == b, "round %d: the last byte put is read back as %u, not %u", round, back, b);
}

static void adds_on_a_context_then_get(shmem_ctx_t ctx, int right, int round)
{
    long before = shmem_ctx_long_g(ctx, word, right), nb = 0;

    for (int k = 0; k < ADDS; k++)
        shmem_ctx_long_atomic_add(ctx, word, 1, right);
    long after = shmem_ctx_long_g(ctx, word, right);
    CHECK(after == before + ADDS, "round %d: word after %d adds on a context is %ld, not %ld", round, ADDS, after,
          before + ADDS);
    for (int k = 0; k < ADDS; k++)
        shmem_long_atomic_add(word, 1, right);
    shmem_getmem_nbi(&nb, word, sizeof nb, right);
    shmem_quiet();
    CHECK(nb == after + ADDS, "round %d: non-blocking get after %d adds reads %ld, not %ld", round, ADDS, nb,
          after + ADDS);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;

    block = shmem_calloc(BIG, 1);
    word = shmem_calloc(1, sizeof(long));
    big_src = malloc(BIG);
    if (!block || !word || !big_src) {
        fprintf(stderr, "PE %d: FAIL allocation\n", me);
        shmem_global_exit(1);
    }
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
        fprintf(stderr, "PE %d: FAIL shmem_ctx_create\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    for (int round = 0; round < ROUNDS; round++) {
        small_puts_then_get(right, round);
        adds_then_g(right, round);
        large_put_over_small_ones(right, round, round % 2);
        one_byte_put_then_get(right, round);
        adds_on_a_context_then_get(ctx, right, round);
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    /* What the left neighbour left here, checked with plain loads. */
    long want = (long)ROUNDS * ((long)ADDS * (ADDS + 1) / 2 + 7 + 2 * ADDS);
    CHECK(*word == want, "word holds %ld after every round, not %ld", *word, want);
    int r = ROUNDS - 1;
    CHECK(block[0] == byte_of(r, 3, 0) && block[1000] == byte_of(r, 4, 0) && block[BIG - 1] == byte_of(r, 5, 0),
          "block ends as %u %u %u, not %u %u %u", block[0], block[1000], block[BIG - 1], byte_of(r, 3, 0),
          byte_of(r, 4, 0), byte_of(r, 5, 0));
    int status = check_finish();
    free(big_src);
    shmem_finalize();
    return status;
}
