/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/quiet_visible.c — when shmem_quiet returns, is the put (or the
 * non-fetching AMO) before it visible at its target, even while the
 * target is not calling the library? OpenSHMEM says it is ("completed
 * and visible to all PEs"). A library that counts a put done once its
 * provider has queued it (as inject completion allows) returns from quiet
 * sooner, but the value lands only when the target's progress applies it.
 *
 * 2 PEs. In each round PE 0 updates a word on PE 1 (shmem_long_p, or
 * shmem_long_atomic_add), calls shmem_quiet, then raises a flag in a
 * POSIX shared-memory page both PEs mapped, outside OpenSHMEM. PE 1 spins
 * on that flag without calling the library, reads the word with a plain
 * load and counts it stale if it does not hold the round's value; it then
 * answers through the page, and only then calls the library again. A PE
 * that computes instead of calling the library is what a progress thread
 * (or hardware progress) must serve; this measures whether it is served
 * before quiet returns. A library without such progress may instead make
 * quiet wait for the target: if the flag has not come after 0.1 s, PE 1
 * calls the library in a loop (a blocking atomic fetch on PE 0) until
 * it comes, and the round is counted as one that needed the target's
 * calls. (PE 0 does the same while it waits for the answer, so that the
 * fetch completes.) Rows, per kind, out of `rounds`:
 * stale reads, and rounds that needed the target's calls.
 *
 * Needs both PEs on one host (the page). Standard OpenSHMEM 1.4 only.
 */
#include "common.h"

#include <fcntl.h>
#include <shmem.h>
#include <sys/mman.h>
#include <unistd.h>

struct page {
    long seq, ack; /* PE 0 raises seq after quiet; PE 1 answers with ack */
};

static long word, sum, pid0, stale_remote; /* symmetric (global data) */

/* Spin on a page word; after `call_after` ns call the library meanwhile
 * (returns 2 then); give up after 20 s (returns 0). */
static int await(volatile long *w, long v, double call_after)
{
    double t0 = bench_now_ns();
    int called = 0;

    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != v) {
        double t = bench_now_ns() - t0;
        if (t > 20e9)
            return 0;
        if (t > call_after) {
            /* A blocking atomic on the other PE: every implementation at
             * hand drives its progress in it (a quiet with nothing to
             * complete, or an atomic on itself, may not). */
            (void)shmem_long_atomic_fetch(&word, 1 - shmem_my_pe());
            called = 1;
        }
    }
    return called ? 2 : 1;
}

int main(int argc, char **argv)
{
    static const char *const op[2][2] = {{"p_quiet_stale", "p_quiet_needed_target"},
                                         {"add_quiet_stale", "add_quiet_needed_target"}};
    struct bench_args a;
    char name[64];
    struct page *pg;
    int me, npes, fd;
    long rounds, stale[2] = {0, 0}, called[2] = {0, 0};

    bench_parse_args(argc, argv, &a, 8, 8);
    rounds = a.quick ? 20 : 100;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes != 2) {
        if (me == 0)
            bench_skip("quiet_visible", "all", npes, "needs exactly 2 PEs");
        shmem_finalize();
        return 0;
    }
    if (me == 0)
        pid0 = (long)getpid();
    shmem_barrier_all();
    if (me == 1)
        pid0 = shmem_long_g(&pid0, 0);
    snprintf(name, sizeof name, "/quiet-visible-%ld", pid0);
    fd = me == 0 ? shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600) : -1;
    if (me == 0 && (fd < 0 || ftruncate(fd, sizeof *pg))) {
        perror("quiet_visible: shm_open");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    if (me == 1 && (fd = shm_open(name, O_RDWR, 0600)) < 0) {
        perror("quiet_visible: shm_open");
        shmem_global_exit(1);
    }
    pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shmem_barrier_all();
    if (me == 0)
        shm_unlink(name); /* both have it mapped: nothing outlives the run */
    if (pg == MAP_FAILED) {
        perror("quiet_visible: mmap");
        shmem_global_exit(1);
    }

    for (long i = 1; i <= 2 * rounds; i++) {
        int is_p = i <= rounds;
        if (me == 0) {
            if (is_p)
                shmem_long_p(&word, i, 1);
            else
                shmem_long_atomic_add(&sum, 1, 1);
            shmem_quiet();
            __atomic_store_n(&pg->seq, i, __ATOMIC_RELEASE);
            if (!await(&pg->ack, i, 1e8)) {
                fprintf(stderr, "quiet_visible: PE 1 did not answer round %ld\n", i);
                shmem_global_exit(1);
            }
        } else {
            int got = await(&pg->seq, i, 1e8);
            if (!got) {
                fprintf(stderr, "quiet_visible: no flag for round %ld\n", i);
                shmem_global_exit(1);
            }
            if (got == 2)
                called[!is_p]++;
            else if (is_p)
                stale[0] += __atomic_load_n(&word, __ATOMIC_ACQUIRE) != i;
            else
                stale[1] += __atomic_load_n(&sum, __ATOMIC_ACQUIRE) != i - rounds;
            __atomic_store_n(&pg->ack, i, __ATOMIC_RELEASE);
        }
    }
    munmap(pg, sizeof *pg);
    for (int k = 0; k < 4; k++) {
        shmem_barrier_all();
        if (me == 1)
            stale_remote = k % 2 ? called[k / 2] : stale[k / 2];
        shmem_barrier_all();
        if (me == 0)
            bench_emit("quiet_visible", op[k / 2][k % 2], 8, npes, "count",
                       (double)shmem_long_g(&stale_remote, 1), NULL);
    }
    if (me == 0)
        bench_emit("quiet_visible", "rounds", 8, npes, "count", (double)rounds, NULL);
    shmem_finalize();
    return 0;
}
