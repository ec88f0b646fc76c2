/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each PE puts 400 MiB of exact values into its right neighbour's heap,
 * reads them back with gets, and checks the 400 MiB its left neighbour put
 * into its own heap: every page of 800 MiB of heap is touched. Shared
 * memory is not bounded by /dev/shm (CI runs this where /dev/shm is a
 * 64 MiB tmpfs): neither the writes nor the reads may end in a SIGBUS.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>
#include "check.h"

#define BYTES ((size_t)400 << 20)
#define CHUNK ((size_t)4 << 20)

/* The value at word i of the block PE `from` writes. */
static uint64_t value(int from, size_t i)
{
    return ((uint64_t)(from + 1) << 40) ^ (i * 0x9E3779B97F4A7C15ull);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    size_t words = BYTES / 8, per = CHUNK / 8, bad = 0, first = 0;
    uint64_t *block = shmem_malloc(BYTES), *buf = malloc(CHUNK);

    CHECK(block != NULL && buf != NULL, "shmem_malloc(%zu) returned NULL", BYTES);
    if (block && buf) {
        for (size_t c = 0; c < words; c += per) {
            for (size_t i = 0; i < per; i++)
                buf[i] = value(me, c + i);
            shmem_putmem(block + c, buf, CHUNK, right);
        }
        shmem_quiet();
        for (size_t c = 0; c < words; c += per) {
            shmem_getmem(buf, block + c, CHUNK, right);
            for (size_t i = 0; i < per; i++)
                if (buf[i] != value(me, c + i) && !bad++)
                    first = c + i;
        }
        CHECK(bad == 0, "read back from PE %d: %zu wrong words, the first at word %zu", right, bad, first);
        shmem_barrier_all();
        bad = 0;
        for (size_t i = 0; i < words; i++)
            if (block[i] != value(left, i) && !bad++)
                first = i;
        CHECK(bad == 0, "written by PE %d: %zu wrong words, the first at word %zu (%#llx)", left, bad, first,
              (unsigned long long)block[first]);
        shmem_barrier_all();
        shmem_free(block);
    }
    free(buf);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
