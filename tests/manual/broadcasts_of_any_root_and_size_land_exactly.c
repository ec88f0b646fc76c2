/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * broadcasts_of_any_root_and_size_land_exactly: broadcasts back to back
 * with a different root and size each call, in the 1.4 active-set form
 * (two alternating pSync arrays) and the team form, and no other
 * synchronisation between calls. Node-local, an active-set root stores
 * straight into the others' dest and returns without waiting for them,
 * so a root may run calls ahead: every call has its own dest slot, and
 * the root overwrites its source as soon as the call returns (the spec
 * lets it reuse the source then), so a copy that happened late would
 * show the scribble. Sizes straddle the algorithms' thresholds (8 KiB,
 * 64 KiB, 512 KiB). At the end every PE checks every slot exactly: the
 * root's untouched in the active-set form, the root's copy in the team
 * form, the guard word after each slot untouched; and pSync is back to
 * SHMEM_SYNC_VALUE.
 */
#include "check.h"

#include <string.h>

/* Elements (longs) per call, cycled; each slot holds the largest + 1 guard. */
static const size_t sizes[] = {1, 3, 1024, 1025, 8192, 8193, 65536, 65537, 2};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLOT (65537 + 1)
enum { CALLS = 2 * NSIZES + 1, GUARD = -7 };

static long psync[2][SHMEM_BCAST_SYNC_SIZE];

static long value(int form, int call, size_t i)
{
    return 1000000000L * (form + 1) + 1000000L * call + (long)i + 1;
}

static int root_of(int call, int npes)
{
    /* Not a plain rotation: consecutive roots differ by varying steps. */
    return (call * 3 + call / 2) % npes;
}

static void check_slots(int form, const long *dest, int me, int npes)
{
    for (int c = 0; c < CALLS; c++) {
        const long *d = dest + (size_t)c * SLOT;
        size_t n = sizes[c % NSIZES];
        int root = root_of(c, npes), untouched = form == 0 && me == root;
        size_t bad = 0, first = 0;

        for (size_t i = 0; i < n; i++)
            if (d[i] != (untouched ? GUARD : value(form, c, i)) && !bad++)
                first = i;
        CHECK(!bad, "%s call %d (root %d, %zu longs): %zu wrong, first [%zu] = %ld", form ? "team" : "active-set",
              c, root, n, bad, first, d[first]);
        CHECK(d[n] == GUARD, "%s call %d: guard after %zu longs overwritten: %ld", form ? "team" : "active-set", c,
              n, d[n]);
    }
}

int main(void)
{
    int me, npes;
    long *src, *dest;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    src = shmem_malloc(sizeof(long) * SLOT);
    dest = shmem_malloc(sizeof(long) * SLOT * CALLS);
    CHECK(src && dest, "shmem_malloc failed");

    for (int form = 0; form < 2; form++) {
        for (size_t i = 0; i < (size_t)SLOT * CALLS; i++)
            dest[i] = GUARD;
        shmem_barrier_all();
        for (int c = 0; c < CALLS; c++) {
            size_t n = sizes[c % NSIZES];
            int root = root_of(c, npes);
            long *d = dest + (size_t)c * SLOT;

            if (me == root)
                for (size_t i = 0; i < n; i++)
                    src[i] = value(form, c, i);
            if (form == 0)
                shmem_broadcast64(d, src, n, root, 0, 0, npes, psync[c % 2]);
            else
                shmem_long_broadcast(SHMEM_TEAM_WORLD, d, src, n, root);
            /* The source is the root's again. */
            if (me == root)
                memset(src, 0x5a, n * sizeof(long));
        }
        shmem_barrier_all();
        check_slots(form, dest, me, npes);
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            CHECK(psync[k][i] == SHMEM_SYNC_VALUE, "pSync %d word %d is %ld after the calls", k, i, psync[k][i]);
    shmem_free(dest);
    shmem_free(src);
    return check_finish();
}
