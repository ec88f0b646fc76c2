/* SPDX-License-Identifier: BSD-3-Clause */
/* profile_counts_every_call_exactly.c — SHMEM_PROFILE counts what the
 * program called, under the names it called, with the bytes each call
 * moved, on every PE, and reports it at finalize.
 *
 * PE p makes known calls: 10(p+1) puts of 100 ints to its right
 * neighbour (the generic shmem_put, so the inline fast path must be
 * routed through the library), 7 shmem_p of a long, 5(p+1) fetching adds
 * and 2 on a context, one reduction of one long, one alltoall of 2 ints
 * per PE (bytes: 8 x team size), 3 barriers, malloc, free, quiet, the
 * queries, init and finalize, and 4 more puts between shmem_pcontrol(0)
 * and shmem_pcontrol(1), which pause the counting (the first pcontrol is
 * counted, the puts and the second are not): nothing else (no check.h,
 * whose helpers call the library).
 *
 * argv[1]:
 *   table      PE 0 prints the table on stderr (the manifest pins the
 *              totals and min / median / max of each row), then "OK".
 *   csv        SHMEM_PROFILE=<a file of PE 0's> (set here, before init);
 *              after shmem_finalize PE 0 reads the CSV and checks every
 *              PE's row of every routine exactly, and that time is
 *              reported; prints "OK".
 *   csv-exit   the same, but main returns without shmem_finalize: the
 *              implicit finalize at exit reports (PE 0 checks in an
 *              atexit handler, which runs after it), and there is no
 *              shmem_finalize row.
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPUT_INTS 100

static long counter, reduce_src, reduce_dst, flag_word;
static int all_src[2 * 64], all_dst[2 * 64];

static char csv_path[4096];
static int me = -1, npes, with_finalize = 1, fails;

#define FAIL(...)                                      \
    do {                                               \
        fprintf(stderr, "PE %d: FAIL: ", me);          \
        fprintf(stderr, __VA_ARGS__);                  \
        fputc('\n', stderr);                           \
        fails++;                                       \
    } while (0)

struct expect {
    const char *routine;
    long calls, bytes; /* for PE p: calls(p), bytes(p) below */
};

/* What PE p called: calls and bytes per routine. */
static int expected(int p, int n, struct expect *e)
{
    int k = 0;

    e[k++] = (struct expect){"shmem_init", 1, 0};
    e[k++] = (struct expect){"shmem_my_pe", 1, 0};
    e[k++] = (struct expect){"shmem_n_pes", 1, 0};
    e[k++] = (struct expect){"shmem_malloc", 1, 0};
    e[k++] = (struct expect){"shmem_barrier_all", 3, 0};
    e[k++] = (struct expect){"shmem_int_put", 10L * (p + 1), 10L * (p + 1) * NPUT_INTS * (long)sizeof(int)};
    e[k++] = (struct expect){"shmem_long_p", 7, 7 * (long)sizeof(long)};
    e[k++] = (struct expect){"shmem_long_atomic_fetch_add", 5L * (p + 1), 5L * (p + 1) * (long)sizeof(long)};
    e[k++] = (struct expect){"shmem_ctx_long_atomic_fetch_add", 2, 2 * (long)sizeof(long)};
    e[k++] = (struct expect){"shmem_long_sum_reduce", 1, (long)sizeof(long)};
    e[k++] = (struct expect){"shmem_int_alltoall", 1, 2L * (long)sizeof(int) * n};
    e[k++] = (struct expect){"shmem_quiet", 1, 0};
    e[k++] = (struct expect){"shmem_free", 1, 0};
    e[k++] = (struct expect){"shmem_pcontrol", 1, 0};
    if (with_finalize)
        e[k++] = (struct expect){"shmem_finalize", 1, 0};
    return k;
}

