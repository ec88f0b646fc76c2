/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem_quiet returns only once what the PE issued before it is visible at
 * its targets, even while the targets compute without calling the library
 * (the progress thread, or the path itself, must serve them).
 *
 * PE 0 is the initiator, every other PE a target. Each round PE 0 sends
 * every target a stream of 8-byte puts, 8- and 4-byte adds, an 8 KiB
 * blocking put, a 64 KiB nbi put and, on a created context, a put and an
 * increment; then shmem_quiet, and a last stream of 8-byte puts to every
 * target (where a path gathers small puts, quiet sends the last of them,
 * and nothing else it waits for follows them); then shmem_quiet
 * and shmem_ctx_quiet, and only then raises a
 * flag in a POSIX shared-memory page outside OpenSHMEM. The targets spin
 * on that flag without calling the library and check every value with
 * plain loads before they answer. On the network path this covers each
 * way a put or AMO completes: delivery-complete, posted and flushed (the
 * stream after the first), gathered, bounced, zero-copy. Needs every PE on one
 * host (the page); elsewhere it checks nothing and says so. */
#include "check.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUNDS 40
#define STREAM 16
#define MEDIUM 8192
#define LARGE 65536
#define MAXPES 64

struct page {
    long seq;          /* the round PE 0 completed with quiet */
    long ack[MAXPES];  /* the round each target has checked */
};

static long stream[STREAM];   /* 8-byte puts */
static long tail[STREAM];     /* 8-byte puts, the last before quiet */
static long sum;              /* 8-byte adds */
static int isum;              /* 4-byte adds */
static long host_id[MAXPES];  /* every PE's host, to know the page is shared */
static long pid0;

static long val(int r, int t, int i) { return (long)r * 100000 + t * 1000 + i + 1; }

/* Spin on a page word, no library call, bounded. */
static int await(volatile long *w, long v)
{
    double start = check_now();

    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != v)
        if (check_now() - start > CHECK_WAIT_LIMIT_S)
            return 0;
    return 1;
}

