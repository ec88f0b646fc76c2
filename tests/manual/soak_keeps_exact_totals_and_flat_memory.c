/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * soak_keeps_exact_totals_and_flat_memory [SECONDS [NAME]]: every PE mixes, for
 * SECONDS (default 60) in rounds, random adds and puts to random PEs (the
 * operations the library may gather: docs/design.md, "Gathering"), gets of
 * what it put, fetch-adds, heap allocations written by a neighbour and
 * freed later, team splits with a reduction on each team, and a world
 * reduction. Each round checks its values exactly on every PE. Memory is
 * read at a tenth of the run and at the end: nothing more may be reserved
 * by then, nor touched beyond what was reserved (SLACK_KIB of allocator
 * and page-granularity noise allowed), so nothing may grow with the
 * length of the run.
 */
#include "check.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define OPS 4000      /* per PE and round */
#define SLOTS 512
#define MAXPE 16
#define LIVE 4        /* heap allocations alive at once */
#define SLACK_KIB 1024

static long counts[SLOTS];
static long cells[MAXPE][OPS];
static long want_total; /* adds this PE made, all rounds */
static long stop_flag, stop_now, red_in, red_out, team_in, team_out;
static long adds_to_me; /* adds every PE made to this PE, all rounds */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* KiB of one field of /proc/self/status (VmRSS, VmData, RssAnon), or -1. */
static long status_kib(const char *field)
{
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') {
            v = atol(line + n + 1);
            break;
        }
    fclose(f);
    return v;
}

struct mem {
    long rss, data, anon;
};

static struct mem mem_now(void)
{
    struct mem m = {status_kib("VmRSS"), status_kib("VmData"), status_kib("RssAnon")};
    return m;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 60.0, start;
    struct mem early = {-1, -1, -1}, end;
    long rounds = 0, live_n[LIVE] = {0};
    long *live[LIVE] = {0};
    int me, npes;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXPE) {
        if (me == 0)
            printf("OK\n");
        shmem_finalize();
        return 0;
    }
    shmem_barrier_all();
    start = check_now();
    for (;;) {
        long round = rounds++;
        /* Operations: the same stream replayed by every PE for the checks. */
        for (long k = 0; k < OPS; k++) {
            uint64_t r = mix(((uint64_t)me << 48) ^ ((uint64_t)round << 20) ^ (uint64_t)k);
            int pe = (int)((r >> 8) % (uint64_t)npes), slot = (int)((r >> 20) % SLOTS);

            switch (r % 8) {
            case 0: {
                long v = ((long)round << 32) + ((long)me << 24) + k + 1;
                shmem_long_p(&cells[me][k], v, pe);
                if (k % 5 == 0)
                    CHECK(shmem_long_g(&cells[me][k], pe) == v, "round %ld: read back a put to PE %d", round, pe);
                break;
            }
            case 1:
                (void)shmem_long_atomic_fetch_add(&counts[slot], 1, pe);
                want_total++;
                break;
            default:
                shmem_long_atomic_add(&counts[slot], 1, pe);
                want_total++;
            }
        }
        /* An allocation of a size every PE draws alike, written by the left
         * neighbour; the oldest of LIVE is freed. */
        {
            int i = (int)(round % LIVE);
            long n = 1 + (long)(mix((uint64_t)round) % 4096), left = (me + npes - 1) % npes;
            long *buf;

            shmem_free(live[i]);
            buf = shmem_malloc((size_t)n * sizeof(long));
            CHECK(buf != NULL, "round %ld: shmem_malloc(%ld longs) failed", round, n);
            if (!buf)
                break;
            live[i] = buf;
            live_n[i] = n;
            shmem_barrier_all();
            for (long j = 0; j < n; j += 61)
                shmem_long_p(&buf[j], round * 7 + j + me, (me + 1) % npes);
            shmem_barrier_all();
            for (long j = 0; j < n; j += 61)
                CHECK(buf[j] == round * 7 + j + left, "round %ld: allocation word %ld holds %ld", round, j, buf[j]);
        }
        /* A team of every other PE (or all, by round), a reduction on it. */
        {
            shmem_team_t t = SHMEM_TEAM_INVALID;
            int stride = npes > 1 && round % 2 ? 2 : 1, size = (npes + stride - 1) / stride;

            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, stride, size, NULL, 0, &t);
            if (t != SHMEM_TEAM_INVALID) {
                long want = 0;
                team_in = me + round;
                shmem_long_sum_reduce(t, &team_out, &team_in, 1);
                for (int p = 0; p < npes; p += stride)
                    want += p + round;
                CHECK(team_out == want, "round %ld: team sum %ld, want %ld", round, team_out, want);
                shmem_team_destroy(t);
            }
        }
        /* Totals so far, and whether to stop (PE 0's clock decides). */
        shmem_barrier_all();
        {
            long mine = 0;
            for (int s = 0; s < SLOTS; s++)
                mine += counts[s];
            for (int p = 0; p < npes; p++)
                for (long k = 0; k < OPS; k++) {
                    uint64_t r = mix(((uint64_t)p << 48) ^ ((uint64_t)round << 20) ^ (uint64_t)k);
                    if (r % 8 != 0 && (int)((r >> 8) % (uint64_t)npes) == me)
                        adds_to_me++;
                }
            CHECK(mine == adds_to_me, "round %ld: counters sum to %ld, want %ld", round, mine, adds_to_me);
            red_in = mine;
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &red_out, &red_in, 1);
            team_in = want_total;
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &team_out, &team_in, 1);
            CHECK(red_out == team_out, "round %ld: %ld adds landed, %ld made", round, red_out, team_out);
        }
        if (early.rss < 0 && check_now() - start >= seconds / 10)
            early = mem_now();
        stop_flag = check_now() - start >= seconds || check_fails;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &stop_now, &stop_flag, 1, 0);
        if (stop_now)
            break;
    }
    for (int i = 0; i < LIVE; i++)
        shmem_free(live[i]);
    end = mem_now();
    /* Nothing reserved after the first tenth (malloc's heap, mappings),
     * and RSS grown only by touching what was reserved then: libfabric's
     * tcp maps its pools at start-up (39 MB here) and touches them in
     * turn, saturating only after some 10^5 operations. Node-local runs
     * reserve nothing there, so RSS itself must stay flat. */
    CHECK(early.rss > 0 && end.data <= early.data + SLACK_KIB, "memory reserved grew from %ld KiB at a tenth of the run "
          "to %ld KiB", early.data, end.data);
    CHECK(end.rss <= early.rss + (early.data - early.anon) + SLACK_KIB,
          "RSS grew from %ld KiB at a tenth of the run to %ld KiB, beyond the %ld KiB reserved then", early.rss, end.rss,
          early.data - early.anon);
    if (me == 0)
        fprintf(stderr, "soak: %ld rounds of %d operations a PE in %.1f s; PE 0: RSS %ld -> %ld KiB, reserved %ld -> %ld KiB\n",
                rounds, OPS, check_now() - start, early.rss, end.rss, early.data, end.data);
    (void)live_n;
    return check_finish();
}
