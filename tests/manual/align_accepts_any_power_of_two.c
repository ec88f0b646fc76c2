/* SPDX-License-Identifier: BSD-3-Clause */
/* align_accepts_any_power_of_two.c — shmem_align takes every power of two,
 * also those below sizeof(void *) that 1.4 programs pass (1, 2, 4): the
 * block is aligned at least as asked, symmetric, and usable for RMA. With
 * the argument "bad", a non-power of two must still be refused. */
#include "check.h"

#include <stdint.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const size_t aligns[] = {1, 2, 4, 8, 16, 32, 64, 256, 4096};
    enum { NA = sizeof aligns / sizeof aligns[0], LEN = 24 };
    unsigned char *blk[NA];
    long checked = 0;
    int me, npes, right, left, rc;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (argc > 1 && strcmp(argv[1], "bad") == 0) {
        void *p = shmem_align(24, 8); /* must not return */
        printf("shmem_align(24, 8) returned %p\n", p);
        shmem_finalize();
        return 0;
    }
    for (int a = 0; a < NA; a++) {
        blk[a] = (unsigned char *)shmem_align(aligns[a], LEN);
        checked += 2;
        CHECK(blk[a] != NULL, "shmem_align(%zu, %d) returned NULL", aligns[a], LEN);
        CHECK(blk[a] == NULL || (uintptr_t)blk[a] % aligns[a] == 0, "shmem_align(%zu) gave %p", aligns[a],
              (void *)blk[a]);
        if (blk[a])
            memset(blk[a], 0, LEN);
    }
    shmem_barrier_all();
    /* Symmetric: the same block on the right neighbour takes our bytes. */
    for (int a = 0; a < NA; a++) {
        unsigned char src[LEN];
        for (int i = 0; i < LEN; i++)
            src[i] = (unsigned char)(me * 31 + a * 7 + i);
        if (blk[a])
            shmem_putmem(blk[a], src, LEN, right);
    }
    shmem_barrier_all();
    for (int a = 0; a < NA; a++)
        for (int i = 0; i < LEN && blk[a]; i++, checked++)
            CHECK(blk[a][i] == (unsigned char)(left * 31 + a * 7 + i), "align %zu: byte %d is %u", aligns[a], i,
                  blk[a][i]);
    shmem_barrier_all();
    for (int a = NA - 1; a >= 0; a--)
        shmem_free(blk[a]);
    rc = check_finish();
    if (rc == 0 && me == 0)
        printf("checked %ld values\n", checked);
    shmem_finalize();
    return rc;
}
