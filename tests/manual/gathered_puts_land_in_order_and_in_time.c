/* SPDX-License-Identifier: BSD-3-Clause */
/* Small puts that a network path may gather into one message
 * (docs/design.md, "Gathering"): each PE sends the next PE streams of
 * puts of 1 to 200 bytes (some too large to gather) to places in the heap
 * and in static data, some overwriting bytes an earlier put of the stream
 * wrote; then what follows them must find them applied, in order:
 *   1. a get of the whole buffer (a PE reads back what it wrote);
 *   2. a fence and a put of a flag, then a fence and an atomic increment
 *      of another: the target, seeing each, checks its buffers with plain
 *      loads;
 *   3. puts of one word in a row: the last one wins;
 *   4. puts alternating between two PEs (3 PEs or more), quiet, barrier;
 *   5. quiet, then a flag put from another context (another endpoint,
 *      not ordered with the first): quiet alone must have completed them;
 *   6. a few puts and then no library call at all: the sender sleeps
 *      until the target (waiting for the last put's value) answers; only
 *      the progress thread can send what was gathered.
 * Exact values on every PE. */
#include "check.h"

#include <string.h>

#define BUF 4096
#define STREAM 3000
#define PATIENCE_S 20.0 /* part 6: how long the sender waits, out of the library */

static const size_t sizes[] = {8, 1, 4, 8, 2, 16, 8, 24, 64, 3, 8, 33, 200, 8, 12, 65, 8, 40, 1};
#define NSIZES (sizeof sizes / sizeof *sizes)

static unsigned char gbuf[BUF]; /* static data */
static long flag_put, flag_amo, flag_ctx, same_word, alt_word[2];
static volatile long long tail_seen; /* put by the target; read with plain loads */
static long tail_word;

static unsigned char byte_of(int pe, int round, int k, size_t i)
{
    return (unsigned char)(pe * 31 + round * 101 + k * 7 + (int)i * 13 + 1);
}

/* Put k of a stream: its size and offset in the buffer. Offsets repeat
 * and overlap, so later puts overwrite parts of earlier ones. */
static size_t put_size(int k) { return sizes[(size_t)k % NSIZES]; }
static size_t put_off(int k) { return ((size_t)k * 37) % (BUF - 200); }

/* Stream `round` of PE `pe` into dst (a symmetric buffer at `to`, or the
 * expected image when to < 0). */
static void stream(unsigned char *dst, int to, int pe, int round)
{
    unsigned char src[200];

    for (int k = 0; k < STREAM; k++) {
        size_t n = put_size(k), off = put_off(k);

        for (size_t i = 0; i < n; i++)
            src[i] = byte_of(pe, round, k, i);
        if (to < 0)
            memcpy(dst + off, src, n);
        else if (k % 2)
            shmem_putmem_nbi(dst + off, src, n, to);
        else
            shmem_putmem(dst + off, src, n, to); /* src is reused at once */
    }
}

static int count_diff(const unsigned char *a, const unsigned char *b, size_t n, size_t *first)
{
    int d = 0;

    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] && d++ == 0)
            *first = i;
    return d;
}

