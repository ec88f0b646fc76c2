/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * copy_threshold_follows_cache_sizes.c — node-local copies switch to
 * streaming stores where the cache sizes say (base/copy.c): the manifest
 * gives cache geometries (SHOAL_CACHE_SIZES) and the exact threshold that
 * SHMEM_INFO must print for each. Here, puts and gets to the next PE of
 * sizes on both sides of those thresholds, at an odd offset, must land
 * exactly. With the argument "timed" each size is put and got 8 times,
 * so every size class between the L2 and the streaming threshold has had
 * the copies it times (memcpy and rep movsb alternately) and keeps one:
 * both copies, and the kept one, land exactly too.
 */
#include "check.h"

#include <stdint.h>
#include <string.h>

static const size_t sizes[] = {262143, 262144, 524288 + 7, 1048576, 2097152 + 65, 8388608, 8388608 + 129};
#define MAX_SIZE (8388608 + 129 + 64)

static unsigned char value(int pe, size_t size, size_t i)
{
    return (unsigned char)((size_t)pe * 131u + size * 7u + i * 13u + (i >> 9));
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 && strcmp(argv[1], "timed") == 0 ? 8 : 1;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n, prev = (me + n - 1) % n;
    unsigned char *sym = shmem_malloc(MAX_SIZE);
    unsigned char *loc = malloc(MAX_SIZE);

    CHECK(sym && loc, "allocation failed");
    if (!sym || !loc)
        shmem_global_exit(1);
    for (size_t r = 0; r < (size_t)rounds * (sizeof sizes / sizeof *sizes); r++) {
        size_t k = r % (sizeof sizes / sizeof *sizes), s = sizes[k], off = 3 + k;

        /* put: each PE writes its pattern into the next PE's buffer */
        for (size_t i = 0; i < s; i++)
            loc[off + i] = value(me, s, i);
        memset(sym, 0xEE, MAX_SIZE);
        shmem_barrier_all();
        shmem_putmem(sym + off, loc + off, s, next);
        shmem_barrier_all();
        size_t bad = 0;
        for (size_t i = 0; i < s; i++)
            bad += sym[off + i] != value(prev, s, i);
        CHECK(bad == 0, "put of %zu bytes from PE %d: %zu bytes wrong", s, prev, bad);
        CHECK(sym[off - 1] == 0xEE && sym[off + s] == 0xEE, "put of %zu bytes wrote outside its range", s);

        /* get: each PE reads the next PE's buffer (its previous PE's pattern) */
        memset(loc, 0, MAX_SIZE);
        shmem_getmem(loc + off, sym + off, s, next);
        bad = 0;
        for (size_t i = 0; i < s; i++)
            bad += loc[off + i] != value(me, s, i);
        CHECK(bad == 0, "get of %zu bytes from PE %d: %zu bytes wrong", s, next, bad);
        CHECK(loc[off - 1] == 0 && loc[off + s] == 0, "get of %zu bytes wrote outside its range", s);
        shmem_barrier_all();
    }
    shmem_free(sym);
    free(loc);
    check_finish();
    shmem_finalize();
    return 0;
}
