/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * teams_split_and_destroyed_in_a_loop: splitting and destroying teams many
 * times (strided with positive and negative strides, nested, and 2-D) gives
 * every destroyed team's sync block back to the team pool. The manifest
 * shrinks the pool (SHMEM_TEAM_POOL_SIZE) so that a leak would run out of
 * it within a few rounds. Every team is checked every round: its size, this
 * PE's number, the translation of every member to the world, and a sum
 * reduction, a broadcast and an fcollect on it give exact values.
 */
#include "check.h"

enum { ROUNDS = 60, SLOTS = 7 };

struct triplet {
    int start, stride, size; /* in world PE numbers; size 0: no team */
};

static long *red_src, *red_dst, *bc_src, *bc_dst, *fc_src, *fc_dst; /* SLOTS each; fc_dst SLOTS x npes */

static int world_pe_of(struct triplet t, int k)
{
    return t.start + k * t.stride;
}

static int index_in(struct triplet t, int pe)
{
    for (int k = 0; k < t.size; k++)
        if (world_pe_of(t, k) == pe)
            return k;
    return -1;
}

/* The strided splits of round r, all alive at once. */
static void strided_triplets(int r, int npes, struct triplet out[4])
{
    int s = r % npes, odd = (r % 2 < npes) ? r % 2 : 0;

    out[0] = (struct triplet){0, 1, npes};
    out[1] = (struct triplet){npes - 1, -1, npes};
    out[2] = (struct triplet){s, 1, npes - s};
    out[3] = (struct triplet){odd, 2, (npes - odd + 1) / 2};
}

/* Checks `team` against its members `t` and runs three collectives on it,
 * through this round's buffers of `slot`. */
static void check_team(shmem_team_t team, struct triplet t, int slot, int r, const char *what)
{
    int me = shmem_my_pe(), k = index_in(t, me);

    if (k < 0) {
        CHECK(team == SHMEM_TEAM_INVALID, "round %d %s: a non-member got a team", r, what);
        return;
    }
    CHECK(team != SHMEM_TEAM_INVALID, "round %d %s: a member got SHMEM_TEAM_INVALID", r, what);
    if (team == SHMEM_TEAM_INVALID)
        return;
    CHECK(shmem_team_n_pes(team) == t.size, "round %d %s: n_pes %d, want %d", r, what, shmem_team_n_pes(team),
          t.size);
    CHECK(shmem_team_my_pe(team) == k, "round %d %s: my_pe %d, want %d", r, what, shmem_team_my_pe(team), k);
    for (int j = 0; j < t.size; j++) {
        int w = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD);
        CHECK(w == world_pe_of(t, j), "round %d %s: member %d is world PE %d, want %d", r, what, j, w,
              world_pe_of(t, j));
    }

    long want_sum = 0;
    for (int j = 0; j < t.size; j++)
        want_sum += world_pe_of(t, j) + r;
    red_src[slot] = me + r;
    CHECK(shmem_long_sum_reduce(team, &red_dst[slot], &red_src[slot], 1) == 0, "round %d %s: reduce failed", r,
          what);
    CHECK(red_dst[slot] == want_sum, "round %d %s: sum %ld, want %ld", r, what, red_dst[slot], want_sum);

    int root = r % t.size;
    bc_src[slot] = (long)r * 100 + me;
    CHECK(shmem_long_broadcast(team, &bc_dst[slot], &bc_src[slot], 1, root) == 0, "round %d %s: broadcast failed",
          r, what);
    CHECK(bc_dst[slot] == (long)r * 100 + world_pe_of(t, root), "round %d %s: broadcast gave %ld, want %ld", r,
          what, bc_dst[slot], (long)r * 100 + world_pe_of(t, root));

    long *fc = fc_dst + (size_t)slot * (size_t)shmem_n_pes();
    fc_src[slot] = -(long)me - 1;
    CHECK(shmem_long_fcollect(team, fc, &fc_src[slot], 1) == 0, "round %d %s: fcollect failed", r, what);
    for (int j = 0; j < t.size; j++)
        CHECK(fc[j] == -(long)world_pe_of(t, j) - 1, "round %d %s: fcollect[%d] = %ld, want %ld", r, what, j,
              fc[j], -(long)world_pe_of(t, j) - 1);
    CHECK(shmem_team_sync(team) == 0, "round %d %s: team_sync failed", r, what);
}

static void one_round(int r, int me, int npes)
{
    struct triplet tr[4];
    shmem_team_t team[SLOTS];
    int nt = 0;

    strided_triplets(r, npes, tr);
    for (int i = 0; i < 4; i++) {
        team[nt] = SHMEM_TEAM_INVALID;
        int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, tr[i].start, tr[i].stride, tr[i].size, NULL, 0,
                                           &team[nt]);
        CHECK(ret == 0, "round %d: split_strided(%d, %d, %d) returned %d", r, tr[i].start, tr[i].stride,
              tr[i].size, ret);
        check_team(team[nt], tr[i], nt, r, "strided");
        nt++;
    }

    /* Nested: the second half of team 2, split from team 2 itself. */
    struct triplet half = {tr[2].start + tr[2].size / 2, 1, tr[2].size - tr[2].size / 2};
    team[nt] = SHMEM_TEAM_INVALID;
    if (team[2] != SHMEM_TEAM_INVALID) {
        int ret = shmem_team_split_strided(team[2], tr[2].size / 2, 1, half.size, NULL, 0, &team[nt]);
        CHECK(ret == 0, "round %d: nested split returned %d", r, ret);
    }
    check_team(team[nt], half, nt, r, "nested");
    nt++;

    /* 2-D: rows of xrange PEs (the last one may be short) and columns. */
    int xrange = 1 + r % npes, rows = (npes + xrange - 1) / xrange;
    int row = me / xrange, col = me % xrange;
    struct triplet xt = {row * xrange, 1, (row == rows - 1) ? npes - row * xrange : xrange};
    struct triplet yt = {col, xrange, (npes - col + xrange - 1) / xrange};
    team[nt] = team[nt + 1] = SHMEM_TEAM_INVALID;
    int ret = shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &team[nt], NULL, 0, &team[nt + 1]);
    CHECK(ret == 0, "round %d: split_2d(%d) returned %d", r, xrange, ret);
    check_team(team[nt], xt, nt, r, "2-D x");
    check_team(team[nt + 1], yt, nt + 1, r, "2-D y");
    nt += 2;

    /* Children first: the nested team goes before its parent. */
    shmem_team_destroy(team[4]);
    for (int i = 0; i < nt; i++)
        if (i != 4)
            shmem_team_destroy(team[i]);
    shmem_barrier_all(); /* the next round reuses the buffers */
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    red_src = shmem_calloc(SLOTS, sizeof(long));
    red_dst = shmem_calloc(SLOTS, sizeof(long));
    bc_src = shmem_calloc(SLOTS, sizeof(long));
    bc_dst = shmem_calloc(SLOTS, sizeof(long));
    fc_src = shmem_calloc(SLOTS, sizeof(long));
    fc_dst = shmem_calloc((size_t)SLOTS * (size_t)npes, sizeof(long));
    if (!red_src || !red_dst || !bc_src || !bc_dst || !fc_src || !fc_dst) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(2);
    }
    for (int r = 0; r < ROUNDS; r++)
        one_round(r, me, npes);

    shmem_free(fc_dst);
    shmem_free(fc_src);
    shmem_free(bc_dst);
    shmem_free(bc_src);
    shmem_free(red_dst);
    shmem_free(red_src);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
