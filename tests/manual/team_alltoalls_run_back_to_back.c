/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team_alltoalls_run_back_to_back: 1.5 team alltoall and alltoalls called
 * many times in a row on the world team and on a team of every other PE,
 * with one dest and one source reused by every call and no other
 * synchronisation. On the network path a team alltoall pushes its blocks
 * and closes with a barrier that must also complete them (a fence before
 * the direct barrier's signals, or a quiet): every PE checks every
 * element of every call as soon as the call returns, then overwrites its
 * source at once (a blocking call leaves it free).
 */
#include "check.h"

enum { SST = 2, DST = 3 };
/* Blocks of 32 KiB, past every provider's eager size: the data goes
 * apart from the small messages that signal (rendezvous on tcp). */
enum { BIG_CALLS = 30, BIG = 4096 };

static long value(int call, int from, int to, int i)
{
    return 1000000L * call + 10000L * from + 100L * to + i + 1;
}

/* `strided`: alltoalls with SST and DST, else alltoall (of N or, with
 * `big`, BIG elements a block). */
static void run(shmem_team_t team, const char *name, int strided, int big, long *dest, long *src)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
    size_t sst = strided ? SST : 1, dst = strided ? DST : 1;
    const int N = big ? BIG : 3, CALLS = big ? BIG_CALLS : 300;

    for (size_t i = 0; i < (size_t)n * N * dst; i++)
        dest[i] = -1;
    shmem_team_sync(team);
    for (int c = 0; c < CALLS; c++) {
        for (int k = 0; k < n; k++)
            for (int i = 0; i < N; i++)
                src[((size_t)k * N + (size_t)i) * sst] = value(c, me, k, i);
        int rc = strided ? shmem_long_alltoalls(team, dest, src, (ptrdiff_t)dst, (ptrdiff_t)sst, N)
                         : shmem_long_alltoall(team, dest, src, N);
        CHECK(rc == 0, "%s call %d returned %d", name, c, rc);
        for (int k = 0; k < n; k++)
            for (int i = 0; i < N; i++) {
                long got = dest[((size_t)k * N + (size_t)i) * dst];
                CHECK(got == value(c, k, me, i), "%s call %d: element %d from team PE %d is %ld, not %ld", name,
                      c, i, k, got, value(c, k, me, i));
            }
        for (size_t i = 0; i < (size_t)n * N * sst; i++)
            src[i] = -2; /* the next call must not see these */
    }
    shmem_team_sync(team);
}

int main(void)
{
    shmem_team_t pairs = SHMEM_TEAM_INVALID;
    long *dest, *src;
    int npes;

    shmem_init();
    npes = shmem_n_pes();
    dest = shmem_malloc(sizeof(long) * BIG * DST * (size_t)npes);
    src = shmem_malloc(sizeof(long) * BIG * SST * (size_t)npes);
    CHECK(dest && src, "shmem_malloc failed");
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &pairs);
    run(SHMEM_TEAM_WORLD, "alltoall on the world team", 0, 0, dest, src);
    run(SHMEM_TEAM_WORLD, "alltoalls on the world team", 1, 0, dest, src);
    run(SHMEM_TEAM_WORLD, "alltoall of 32 KiB blocks on the world team", 0, 1, dest, src);
    if (pairs != SHMEM_TEAM_INVALID) {
        run(pairs, "alltoall on every other PE", 0, 0, dest, src);
        run(pairs, "alltoalls on every other PE", 1, 0, dest, src);
        run(pairs, "alltoall of 32 KiB blocks on every other PE", 0, 1, dest, src);
        shmem_team_destroy(pairs);
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dest);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