static void check_image(const unsigned char *got, const unsigned char *want, const char *what, int pe)
{
    size_t first = 0;
    int d = count_diff(got, want, BUF, &first);

    CHECK(d == 0, "%s (PE %d's puts): %d bytes differ, the first at %zu: %u, expected %u", what, pe, d, first,
          d ? got[first] : 0, d ? want[first] : 0);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    unsigned char *hbuf = shmem_calloc(BUF, 1); /* heap */
    static unsigned char want[BUF], got[BUF];

    if (!hbuf) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    /* 1. A stream into the next PE's heap, read back before any quiet. */
    stream(hbuf, to, me, 0);
    memset(want, 0, BUF);
    stream(want, -1, me, 0);
    shmem_getmem(got, hbuf, BUF, to);
    check_image(got, want, "get of the next PE's heap after the puts", me);

    /* 2. Into static data: fence, flag put; then fence, flag AMO. */
    stream(gbuf, to, me, 1);
    shmem_fence();
    shmem_long_p(&flag_put, 1, to);
    shmem_long_wait_until(&flag_put, SHMEM_CMP_EQ, 1);
    memset(want, 0, BUF);
    stream(want, -1, from, 1);
    check_image(gbuf, want, "static buffer when the flag put came", from);

    stream(hbuf, to, me, 2);
    shmem_fence();
    shmem_long_atomic_inc(&flag_amo, to);
    shmem_long_wait_until(&flag_amo, SHMEM_CMP_EQ, 1);
    memset(want, 0, BUF);
    stream(want, -1, from, 0);
    stream(want, -1, from, 2);
    check_image(hbuf, want, "heap when the flag AMO came", from);

    /* 3. One word, many times: the last put wins. */
    for (int k = 0; k < 100; k++)
        shmem_long_p(&same_word, (long)me * 1000 + k, to);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(same_word == (long)from * 1000 + 99, "last of PE %d's puts to one word: %ld, expected %ld", from,
          same_word, (long)from * 1000 + 99);

    /* 4. Alternating between two PEs. */
    if (npes >= 3) {
        int to2 = (me + 2) % npes;

        for (int k = 0; k < 200; k++) {
            shmem_long_p(&alt_word[0], (long)me * 1000 + k, to);
            shmem_long_p(&alt_word[1], (long)me * 1000 + k, to2);
        }
        shmem_quiet();
        shmem_barrier_all();
        CHECK(alt_word[0] == (long)from * 1000 + 199, "alternating puts from PE %d: %ld, expected %ld", from,
              alt_word[0], (long)from * 1000 + 199);
        int from2 = (me + npes - 2) % npes;
        CHECK(alt_word[1] == (long)from2 * 1000 + 199, "alternating puts from PE %d: %ld, expected %ld", from2,
              alt_word[1], (long)from2 * 1000 + 199);
    }

    /* 5. Quiet, then a flag through another context. */
    {
        shmem_ctx_t ctx;
        int rc = shmem_ctx_create(0, &ctx);

        CHECK(rc == 0, "shmem_ctx_create: %d", rc);
        stream(gbuf, to, me, 3);
        shmem_quiet();
        if (rc == 0) {
            shmem_ctx_long_p(ctx, &flag_ctx, 1, to);
            shmem_ctx_quiet(ctx);
        } else {
            shmem_long_p(&flag_ctx, 1, to);
        }
        shmem_long_wait_until(&flag_ctx, SHMEM_CMP_EQ, 1);
        memset(want, 0, BUF);
        stream(want, -1, from, 1);
        stream(want, -1, from, 3);
        check_image(gbuf, want, "static buffer when the other context's flag came", from);
        shmem_barrier_all();
        if (rc == 0)
            shmem_ctx_destroy(ctx);
    }

    /* 6. A few puts, then the sender stays out of the library. */
    {
        double t0 = check_now();

        for (int k = 1; k <= 3; k++)
            shmem_long_p(&tail_word, (long)me * 10 + k, to);
        if (me % 2 == 0)
            check_sleep_until(&tail_seen, 1, t0, PATIENCE_S);
        wait_long_bounded(&tail_word, SHMEM_CMP_EQ, (long)from * 10 + 3, "the previous PE's last put");
        shmem_longlong_p((long long *)&tail_seen, 1, from);
        if (me % 2 != 0)
            check_sleep_until(&tail_seen, 1, t0, PATIENCE_S);
        CHECK(tail_seen == 1, "PE %d's last puts did not reach PE %d within %.0f s while PE %d made no library "
              "call", me, to, PATIENCE_S, me);
    }
    shmem_barrier_all();

    shmem_free(hbuf);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
