/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocking puts of three sizes (1 KiB and 6 KiB, which the network path may
 * copy into bounce buffers, and 64 KiB, which it sends zero-copy), many more
 * of them than the bounce pool holds, each followed at once by overwriting
 * its source.  Then quiet, and a flag put: the right neighbour waits for the
 * flag only, so every byte it then finds must already be the value put,
 * never the overwritten source.  Repeated ROUNDS times over the same
 * buffers, so recycled bounce buffers are checked too. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define ROUNDS 3
#define NCLASS 3

static const size_t class_size[NCLASS] = {1024, 6 * 1024, 64 * 1024};
static const int class_count[NCLASS] = {100, 100, 10};

static long ready; /* round number, put by the left neighbour after quiet */

static unsigned char pattern(int pe, int round, int cls, int r, size_t i)
{
    return (unsigned char)(pe * 31 + round * 101 + cls * 7 + r * 13 + (int)(i % 251));
}

static void put_all(unsigned char *region[], unsigned char *src, int round, int peer)
{
    int me = shmem_my_pe();

    for (int cls = 0; cls < NCLASS; cls++)
        for (int r = 0; r < class_count[cls]; r++) {
            size_t n = class_size[cls];
            for (size_t i = 0; i < n; i++)
                src[i] = pattern(me, round, cls, r, i);
            shmem_putmem(region[cls] + (size_t)r * n, src, n, peer);
            memset(src, 0xEE, n); /* the source is the caller's again */
        }
}

static void check_all(unsigned char *region[], int round, int left)
{
    for (int cls = 0; cls < NCLASS; cls++)
        for (int r = 0; r < class_count[cls]; r++) {
            size_t n = class_size[cls];
            const unsigned char *got = region[cls] + (size_t)r * n;
            for (size_t i = 0; i < n; i++)
                if (got[i] != pattern(left, round, cls, r, i)) {
                    CHECK(0, "round %d: put %d of %zu bytes from PE %d: byte %zu = %#x, want %#x", round, r, n,
                          left, i, got[i], pattern(left, round, cls, r, i));
                    break;
                }
        }
}

int main(void)
{
    unsigned char *region[NCLASS], *src;
    int me, npes, right, left;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (int cls = 0; cls < NCLASS; cls++) {
        region[cls] = shmem_malloc(class_size[cls] * (size_t)class_count[cls]);
        if (!region[cls]) {
            fprintf(stderr, "PE %d: FAIL shmem_malloc of %zu bytes returned NULL\n", me,
                    class_size[cls] * (size_t)class_count[cls]);
            shmem_global_exit(1);
        }
    }
    src = malloc(class_size[NCLASS - 1]);
    if (!src) {
        fprintf(stderr, "PE %d: FAIL malloc\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    for (int round = 1; round <= ROUNDS; round++) {
        put_all(region, src, round, right);
        shmem_quiet();
        shmem_long_p(&ready, round, right);
        wait_long_bounded(&ready, SHMEM_CMP_EQ, round, "the left neighbour's flag");
        check_all(region, round, left);
        shmem_barrier_all(); /* nobody overwrites a region still being checked */
    }

    free(src);
    for (int cls = 0; cls < NCLASS; cls++)
        shmem_free(region[cls]);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
