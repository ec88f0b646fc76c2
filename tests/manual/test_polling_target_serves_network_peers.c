/* SPDX-License-Identifier: BSD-3-Clause */
/* A PE that waits by calling shmem_test in a loop of its own, and no other
 * library routine, still serves its network peers. The manifest turns the
 * progress thread off (SHMEM_PROGRESS_THREAD=0), so on a manual-progress
 * provider (tcp;ofi_rxm, shm) only the tests themselves can make the
 * target's provider accept the initiator's connection and apply its puts
 * and atomics. Each round PE 0 puts a block to every other PE through a new
 * private context (an endpoint of its own, connecting afresh to the
 * targets), fences, and sets a flag on each; the others wait for the flag
 * with shmem_test alone and then check every element. Over shared memory
 * it passes trivially; on the network path (SHMEM_TRANSPORT=ofi, virtual
 * nodes, two hosts) it timed out before unsatisfied tests drove progress. */
#include "check.h"

#define LEN 1024
#define ROUNDS 20

static int data[LEN];
static long flag;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int src[LEN];

    for (int r = 1; r <= ROUNDS; r++) {
        shmem_barrier_all();
        if (me == 0) {
            shmem_ctx_t ctx;
            CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "round %d: shmem_ctx_create failed", r);
            for (int t = 1; t < npes; t++) {
                for (int i = 0; i < LEN; i++)
                    src[i] = r * 100000 + t * 1000 + i;
                shmem_ctx_int_put(ctx, data, src, LEN, t);
            }
            shmem_ctx_fence(ctx);
            for (int t = 1; t < npes; t++)
                shmem_ctx_long_atomic_set(ctx, &flag, r, t);
            shmem_ctx_quiet(ctx);
            shmem_ctx_destroy(ctx);
        } else {
            /* shmem_test only, until the flag arrives */
            wait_long_bounded(&flag, SHMEM_CMP_EQ, r, "the round's flag (set by PE 0)");
            for (int i = 0; i < LEN; i++)
                if (data[i] != r * 100000 + me * 1000 + i) {
                    CHECK(0, "round %d: data[%d] = %d, want %d", r, i, data[i], r * 100000 + me * 1000 + i);
                    break;
                }
        }
    }

    int rc = check_finish();
    shmem_finalize();
    return rc;
}