/* PE 0, after the report: every PE's rows, exactly. */
static void check_csv(void)
{
    struct expect e[32];
    int n_exp, seen[64][32] = {{0}}, max_pe = -1;
    long rows = 0;
    uint64_t time_of_pe[64] = {0};
    char line[512];
    FILE *f = fopen(csv_path, "r");

    if (!f) {
        FAIL("cannot read %s", csv_path);
        return;
    }
    if (!fgets(line, sizeof line, f) || strcmp(line, "pe,routine,calls,bytes,time_ns,wait_ns\n"))
        FAIL("CSV header is \"%s\"", line);
    n_exp = expected(0, npes, e);
    while (fgets(line, sizeof line, f)) {
        char name[128];
        int pe, i;
        uint64_t calls, bytes, ns, wait;

        rows++;
        if (sscanf(line, "%d,%127[^,],%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64, &pe, name, &calls, &bytes, &ns,
                   &wait) != 6 || pe < 0 || pe >= npes) {
            FAIL("malformed CSV row \"%s\"", line);
            continue;
        }
        max_pe = pe > max_pe ? pe : max_pe;
        expected(pe, npes, e);
        for (i = 0; i < n_exp && strcmp(e[i].routine, name); i++)
            ;
        if (i == n_exp) {
            FAIL("PE %d has a row for %s, which it did not call", pe, name);
            continue;
        }
        if (seen[pe][i]++)
            FAIL("PE %d has two rows for %s", pe, name);
        if (calls != (uint64_t)e[i].calls || bytes != (uint64_t)e[i].bytes)
            FAIL("PE %d %s: %" PRIu64 " calls, %" PRIu64 " bytes; expected %ld calls, %ld bytes", pe, name, calls,
                 bytes, e[i].calls, e[i].bytes);
        if (wait > ns)
            FAIL("PE %d %s: waited %" PRIu64 " ns of %" PRIu64 " ns inside", pe, name, wait, ns);
        time_of_pe[pe] += ns;
    }
    fclose(f);
    for (int pe = 0; pe < npes; pe++) {
        expected(pe, npes, e);
        for (int i = 0; i < n_exp; i++)
            if (!seen[pe][i])
                FAIL("PE %d has no row for %s", pe, e[i].routine);
        if (time_of_pe[pe] == 0)
            FAIL("PE %d: no time reported", pe);
    }
    if (rows != (long)n_exp * npes || max_pe != npes - 1)
        FAIL("%ld CSV rows for %d PEs (expected %d each)", rows, npes, n_exp);
    unlink(csv_path);
}

static void check_at_exit(void)
{
    if (me != 0)
        return;
    check_csv();
    if (fails)
        _exit(1);
    printf("OK\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    int *dest, src[NPUT_INTS], right;

    if (strcmp(mode, "table") && strcmp(mode, "csv") && strcmp(mode, "csv-exit")) {
        fprintf(stderr, "usage: profile_counts_every_call_exactly table|csv|csv-exit\n");
        return 2;
    }
    if (strcmp(mode, "table")) {
        /* Only PE 0's file is written; each PE names its own. */
        const char *dir = getenv("TMPDIR");

        snprintf(csv_path, sizeof csv_path, "%s/shoal-profile-%ld.csv", dir && *dir ? dir : "/tmp", (long)getpid());
        setenv("SHMEM_PROFILE", csv_path, 1);
        with_finalize = strcmp(mode, "csv-exit") != 0;
        if (!with_finalize)
            atexit(check_at_exit); /* before init: runs after Shoal's at-exit finalize */
    }

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > 64)
        shmem_global_exit(2); /* unreachable in the suite: one call more than counted */
    right = (me + 1) % npes;
    dest = shmem_malloc(NPUT_INTS * sizeof *dest);
    for (int i = 0; i < NPUT_INTS; i++)
        src[i] = me * 1000 + i;
    for (int i = 0; i < 2 * npes; i++)
        all_src[i] = me;
    reduce_src = me + 1;
    shmem_barrier_all();

    for (int k = 0; k < 10 * (me + 1); k++)
        shmem_put(dest, src, NPUT_INTS, right);
    shmem_pcontrol(0);
    for (int k = 0; k < 4; k++)
        shmem_put(dest, src, NPUT_INTS, right); /* not counted */
    shmem_pcontrol(1);
    for (int k = 0; k < 7; k++)
        shmem_p(&flag_word, (long)k, right);
    for (int k = 0; k < 5 * (me + 1); k++)
        (void)shmem_long_atomic_fetch_add(&counter, 1, 0);
    for (int k = 0; k < 2; k++)
        (void)shmem_ctx_long_atomic_fetch_add(ctx, &counter, 1, 0);
    shmem_quiet();
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &reduce_dst, &reduce_src, 1);
    shmem_int_alltoall(SHMEM_TEAM_WORLD, all_dst, all_src, 2);
    shmem_barrier_all();
    shmem_free(dest);

    /* Values are checked by other tests; one look that the calls ran. */
    if (reduce_dst != (long)npes * (npes + 1) / 2)
        FAIL("sum reduction gave %ld", reduce_dst);
    if (!with_finalize)
        return fails ? 1 : 0; /* the report comes from the at-exit finalize */
    shmem_finalize();
    if (me == 0 && csv_path[0])
        check_csv();
    if (me == 0 && !fails)
        printf("OK\n");
    return fails ? 1 : 0;
}
