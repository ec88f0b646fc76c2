/* SPDX-License-Identifier: BSD-3-Clause */
/* invalid_handles_do_what_the_spec_says.c — every routine for which the
 * spec defines the result of SHMEM_CTX_INVALID or SHMEM_TEAM_INVALID does
 * exactly that (no operation, -1, NULL, nonzero with the handle set
 * invalid) instead of aborting. Routines whose spec leaves the invalid
 * handle undefined (RMA, AMOs, collectives, team_sync) are refused with a
 * message; bad_input_is_reported covers those. Run with and without
 * SHMEM_DEBUG, at 1 and 2 PEs.
 */
#include "check.h"

#include <stdint.h>

static long checked;

#define EXPECT(cond, ...)     \
    do {                      \
        checked++;            \
        CHECK(cond, __VA_ARGS__); \
    } while (0)

int main(void)
{
    static int flag;
    int me, npes, pes[1], rc;
    shmem_team_t team = SHMEM_TEAM_WORLD, x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_config_t conf = {0};
    shmem_ctx_session_config_t sconf = {0};

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    pes[0] = (me + 1) % npes;

    /* Ordering routines: no operation. A put before them still completes
     * at the next valid quiet. */
    shmem_int_p(&flag, me + 1, (me + 1) % npes);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, NULL, 0);
    shmem_quiet();
    shmem_barrier_all();
    EXPECT(flag == (me + npes - 1) % npes + 1, "put around the INVALID quiet/fence: flag %d", flag);

    /* Context management. */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, &sconf, 0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    EXPECT(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0, "shmem_ctx_get_team(INVALID) returned 0");
    EXPECT(team == SHMEM_TEAM_INVALID, "shmem_ctx_get_team(INVALID) left team %p", (void *)team);
    EXPECT(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0, "shmem_team_create_ctx(INVALID) returned 0");
    EXPECT(ctx == SHMEM_CTX_INVALID, "shmem_team_create_ctx(INVALID) left ctx %p", (void *)ctx);

    /* Team queries. */
    EXPECT(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "shmem_team_my_pe(INVALID)");
    EXPECT(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "shmem_team_n_pes(INVALID)");
    EXPECT(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &conf) != 0,
           "shmem_team_get_config(INVALID) returned 0");
    EXPECT(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
           "shmem_team_translate_pe(INVALID, 0, WORLD)");
    EXPECT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1,
           "shmem_team_translate_pe(WORLD, 0, INVALID)");
    EXPECT(shmem_team_ptr(SHMEM_TEAM_INVALID, &flag, 0) == NULL, "shmem_team_ptr(INVALID)");

    /* Splits of SHMEM_TEAM_INVALID create nothing. */
    team = SHMEM_TEAM_WORLD;
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &team) != 0,
           "shmem_team_split_strided(INVALID) returned 0");
    EXPECT(team == SHMEM_TEAM_INVALID, "shmem_team_split_strided(INVALID) left new_team %p", (void *)team);
    EXPECT(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0,
           "shmem_team_split_2d(INVALID) returned 0");
    EXPECT(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "shmem_team_split_2d(INVALID) left %p, %p",
           (void *)x, (void *)y);
    shmem_team_destroy(SHMEM_TEAM_INVALID);

    /* Nothing above disturbed the library. */
    shmem_barrier_all();
    EXPECT(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "world size changed");
    rc = check_finish();
    if (rc == 0 && me == 0)
        printf("checked %ld values\n", checked);
    shmem_finalize();
    return rc;
}
