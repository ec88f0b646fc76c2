/* SPDX-License-Identifier: BSD-3-Clause */
/* With a 16 MiB symmetric heap (manifest env SHMEM_SYMMETRIC_SIZE=16M), an
 * allocation larger than the heap returns NULL on every PE — malloc, calloc,
 * align, malloc_with_hints and a growing realloc (which leaves the old block
 * intact) — and the library says on stderr that SHMEM_SYMMETRIC_SIZE limits
 * it.  The program then continues and normal allocations work. */
#include "check.h"

#include <stdint.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;

    void *huge = shmem_malloc((size_t)1 << 40);            /* 1 TiB */
    CHECK(huge == NULL, "shmem_malloc(1 TiB) = %p, want NULL", huge);
    void *over = shmem_malloc((size_t)32 << 20);           /* 2x the heap */
    CHECK(over == NULL, "shmem_malloc(32 MiB) with a 16 MiB heap = %p, want NULL", over);
    void *cal = shmem_calloc((size_t)1 << 20, 1 << 20);    /* 1 TiB zeroed */
    CHECK(cal == NULL, "shmem_calloc(1 TiB) = %p, want NULL", cal);
    void *ali = shmem_align(4096, (size_t)1 << 40);
    CHECK(ali == NULL, "shmem_align(4096, 1 TiB) = %p, want NULL", ali);
    void *hint = shmem_malloc_with_hints((size_t)1 << 40, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(hint == NULL, "shmem_malloc_with_hints(1 TiB) = %p, want NULL", hint);

    /* a failed realloc keeps the old block */
    long *keep = shmem_malloc(64 * sizeof(long));
    CHECK(keep != NULL, "shmem_malloc(512) after failures = NULL");
    if (!keep)
        shmem_global_exit(1);
    for (int i = 0; i < 64; i++)
        keep[i] = me * 100 + i;
    shmem_barrier_all();
    long *grown = shmem_realloc(keep, (size_t)1 << 40);
    CHECK(grown == NULL, "shmem_realloc(1 TiB) = %p, want NULL", (void *)grown);
    if (grown)
        keep = grown;
    for (int i = 0; i < 64; i++)
        CHECK(keep[i] == me * 100 + i, "after failed realloc keep[%d] = %ld", i, keep[i]);

    /* normal allocations and RMA still work */
    long *ok = shmem_malloc((size_t)4 << 20);               /* 4 MiB */
    CHECK(ok != NULL, "shmem_malloc(4 MiB) after the failures = NULL");
    if (!ok)
        shmem_global_exit(1);
    size_t n = ((size_t)4 << 20) / sizeof(long);
    ok[n - 1] = -1;
    shmem_barrier_all();
    shmem_long_p(&ok[n - 1], (long)me, right);
    shmem_long_put(keep, (long[1]){1000L + me}, 1, right);
    shmem_barrier_all();
    CHECK(ok[n - 1] == left, "ok[last] = %ld, want %d", ok[n - 1], left);
    CHECK(keep[0] == 1000 + left, "keep[0] = %ld, want %d", keep[0], 1000 + left);

    int rc = check_finish();
    shmem_free(ok);
    shmem_free(keep);
    shmem_finalize();
    return rc;
}
