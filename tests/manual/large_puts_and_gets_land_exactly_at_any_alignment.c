/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * large_puts_and_gets_land_exactly_at_any_alignment: blocking puts and gets
 * of sizes around the node-local copy's switches (the vector copy of a
 * destination 1-63 bytes past its source modulo 4 KiB, from 2 KiB to half
 * the L1, 24 KiB on common CPUs; the inline path's limit, 256 KiB, and
 * the streaming copy from the core's L2 size, 2 MiB on common CPUs; 4 MiB
 * + odd bytes beyond), at destination and source offsets that leave a
 * head and a tail that are not whole cache lines (the gets into the
 * malloc'd buffer, 16 bytes into its page, land 9 to 17 bytes past their
 * page-aligned source at three of the five; a sixth source offset, found
 * at run time, puts the put's destination 24 bytes past its source
 * modulo 4 KiB wherever the allocators placed the buffers). Each PE puts to
 * and gets from the next PE (itself at 1 PE); every byte of every
 * destination is checked exactly, and the bytes just before and after it
 * must keep their guard value. A streaming copy that dropped its head or
 * tail, wrote a whole line past the end, or was not fenced before the
 * closing barrier would show here.
 */
#include "check.h"

#include <stdint.h>
#include <string.h>

static const size_t sizes[] = {2047, 2048, 4096 + 61, 12288 + 1, 24575, 24576, 24577, 65536 + 3,
                               ((size_t)256 << 10) - 1, (size_t)256 << 10, ((size_t)2 << 20) - 1,
                               ((size_t)2 << 20) + 3, ((size_t)4 << 20) + 61};
static size_t offsets[][2] = {{0, 0}, {1, 0}, {0, 7}, {33, 63}, {63, 1}, {0, 0}}; /* {dest, source}; the last: below */
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NOFFS (sizeof offsets / sizeof offsets[0])
#define MAXSZ (((size_t)4 << 20) + 61)
#define PAD 128
#define NEAR 24 /* the sixth put's destination past its source, modulo 4 KiB */
#define GUARD 0xA5

/* Never GUARD, and differs per call, PE and byte. */
static unsigned char byte_of(int pe, int call, size_t i)
{
    unsigned char b = (unsigned char)(i * 131 + (size_t)call * 17 + (size_t)pe * 71 + (i >> 9));
    return b == GUARD ? 0x5A : b;
}

static void check_range(const unsigned char *buf, size_t off, size_t n, int from_pe, int call, const char *what)
{
    size_t bad = 0, first = 0;

    for (size_t i = 0; i < n; i++)
        if (buf[PAD + off + i] != byte_of(from_pe, call, i) && !bad++)
            first = i;
    CHECK(!bad, "%s call %d (%zu bytes, offset %zu): %zu bytes wrong, first at %zu", what, call, n, off, bad, first);
    for (size_t i = 0; i < PAD + off; i++)
        CHECK(buf[i] == GUARD, "%s call %d: guard byte %zu before the data is %#x", what, call, PAD + off - i,
              buf[i]);
    for (size_t i = PAD + off + n; i < PAD + off + n + PAD; i++)
        CHECK(buf[i] == GUARD, "%s call %d: guard byte %zu after the data is %#x", what, call, i - PAD - off - n,
              buf[i]);
}

int main(void)
{
    int me, npes, next, prev;
    size_t len = MAXSZ + 3 * PAD + 4096;
    unsigned char *sym_src, *sym_dst, *loc_src, *loc_dst;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me - 1 + npes) % npes;
    sym_src = shmem_malloc(len);
    sym_dst = shmem_malloc(len);
    loc_src = malloc(len);
    loc_dst = malloc(len);
    CHECK(sym_src && sym_dst && loc_src && loc_dst, "allocation failed");
    offsets[NOFFS - 1][1] = ((uintptr_t)sym_dst - (uintptr_t)loc_src - NEAR) & 4095;

    for (size_t s = 0; s < NSIZES; s++)
        for (size_t o = 0; o < NOFFS; o++) {
            int call = (int)(s * NOFFS + o);
            size_t n = sizes[s], doff = offsets[o][0], soff = offsets[o][1];

            /* Put: own local source into the next PE's sym_dst. */
            memset(sym_dst, GUARD, len);
            for (size_t i = 0; i < n; i++)
                loc_src[PAD + soff + i] = byte_of(me, call, i);
            shmem_barrier_all();
            shmem_putmem(sym_dst + PAD + doff, loc_src + PAD + soff, n, next);
            shmem_barrier_all();
            check_range(sym_dst, doff, n, prev, call, "put");

            /* Get: the next PE's sym_src into own local dest. */
            for (size_t i = 0; i < n; i++)
                sym_src[PAD + soff + i] = byte_of(me, call, i);
            memset(loc_dst, GUARD, len);
            shmem_barrier_all();
            shmem_getmem(loc_dst + PAD + doff, sym_src + PAD + soff, n, next);
            check_range(loc_dst, doff, n, next, call, "get");
            shmem_barrier_all();
        }

    free(loc_dst);
    free(loc_src);
    shmem_free(sym_dst);
    shmem_free(sym_src);
    return check_finish();
}
