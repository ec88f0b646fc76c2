/* SPDX-License-Identifier: BSD-3-Clause */
/* PE 0 writes a block of data to every other PE, orders it before a flag
 * with shmem_fence (or completes it with shmem_quiet), then writes the flag.
 * A receiver that sees the flag (shmem_wait_until) must see the whole block.
 * Many rounds, varying block sizes, blocking and nbi puts; receivers ack each
 * round with an AMO so PE 0 never overwrites data still being checked. */
#include "check.h"

#define ROUNDS 150
#define MAXLEN 16384             /* longs: up to 128 KiB per round */

enum { FENCE_PUT, FENCE_NBI, QUIET_PUT, QUIET_NBI, NVARIANTS };
static const char *variant_name[NVARIANTS] = {
    "put+fence", "put_nbi+fence", "put+quiet", "put_nbi+quiet"};

#define MAXPES 16

static long srcs[MAXPES][MAXLEN]; /* PE 0's per-target sources */
static long *data;       /* symmetric heap: MAXLEN longs */
static long *flag;       /* round sequence number, written by PE 0 */
static long *acks;       /* on PE 0: receivers' acks, by AMO */

static long value(long seq, int pe, size_t i) { return seq * 1000003L + pe * 7919L + (long)i; }
static size_t round_len(long seq) { return 1 + (size_t)(seq * 7919) % MAXLEN; }

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes < 2) {
        fprintf(stderr, "needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    data = shmem_calloc(MAXLEN, sizeof(long));
    flag = shmem_calloc(1, sizeof(long));
    acks = shmem_calloc(1, sizeof(long));
    if (!data || !flag || !acks) {
        fprintf(stderr, "PE %d: FAIL shmem_calloc returned NULL\n", me);
        shmem_global_exit(1);
    }
    long seq = 0;

    for (int v = 0; v < NVARIANTS; v++) {
        int nbi = (v == FENCE_NBI || v == QUIET_NBI);
        for (int r = 0; r < ROUNDS; r++) {
            seq++;
            size_t len = round_len(seq);
            if (me == 0) {
                for (int t = 1; t < npes; t++) {
                    long *src = srcs[t % MAXPES];
                    for (size_t i = 0; i < len; i++)
                        src[i] = value(seq, t, i);
                    if (nbi) {
                        /* two pieces, two spellings of a non-blocking put */
                        shmem_long_put_nbi(data, src, len / 2, t);
                        shmem_putmem_nbi(data + len / 2, src + len / 2,
                                         (len - len / 2) * sizeof(long), t);
                    } else {
                        shmem_long_put(data, src, len, t);
                    }
                }
                if (v == FENCE_PUT || v == FENCE_NBI)
                    shmem_fence();
                else
                    shmem_quiet();
                for (int t = 1; t < npes; t++)
                    shmem_long_p(flag, seq, t);
                /* Wait for every receiver to check this round. */
                wait_long_bounded(acks, SHMEM_CMP_GE, seq * (npes - 1), "acks");
                if (nbi)
                    shmem_quiet();   /* nbi sources are reusable only after quiet */
            } else {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
                int bad = 0;
                for (size_t i = 0; i < len; i++)
                    if (data[i] != value(seq, me, i)) {
                        if (bad++ < 3)
                            CHECK(0, "%s round %d: data[%zu] = %ld, want %ld (len %zu)",
                                  variant_name[v], r, i, data[i], value(seq, me, i), len);
                    }
                if (bad > 3)
                    CHECK(0, "%s round %d: %d of %zu elements stale", variant_name[v], r, bad, len);
                shmem_long_atomic_inc(acks, 0);
            }
        }
    }

    shmem_barrier_all();
    if (me == 0)
        CHECK(*acks == seq * (npes - 1), "acks = %ld, want %ld", *acks, seq * (npes - 1));
    else
        CHECK(*flag == seq, "flag = %ld, want %ld", *flag, seq);
    shmem_free(acks);
    shmem_free(flag);
    shmem_free(data);

    int rc = check_finish();
    shmem_finalize();
    return rc;
}
