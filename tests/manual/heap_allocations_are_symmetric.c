/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem_malloc / calloc / align / realloc / free / malloc_with_hints return
 * symmetric blocks: each one is checked by RMA to and from the neighbours.
 * malloc(0) is NULL, calloc is zeroed, align honours the alignment, realloc
 * growth and shrinkage keep the contents, and free/alloc churn keeps every
 * live block intact. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define NBLOCKS 24

/* Fill my copy with a pattern naming me, put my pattern into the right
 * neighbour's copy, and check the left neighbour's pattern arrived; then get
 * the right neighbour's copy back and check it holds my pattern. */
static void rma_roundtrip(const char *what, long *blk, size_t n)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    long *src = malloc(n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        src[i] = (long)me * 1000000007L + (long)i;
    shmem_barrier_all();
    shmem_long_put(blk, src, n, right);
    shmem_barrier_all();
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (blk[i] != (long)left * 1000000007L + (long)i && bad++ == 0)
            CHECK(0, "%s: element %zu = %ld after put from PE %d, want %ld", what, i, blk[i],
                  left, (long)left * 1000000007L + (long)i);
    memset(src, 0, n * sizeof(long));
    shmem_long_get(src, blk, n, right);
    for (size_t i = 0; i < n; i++)
        if (src[i] != (long)me * 1000000007L + (long)i && bad++ == 0)
            CHECK(0, "%s: element %zu got from PE %d = %ld", what, i, right, src[i]);
    CHECK(bad == 0, "%s: %zu bad elements of %zu", what, bad, n);
    free(src);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes;

    /* malloc(0) and free(NULL) */
    void *z = shmem_malloc(0);
    CHECK(z == NULL, "shmem_malloc(0) = %p, want NULL", z);
    shmem_free(NULL);

    /* plain malloc */
    long *a = shmem_malloc(1000 * sizeof(long));
    CHECK(a != NULL, "shmem_malloc(8000) = NULL");
    if (!a)
        shmem_global_exit(1);
    rma_roundtrip("malloc 1000 longs", a, 1000);

    /* calloc is zeroed, locally and as seen remotely */
    int *c = shmem_calloc(5000, sizeof(int));
    CHECK(c != NULL, "shmem_calloc(5000, 4) = NULL");
    if (!c)
        shmem_global_exit(1);
    for (int i = 0; i < 5000; i++)
        if (c[i] != 0) {
            CHECK(0, "calloc element %d = %d, want 0", i, c[i]);
            break;
        }
    int remote[5000];
    shmem_int_get(remote, c, 5000, right);
    for (int i = 0; i < 5000; i++)
        if (remote[i] != 0) {
            CHECK(0, "calloc element %d on PE %d = %d, want 0", i, right, remote[i]);
            break;
        }
    shmem_barrier_all();   /* everyone has read the zeroes */
    shmem_int_atomic_add(&c[4999], me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(c[4999] == npes * (npes + 1) / 2, "AMO total in calloc block = %d, want %d",
              c[4999], npes * (npes + 1) / 2);
    shmem_barrier_all();

    /* align: 4096 and a few others */
    size_t aligns[] = {sizeof(void *), 64, 256, 4096, 65536};
    for (size_t k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
        long *p = shmem_align(aligns[k], 3000 + k);
        CHECK(p != NULL, "shmem_align(%zu) = NULL", aligns[k]);
        if (!p)
            continue;
        CHECK((uintptr_t)p % aligns[k] == 0, "shmem_align(%zu) = %p, misaligned", aligns[k], (void *)p);
        char what[64];
        snprintf(what, sizeof what, "align %zu", aligns[k]);
        rma_roundtrip(what, p, (3000 + k) / sizeof(long));
        shmem_free(p);
    }

    /* realloc: grow keeps data and the new tail is usable; shrink keeps data */
    long *r = shmem_malloc(16 * sizeof(long));
    for (int i = 0; i < 16; i++)
        r[i] = 500 + i + me;
    long *spacer = shmem_malloc(64);     /* discourages in-place growth */
    long *g = shmem_realloc(r, 100000 * sizeof(long));
    CHECK(g != NULL, "shmem_realloc growth = NULL");
    if (!g)
        shmem_global_exit(1);
    for (int i = 0; i < 16; i++)
        CHECK(g[i] == 500 + i + me, "after realloc growth g[%d] = %ld, want %d", i, g[i], 500 + i + me);
    long tail[100];
    for (int i = 0; i < 100; i++)
        tail[i] = -i - me;
    shmem_barrier_all();
    shmem_long_put(g + 99900, tail, 100, right);
    shmem_barrier_all();
    int left = (me - 1 + npes) % npes;
    for (int i = 0; i < 100; i++)
        CHECK(g[99900 + i] == -i - left, "realloc tail [%d] = %ld", 99900 + i, g[99900 + i]);
    for (int i = 0; i < 16; i++) {
        long v = shmem_long_g(&g[i], right);
        CHECK(v == 500 + i + right, "realloc'd block element %d on PE %d = %ld", i, right, v);
    }
    shmem_barrier_all();   /* peers are done reading g before it moves */
    long *s = shmem_realloc(g, 8 * sizeof(long));
    CHECK(s != NULL, "shmem_realloc shrink = NULL");
    if (s) {
        for (int i = 0; i < 8; i++)
            CHECK(s[i] == 500 + i + me, "after realloc shrink s[%d] = %ld", i, s[i]);
        rma_roundtrip("realloc shrunk", s, 8);
    }
    long *fresh = shmem_realloc(NULL, 40 * sizeof(long));   /* realloc(NULL) == malloc */
    CHECK(fresh != NULL, "shmem_realloc(NULL, 320) = NULL");
    if (fresh)
        rma_roundtrip("realloc(NULL)", fresh, 40);
    shmem_free(fresh);
    shmem_free(s);
    shmem_free(spacer);

    /* malloc_with_hints */
    long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                    SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (size_t k = 0; k < 4; k++) {
        long *h = shmem_malloc_with_hints(256 * sizeof(long), hints[k]);
        CHECK(h != NULL, "shmem_malloc_with_hints(2048, %ld) = NULL", hints[k]);
        if (!h)
            continue;
        char what[64];
        snprintf(what, sizeof what, "malloc_with_hints %ld", hints[k]);
        rma_roundtrip(what, h, 256);
        shmem_long_atomic_add(&h[0], 1, 0);
        shmem_barrier_all();
        long v = shmem_long_atomic_fetch(&h[0], 0);
        /* h[0] on PE 0 was last written by rma_roundtrip's put from PE npes-1 */
        long want = (long)(npes - 1) * 1000000007L + npes;
        CHECK(v == want, "AMO on hinted block = %ld, want %ld", v, want);
        shmem_barrier_all();
        shmem_free(h);
    }
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
          "shmem_malloc_with_hints(0) != NULL");

    /* churn: allocate many blocks, free every other one, allocate again;
     * every live block keeps its contents and works for RMA. */
    long *blk[NBLOCKS];
    size_t len[NBLOCKS];
    for (int b = 0; b < NBLOCKS; b++) {
        len[b] = 1 + (size_t)(b * 733) % 4000;
        blk[b] = shmem_malloc(len[b] * sizeof(long));
        CHECK(blk[b] != NULL, "churn malloc %d = NULL", b);
        if (!blk[b])
            shmem_global_exit(1);
        for (size_t i = 0; i < len[b]; i++)
            blk[b][i] = b * 10000L + (long)i;
    }
    for (int b = 1; b < NBLOCKS; b += 2)
        shmem_free(blk[b]);
    for (int b = 1; b < NBLOCKS; b += 2) {
        len[b] = 1 + (size_t)(b * 1171) % 6000;
        blk[b] = shmem_calloc(len[b], sizeof(long));
        CHECK(blk[b] != NULL, "churn calloc %d = NULL", b);
        if (!blk[b])
            shmem_global_exit(1);
        for (size_t i = 0; i < len[b]; i++)
            if (blk[b][i] != 0) {
                CHECK(0, "reused calloc block %d element %zu = %ld", b, i, blk[b][i]);
                break;
            }
    }
    for (int b = 0; b < NBLOCKS; b += 2)
        for (size_t i = 0; i < len[b]; i++)
            if (blk[b][i] != b * 10000L + (long)i) {
                CHECK(0, "live block %d element %zu = %ld after churn", b, i, blk[b][i]);
                break;
            }
    for (int b = 0; b < NBLOCKS; b++) {
        char what[64];
        snprintf(what, sizeof what, "churn block %d", b);
        rma_roundtrip(what, blk[b], len[b]);
    }
    for (int b = NBLOCKS - 1; b >= 0; b--)
        shmem_free(blk[b]);

    /* a larger block (8 MiB) */
    long *big = shmem_malloc(1 << 23);
    CHECK(big != NULL, "shmem_malloc(8 MiB) = NULL");
    if (big) {
        rma_roundtrip("8 MiB block", big, (1 << 23) / sizeof(long));
        shmem_free(big);
    }

    int rc = check_finish();
    shmem_free(c);
    shmem_free(a);
    shmem_finalize();
    return rc;
}