static long hash_host(void)
{
    char h[256] = "";
    uint64_t x = 1469598103934665603ull;

    gethostname(h, sizeof h - 1);
    for (const char *p = h; *p; p++)
        x = (x ^ (unsigned char)*p) * 1099511628211ull;
    return (long)(x >> 1);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    char *medium = shmem_malloc(MEDIUM), *large = shmem_malloc(LARGE);
    char *large_src = malloc((size_t)LARGE * MAXPES); /* an nbi source per target: untouched until quiet */
    long *ctx_word = shmem_calloc(2, sizeof(long));
    shmem_ctx_t ctx;
    struct page *pg = MAP_FAILED;
    char name[64];
    int one_host = 1;

    if (npes < 2 || npes > MAXPES || !medium || !large || !ctx_word || !large_src) {
        if (me == 0)
            fprintf(stderr, "needs 2..%d PEs and 80 KiB of heap\n", MAXPES);
        shmem_finalize();
        return 1;
    }
    if (shmem_ctx_create(0, &ctx))
        ctx = SHMEM_CTX_DEFAULT;
    memset(medium, 0, MEDIUM);
    memset(large, 0, LARGE);
    if (me == 0)
        pid0 = (long)getpid();
    for (int p = 0; p < npes; p++)
        shmem_long_p(&host_id[me], hash_host(), p);
    shmem_barrier_all();
    pid0 = shmem_long_g(&pid0, 0);
    for (int p = 1; p < npes; p++)
        one_host &= host_id[p] == host_id[0];
    if (!one_host) {
        if (me == 0)
            printf("PEs on more than one host: nothing checked\n");
        shmem_ctx_destroy(ctx);
        shmem_finalize();
        return 0;
    }

    /* The page: PE 0 creates it, the others open it, then it is unlinked
     * while mapped, so nothing is left behind whatever happens next. */
    snprintf(name, sizeof name, "/shoal-test-qc-%ld", pid0);
    if (me == 0) {
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, sizeof *pg) == 0)
            pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (fd >= 0)
            close(fd);
    }
    shmem_barrier_all();
    if (me != 0) {
        int fd = shm_open(name, O_RDWR, 0600);
        if (fd >= 0) {
            pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
        }
    }
    shmem_barrier_all();
    if (me == 0)
        shm_unlink(name);
    if (pg == MAP_FAILED) {
        fprintf(stderr, "PE %d: FAIL cannot map the shared page %s\n", me, name);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    for (int r = 0; r < ROUNDS; r++) {
        if (me == 0) {
            for (int t = 1; t < npes; t++) {
                /* The large ones first: the small ones after them are
                 * complete only if quiet completes them too. */
                memset(medium, 'a' + (r + t) % 26, MEDIUM);
                shmem_putmem(medium, medium, MEDIUM, t);
                memset(large_src + (size_t)t * LARGE, 'A' + (r + t) % 26, LARGE);
                shmem_putmem_nbi(large, large_src + (size_t)t * LARGE, LARGE, t);
                for (int i = 0; i < STREAM; i++)
                    shmem_long_p(&stream[i], val(r, t, i), t);
                for (int k = 0; k < 4; k++)
                    shmem_long_atomic_add(&sum, r + 1, t);
                shmem_int_atomic_add(&isum, 1, t);
                shmem_ctx_long_p(ctx, &ctx_word[0], val(r, t, 0), t);
                shmem_ctx_long_atomic_inc(ctx, &ctx_word[1], t);
            }
            /* Alone after a quiet: no other operation's completion
             * waits for the target to read what came before it. */
            shmem_quiet();
            for (int t = 1; t < npes; t++)
                for (int i = 0; i < STREAM; i++)
                    shmem_long_p(&tail[i], -val(r, t, i), t);
            shmem_quiet();
            shmem_ctx_quiet(ctx);
            __atomic_store_n(&pg->seq, r + 1, __ATOMIC_RELEASE);
            for (int t = 1; t < npes; t++)
                if (!await(&pg->ack[t], r + 1))
                    check_timeout("a target's answer");
        } else {
            long want_sum = 4L * (r + 1) * (r + 2) / 2;
            if (!await(&pg->seq, r + 1))
                check_timeout("PE 0's flag (quiet waiting for this computing PE?)");
            for (int i = 0; i < STREAM; i++) {
                long v = __atomic_load_n(&stream[i], __ATOMIC_ACQUIRE);
                CHECK(v == val(r, me, i), "round %d stream[%d] = %ld, want %ld", r, i, v, val(r, me, i));
                v = __atomic_load_n(&tail[i], __ATOMIC_ACQUIRE);
                CHECK(v == -val(r, me, i), "round %d tail[%d] = %ld, want %ld", r, i, v, -val(r, me, i));
            }
            CHECK(__atomic_load_n(&sum, __ATOMIC_ACQUIRE) == want_sum, "round %d sum = %ld, want %ld", r, sum,
                  want_sum);
            CHECK(__atomic_load_n(&isum, __ATOMIC_ACQUIRE) == r + 1, "round %d isum = %d, want %d", r, isum, r + 1);
            for (int i = 0; i < MEDIUM; i += 511)
                CHECK(medium[i] == 'a' + (r + me) % 26, "round %d medium[%d] = %d", r, i, medium[i]);
            CHECK(medium[MEDIUM - 1] == 'a' + (r + me) % 26, "round %d medium[last] = %d", r, medium[MEDIUM - 1]);
            for (int i = 0; i < LARGE; i += 4093)
                CHECK(large[i] == 'A' + (r + me) % 26, "round %d large[%d] = %d", r, i, large[i]);
            CHECK(large[LARGE - 1] == 'A' + (r + me) % 26, "round %d large[last] = %d", r, large[LARGE - 1]);
            CHECK(ctx_word[0] == val(r, me, 0), "round %d ctx put = %ld, want %ld", r, ctx_word[0], val(r, me, 0));
            CHECK(ctx_word[1] == r + 1, "round %d ctx inc = %ld, want %d", r, ctx_word[1], r + 1);
            __atomic_store_n(&pg->ack[me], r + 1, __ATOMIC_RELEASE);
        }
    }
    munmap(pg, sizeof *pg);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    int rc = check_finish();
    shmem_free(ctx_word);
    shmem_free(large);
    shmem_free(medium);
    free(large_src);
    shmem_finalize();
    return rc;
}
