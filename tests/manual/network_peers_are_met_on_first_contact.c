/* SPDX-License-Identifier: BSD-3-Clause */
/* network_peers_are_met_on_first_contact.c — on the network path a PE
 * reads a peer's card (address, keys) when it first reaches that peer,
 * not at init. Every kind of operation may be that first contact, so each
 * PE but PE 0 reaches four peers the start-up barrier did not (at 8 PEs
 * with the dissemination barrier: +1, +2 and +4 are its partners), each
 * first by a different kind of operation:
 *   +3  fetching AMO (fetch-add)
 *   +5  get of a global (the data segment's key)
 *   +6  a 1 KiB put (bounced, or zero-copy) followed by quiet
 *   +7  through a created context: a non-fetching AMO, then a put
 * then every PE checks exact values from all of its senders. PE 0 reaches
 * nobody itself, so under SHMEM_INIT_TIMING=1 it reports at finalize that
 * it met only a few of the 8 PEs: a library that reads every peer's card
 * at init reports 8 (or nothing), and one that forgets the card on some
 * path sends to the wrong address or key, and a value below is wrong. */
#include "check.h"

#include <string.h>

#define BLOCK 1024

static long magic = 0x5eed0001;  /* the same on every PE, read before any barrier */
static long fetched_from_me;     /* fetch-adds received */
static long ctx_added;           /* non-fetching AMOs through a context */
static long ctx_put;             /* put through a context */
static unsigned char block[BLOCK];

int main(void)
{
    int me, n;
    long got_magic = 0, old = -1;
    unsigned char src[BLOCK];

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (n < 8) {
        if (me == 0)
            fprintf(stderr, "needs at least 8 PEs (has %d)\n", n);
        shmem_finalize();
        return 1;
    }
    if (me != 0) {
        shmem_ctx_t ctx;
        int to3 = (me + 3) % n, from5 = (me + 5) % n, to6 = (me + 6) % n, to7 = (me + 7) % n;

        old = shmem_long_atomic_fetch_add(&fetched_from_me, me + 1, to3);
        got_magic = shmem_long_g(&magic, from5);
        for (int i = 0; i < BLOCK; i++)
            src[i] = (unsigned char)(me * 31 + i);
        shmem_putmem(block, src, BLOCK, to6);
        shmem_quiet();
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
            CHECK(0, "shmem_ctx_create failed");
        } else {
            shmem_ctx_long_atomic_add(ctx, &ctx_added, 1000 + me, to7);
            shmem_ctx_long_p(ctx, &ctx_put, 2000 + me, to7);
            shmem_ctx_quiet(ctx);
            shmem_ctx_destroy(ctx);
        }
        CHECK(got_magic == 0x5eed0001, "get from PE %d gave %#lx, expected 0x5eed0001", from5, got_magic);
        /* PE to3's only sender is this PE. */
        CHECK(old == 0, "fetch-add to PE %d returned %ld, expected 0", to3, old);
    }
    shmem_barrier_all();
    {
        int s3 = (me - 3 + n) % n, s6 = (me - 6 + n) % n, s7 = (me - 7 + n) % n, bad = 0;

        CHECK(fetched_from_me == (s3 ? s3 + 1 : 0), "fetch-adds received %ld, expected %d", fetched_from_me,
              s3 ? s3 + 1 : 0);
        for (int i = 0; i < BLOCK; i++)
            bad += block[i] != (s6 ? (unsigned char)(s6 * 31 + i) : 0);
        CHECK(bad == 0, "%d of %d bytes put by PE %d are wrong", bad, BLOCK, s6);
        CHECK(ctx_added == (s7 ? 1000 + s7 : 0), "context AMO gave %ld, expected %d", ctx_added, s7 ? 1000 + s7 : 0);
        CHECK(ctx_put == (s7 ? 2000 + s7 : 0), "context put gave %ld, expected %d", ctx_put, s7 ? 2000 + s7 : 0);
    }
    {
        int rc = check_finish();
        shmem_finalize();
        return rc;
    }
}
