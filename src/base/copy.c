/*
 * base/copy.c — the streaming copy, and from what size it is used (see copy.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/copy.h"
#include "base/world.h"

/* Streaming stores skip the read of each destination line but send the
 * data to memory; a cached copy keeps it in cache. So stream only once a
 * copy's source and destination (2n bytes) no longer fit in this PE's
 * share of the last-level cache: the node's PEs copy at once and share
 * it. Where the last-level cache is the L2 (or unknown), its size is the
 * share; never below the L2, nor the inline paths' limit
 * (SHMEMI_FAST_COPY_MAX). glibc's memcpy streams from a quarter of the
 * L3, which is the same rule for 2 PEs. docs/design.md has the figures. */
size_t shmemi_copy_stream_min_for(long l2, long llc, int pes)
{
    size_t t;

    if (pes < 1)
        pes = 1;
    if (llc > l2 && llc > 0)
        t = (size_t)llc / (2 * (size_t)pes);
    else if (l2 > 0)
        t = (size_t)l2;
    else
        t = (size_t)1 << 20; /* nothing known: a common L2 size */
    if (l2 > 0 && t < (size_t)l2)
        t = (size_t)l2;
    return t > ((size_t)256 << 10) ? t : (size_t)256 << 10;
}

/* The cache sizes: SHOAL_CACHE_SIZES=L2,LLC (bytes; to check the rule on
 * other geometries) or what sysconf reports. */
static void cache_sizes(long *l2, long *llc)
{
    const char *o = getenv("SHOAL_CACHE_SIZES");
    char *end;

    if (o && *o) {
        *l2 = strtol(o, &end, 10);
        *llc = *end == ',' ? strtol(end + 1, NULL, 10) : 0;
        return;
    }
    *l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    *llc = sysconf(_SC_LEVEL4_CACHE_SIZE);
    if (*llc <= 0)
        *llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
}

#if defined(__x86_64__)
#include <immintrin.h>

/* 64 bytes (one line) per step: two 32-byte streaming stores. */
__attribute__((target("avx2"))) static void stream_avx2(char *d, const char *s, size_t lines)
{
    for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        _mm256_stream_si256((__m256i *)(void *)d, a);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
    }
}

static void stream_sse2(char *d, const char *s, size_t lines)
{
    for (size_t i = 0; i < lines; i++, d += 64, s += 64)
        for (int k = 0; k < 64; k += 16)
            _mm_stream_si128((__m128i *)(void *)(d + k), _mm_loadu_si128((const __m128i *)(const void *)(s + k)));
}

static int have_avx2;

size_t shmemi_copy_stream_min(void)
{
    static size_t min; /* 0: not computed yet; every thread computes the same */
    size_t m = __atomic_load_n(&min, __ATOMIC_RELAXED);

    if (!m) {
        long l2, llc;
        int pes = shmemi_world.n_local_all;

        __builtin_cpu_init();
        __atomic_store_n(&have_avx2, __builtin_cpu_supports("avx2"), __ATOMIC_RELAXED);
        cache_sizes(&l2, &llc);
        m = shmemi_copy_stream_min_for(l2, llc, pes);
        /* Before the node's PEs are counted (a copy inside shmem_init), do
         * not keep it. */
        if (pes > 0)
            __atomic_store_n(&min, m, __ATOMIC_RELAXED);
    }
    return m;
}

void shmemi_copy_stream(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t head = (64 - ((uintptr_t)d & 63)) & 63, lines;

    if (n < head + 64) {
        memcpy(d, s, n);
        return;
    }
    /* Align the destination to a line, so every streamed line is whole. */
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    lines = n / 64;
    if (__atomic_load_n(&have_avx2, __ATOMIC_RELAXED))
        stream_avx2(d, s, lines);
    else
        stream_sse2(d, s, lines);
    memcpy(d + lines * 64, s + lines * 64, n - lines * 64);
    /* Streaming stores are weakly ordered: fence them before whatever
     * the caller stores next. */
    _mm_sfence();
}

void shmemi_copy_print(FILE *f)
{
    long l2, llc;

    cache_sizes(&l2, &llc);
    fprintf(f, "Node-local copies: streaming stores from %zu bytes (L2 %ld, last-level cache %ld, %d PE%s)\n",
            shmemi_copy_stream_min(), l2, llc, shmemi_world.n_local_all, shmemi_world.n_local_all == 1 ? "" : "s");
}

#else

size_t shmemi_copy_stream_min(void)
{
    return SIZE_MAX;
}

void shmemi_copy_print(FILE *f)
{
    fprintf(f, "Node-local copies: memcpy (no streaming stores here)\n");
}

void shmemi_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif
