/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team_destroy_with_live_contexts: destroying a team also destroys the
 * shareable contexts created on it that the program did not destroy
 * (OpenSHMEM 1.5, shmem_team_destroy). Work on those contexts was completed
 * first, a private context (which only its thread may destroy) can still be
 * destroyed after its team, the world keeps working, and doing this many
 * times does not run out of team or context resources.
 */
#include <shmem.h>

#include "check.h"

enum { ROUNDS = 200, CTXS = 3 };

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *cell = shmem_calloc((size_t)npes, sizeof(long));

    for (int r = 1; r <= ROUNDS; r++) {
        shmem_team_t team = SHMEM_TEAM_INVALID;
        shmem_ctx_t ctx[CTXS];
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) == 0,
              "round %d: split failed", r);
        for (int c = 0; c < CTXS; c++) {
            ctx[c] = SHMEM_CTX_INVALID;
            CHECK(shmem_team_create_ctx(team, c == 0 ? SHMEM_CTX_PRIVATE : 0, &ctx[c]) == 0,
                  "round %d: team_create_ctx %d failed", r, c);
        }
        /* Every PE writes its round number into its slot on its right neighbour. */
        int right = (me + 1) % npes;
        for (int c = 0; c < CTXS; c++) {
            if (ctx[c] == SHMEM_CTX_INVALID)
                continue;
            /* Different contexts are not ordered with each other: complete each. */
            shmem_ctx_long_p(ctx[c], &cell[me], (long)r * 10 + c, right);
            shmem_ctx_quiet(ctx[c]);
        }
        /* The contexts are still alive: the team takes the shareable ones
         * with it; the private one is the program's to destroy. */
        shmem_team_destroy(team);
        shmem_ctx_destroy(ctx[0]);
        shmem_barrier_all();
        int left = (me + npes - 1) % npes;
        CHECK(cell[left] == (long)r * 10 + CTXS - 1, "round %d: cell from PE %d is %ld", r, left, cell[left]);
        shmem_barrier_all();
    }
    /* The world and its default context still work: every PE adds 1 to
     * PE 0's cell[0] (which only PE 0 itself wrote above, when alone). */
    shmem_long_atomic_add(&cell[0], 1, 0);
    shmem_barrier_all();
    long want = (npes == 1 ? (long)ROUNDS * 10 + CTXS - 1 : 0) + npes;
    if (me == 0)
        CHECK(cell[0] == want, "world after destroys: cell[0] is %ld, want %ld", cell[0], want);
    shmem_free(cell);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
