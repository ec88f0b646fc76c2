/* SPDX-License-Identifier: BSD-3-Clause */
/* align_gives_aligned_addresses.c — shmem_align aligns the address the
 * program sees, not only the block's offset in the heap: for every power of
 * two up to 1 GiB (the heap's base alignment), with the heap empty and again
 * with a small block in front (so the block is not at offset 0 and the
 * allocator must pad), (uintptr_t)p % align == 0 on every PE, and the block
 * is symmetric (a put from the left neighbour lands in it). An alignment
 * above 1 GiB returns NULL on every PE. Run with a 64 MiB heap. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define LEN 40
#define BASE_ALIGN ((size_t)1 << 30)

static long checked;

/* One collective round: align, check the address, put to the right
 * neighbour, check what the left one put, free. */
static void check_one(size_t align, int me, int npes, const char *when)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char src[LEN];
    unsigned char *p = shmem_align(align, LEN);

    checked++;
    CHECK(p != NULL, "%s: shmem_align(%zu, %d) returned NULL", when, align, LEN);
    if (!p)
        return;
    checked++;
    CHECK((uintptr_t)p % align == 0, "%s: shmem_align(%zu) gave %p, off by %zu", when, align, (void *)p,
          (size_t)((uintptr_t)p % align));
    memset(p, 0xee, LEN);
    shmem_barrier_all();
    for (int i = 0; i < LEN; i++)
        src[i] = (unsigned char)(me * 37 + i * 3 + (int)(align % 251));
    shmem_putmem(p, src, LEN, right);
    shmem_barrier_all();
    for (int i = 0; i < LEN; i++, checked++)
        CHECK(p[i] == (unsigned char)(left * 37 + i * 3 + (int)(align % 251)), "%s: align %zu: byte %d is %u",
              when, align, i, p[i]);
    shmem_barrier_all();
    shmem_free(p);
}

int main(void)
{
    int me, npes;
    void *front, *too_big;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    for (size_t a = 1; a <= BASE_ALIGN; a <<= 1)
        check_one(a, me, npes, "empty heap");
    /* With a block in front, the heap (64 MiB) holds alignments up to 16 MiB. */
    front = shmem_malloc(24);
    CHECK(front != NULL, "shmem_malloc(24) returned NULL");
    for (size_t a = 1; a <= ((size_t)16 << 20); a <<= 1)
        check_one(a, me, npes, "after a block");
    shmem_free(front);

    too_big = shmem_align(BASE_ALIGN << 1, LEN);
    checked++;
    CHECK(too_big == NULL, "shmem_align(2 GiB) gave %p, expected NULL", too_big);

    int rc = check_finish();
    if (rc == 0 && me == 0)
        printf("checked %ld values\n", checked);
    shmem_finalize();
    return rc;
}
