/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/copy.c — which copy a node-local put or get of n bytes takes (see
 * copy.h): the streaming copy and from what size, and the timed choice
 * between memcpy and the CPU's string copy below that.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/copy.h"
#include "base/profile.h"
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

/* The CPU's own string copy. glibc's memcpy takes it only up to a bound
 * of its own (on AMD, the L2's size), past which Zen 5 copies 1-3 MiB
 * about 20% faster with it; other sizes and CPUs differ, hence timing. */
static void copy_string(void *d, const void *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
#define HAVE_STRING_COPY 1

static int have_avx2;

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

/* ---- A destination 1-63 bytes past the source modulo 4 KiB (shoal/fast.h) ----
 * AMD's string copy (rep movsb, glibc's memcpy from 2 KiB) runs such a
 * copy 1.3-1.7 times slower than the same copy at any other distance:
 * each load finds a store just issued to an address with the same low 12
 * bits. These loops load each block before storing the one before it, so
 * no load waits on a store to its alias (up to 128 bytes apart), and store
 * to aligned lines. While source and destination fit in the L1 together
 * they copy 4-16 KiB in 0.70-0.93 of memcpy's time at a good distance
 * (rep movsb's: 1.26-1.43); beyond, every store first reads its line from
 * the L2, which rep movsb skips, and both copies run 1.4-1.8 times that
 * time, so memcpy stays. Callers give at least SHMEMI_FAST_NEAR_MIN bytes
 * and never overlapping ranges (the first and last vectors are stored
 * over the aligned ones). */
__attribute__((target("avx2"))) static void near_avx2(char *d, const char *s, size_t n)
{
    char *end = d + n;
    size_t head = (size_t)(-(uintptr_t)d & 31), blocks, i;
    __m256i first = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i last = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
    __m256i a0, a1, a2, a3;

    d += head, s += head, n -= head;
    blocks = n / 128;
#define LOAD4(p)                                                                                                       \
    (a0 = _mm256_loadu_si256((const __m256i *)(const void *)(p)),                                                       \
     a1 = _mm256_loadu_si256((const __m256i *)(const void *)((p) + 32)),                                                \
     a2 = _mm256_loadu_si256((const __m256i *)(const void *)((p) + 64)),                                                \
     a3 = _mm256_loadu_si256((const __m256i *)(const void *)((p) + 96)))
    LOAD4(s);
    for (i = 128; i < blocks * 128; i += 128) {
        __m256i b0 = a0, b1 = a1, b2 = a2, b3 = a3;

        LOAD4(s + i);
        _mm256_store_si256((__m256i *)(void *)(d + i - 128), b0);
        _mm256_store_si256((__m256i *)(void *)(d + i - 96), b1);
        _mm256_store_si256((__m256i *)(void *)(d + i - 64), b2);
        _mm256_store_si256((__m256i *)(void *)(d + i - 32), b3);
    }
#undef LOAD4
    _mm256_store_si256((__m256i *)(void *)(d + i - 128), a0);
    _mm256_store_si256((__m256i *)(void *)(d + i - 96), a1);
    _mm256_store_si256((__m256i *)(void *)(d + i - 64), a2);
    _mm256_store_si256((__m256i *)(void *)(d + i - 32), a3);
    for (; i + 32 <= n; i += 32)
        _mm256_store_si256((__m256i *)(void *)(d + i), _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    _mm256_storeu_si256((__m256i *)(void *)(end - 32), last);
    _mm256_storeu_si256((__m256i *)(void *)(d - head), first);
}

/* The same with 64-byte vectors: a store a line. Only on AMD's cores
 * (Zen 4 and 5), which run them at full clock; 4-16 KiB in 0.70-0.85 of
 * memcpy's time. */
__attribute__((target("avx512f"))) static void near_avx512(char *d, const char *s, size_t n)
{
    char *end = d + n;
    size_t head = (size_t)(-(uintptr_t)d & 63), blocks, i;
    __m512i first = _mm512_loadu_si512((const void *)s);
    __m512i last = _mm512_loadu_si512((const void *)(s + n - 64));
    __m512i a0, a1, a2, a3;

    d += head, s += head, n -= head;
    blocks = n / 256;
#define LOAD4(p)                                                                                                       \
    (a0 = _mm512_loadu_si512((const void *)(p)), a1 = _mm512_loadu_si512((const void *)((p) + 64)),                   \
     a2 = _mm512_loadu_si512((const void *)((p) + 128)), a3 = _mm512_loadu_si512((const void *)((p) + 192)))
    LOAD4(s);
    for (i = 256; i < blocks * 256; i += 256) {
        __m512i b0 = a0, b1 = a1, b2 = a2, b3 = a3;

        LOAD4(s + i);
        _mm512_store_si512((void *)(d + i - 256), b0);
        _mm512_store_si512((void *)(d + i - 192), b1);
        _mm512_store_si512((void *)(d + i - 128), b2);
        _mm512_store_si512((void *)(d + i - 64), b3);
    }
#undef LOAD4
    _mm512_store_si512((void *)(d + i - 256), a0);
    _mm512_store_si512((void *)(d + i - 192), a1);
    _mm512_store_si512((void *)(d + i - 128), a2);
    _mm512_store_si512((void *)(d + i - 64), a3);
    for (; i + 64 <= n; i += 64)
        _mm512_store_si512((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
    _mm512_storeu_si512((void *)(end - 64), last);
    _mm512_storeu_si512((void *)(d - head), first);
}

enum near_copy { NEAR_MEMCPY, NEAR_AVX2, NEAR_AVX512 };

/* Which loop, on AMD's cores only (elsewhere the string copy has no such
 * distance, and memcpy stays), and up to what size: half the L1. */
static int near_look(size_t *max)
{
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    int k = NEAR_MEMCPY;

    __builtin_cpu_init();
    if (__builtin_cpu_is("amd"))
        k = __builtin_cpu_supports("avx512f") ? NEAR_AVX512 : __builtin_cpu_supports("avx2") ? NEAR_AVX2 : NEAR_MEMCPY;
    *max = l1 > 0 ? (size_t)l1 / 2 : (size_t)16 << 10;
    return k;
}
#define HAVE_NEAR_COPY 1

#else

#define HAVE_STRING_COPY 0
#define HAVE_NEAR_COPY 0

static void copy_string(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
}

void shmemi_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif

/* shoal/fast.h: the inline get paths call it too. */
__attribute__((visibility("default"))) void shmemi_copy_near(void *dst, const void *src, size_t n)
{
#if HAVE_NEAR_COPY
    /* -1: not looked yet; a race looks twice and finds the same. */
    static int kind = -1;
    static size_t max;
    int k = __atomic_load_n(&kind, __ATOMIC_ACQUIRE);

    if (k < 0) {
        size_t m;

        k = near_look(&m);
        __atomic_store_n(&max, m, __ATOMIC_RELAXED);
        __atomic_store_n(&kind, k, __ATOMIC_RELEASE);
    }
    if (n >= SHMEMI_FAST_NEAR_MIN && n <= __atomic_load_n(&max, __ATOMIC_RELAXED)) {
        if (k == NEAR_AVX512) {
            near_avx512(dst, src, n);
            return;
        }
        if (k == NEAR_AVX2) {
            near_avx2(dst, src, n);
            return;
        }
    }
#endif
    memcpy(dst, src, n);
}

/* The rule, computed once from the cache sizes and the node's PE count. */
struct copy_rule {
    size_t stream_min; /* from here, streaming stores (SIZE_MAX: never) */
    size_t timed_min;  /* from here below stream_min, the timed choice */
    int string;        /* SHOAL_COPY_STRING: -1 time it, 0 never, 1 always */
};
static struct copy_rule rule_kept;
static int rule_state; /* 0: not kept; 1: being written; 2: kept */

static struct copy_rule copy_rule(void)
{
    struct copy_rule r;
    long l2, llc;
    int pes = shmemi_world.n_local_all, none = 0;
    const char *o;

    if (__atomic_load_n(&rule_state, __ATOMIC_ACQUIRE) == 2)
        return rule_kept;
    cache_sizes(&l2, &llc);
#if defined(__x86_64__)
    __builtin_cpu_init();
    __atomic_store_n(&have_avx2, __builtin_cpu_supports("avx2"), __ATOMIC_RELAXED);
    r.stream_min = shmemi_copy_stream_min_for(l2, llc, pes);
#else
    r.stream_min = SIZE_MAX;
#endif
    r.timed_min = l2 > (long)SHMEMI_COPY_LARGE_MIN ? (size_t)l2 : SHMEMI_COPY_LARGE_MIN;
    o = getenv("SHOAL_COPY_STRING");
    r.string = !HAVE_STRING_COPY ? 0 : o && *o == '1' ? 1 : o && *o == '0' ? 0 : -1;
    /* Keep it once the node's PEs are counted (not for a copy inside
     * shmem_init); the first thread to get here writes it. */
    if (pes > 0 && __atomic_compare_exchange_n(&rule_state, &none, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        rule_kept = r;
        __atomic_store_n(&rule_state, 2, __ATOMIC_RELEASE);
    }
    return r;
}

size_t shmemi_copy_stream_min(void)
{
    return copy_rule().stream_min;
}

/* The timed choice. Size classes double from timed_min (the last one
 * open-ended); in each, a PE's first copies run in blocks, memcpy,
 * string copy, memcpy, string copy, each block's first copy untimed, and
 * it keeps the string copy only if its fastest copy was at least 10%
 * faster per byte than memcpy's. Blocks, not alternate copies: a string
 * copy of a few MiB leaves the cache in a state the next memcpy pays for
 * (at 4 MiB, alternate copies timed memcpy 15-30% slower than it runs on
 * its own, and so picked the slower copy). The fastest is taken, so a PE
 * preempted mid-copy does not decide. */
enum copy_method { COPY_MEMCPY, COPY_STRING };
#define TIMED_CLASSES 8
#define TIMED_BLOCK 4
#define TIMED_COPIES (4 * TIMED_BLOCK)

static struct timed_class {
    unsigned copies;   /* copies begun while undecided */
    uint64_t best[2];  /* fastest copy by each method, ns a MiB; 0: none */
    int kept;          /* 0: undecided; else 1 + the method kept */
} timed[TIMED_CLASSES];

static void copy_by(enum copy_method m, void *dst, const void *src, size_t n)
{
    if (m == COPY_STRING)
        copy_string(dst, src, n);
    else
        memcpy(dst, src, n);
}

static void copy_timed(struct timed_class *c, void *dst, const void *src, size_t n)
{
    int kept = __atomic_load_n(&c->kept, __ATOMIC_RELAXED);
    unsigned i;
    enum copy_method m;
    uint64_t t0, cost, best;

    if (kept) {
        copy_by((enum copy_method)(kept - 1), dst, src, n);
        return;
    }
    i = __atomic_fetch_add(&c->copies, 1, __ATOMIC_RELAXED);
    m = (i / TIMED_BLOCK) & 1 ? COPY_STRING : COPY_MEMCPY;
    t0 = shmemi_now_ns();
    copy_by(m, dst, src, n);
    cost = ((shmemi_now_ns() - t0) << 20) / n + 1;
    if (i % TIMED_BLOCK == 0 || i >= TIMED_COPIES)
        return;
    best = __atomic_load_n(&c->best[m], __ATOMIC_RELAXED);
    while ((!best || cost < best) &&
           !__atomic_compare_exchange_n(&c->best[m], &best, cost, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    if (i + 1 == TIMED_COPIES) {
        uint64_t b_mem = __atomic_load_n(&c->best[COPY_MEMCPY], __ATOMIC_RELAXED);
        uint64_t b_str = __atomic_load_n(&c->best[COPY_STRING], __ATOMIC_RELAXED);

        m = b_mem && b_str && b_str * 10 < b_mem * 9 ? COPY_STRING : COPY_MEMCPY;
        __atomic_store_n(&c->kept, 1 + (int)m, __ATOMIC_RELAXED);
    }
}

void shmemi_copy_large(void *dst, const void *src, size_t n)
{
    const struct copy_rule rule = copy_rule(), *r = &rule;
    size_t k = 0;

    if (n >= r->stream_min) {
        shmemi_copy_stream(dst, src, n);
        return;
    }
    if (n < r->timed_min || r->string == 0) {
        memcpy(dst, src, n);
        return;
    }
    if (r->string == 1) {
        copy_string(dst, src, n);
        return;
    }
    while (k + 1 < TIMED_CLASSES && n >> (k + 1) >= r->timed_min)
        k++;
    copy_timed(&timed[k], dst, src, n);
}

void shmemi_copy_print(FILE *f)
{
    const struct copy_rule rule = copy_rule(), *r = &rule;
    long l2, llc;

    cache_sizes(&l2, &llc);
    if (r->stream_min == SIZE_MAX)
        fprintf(f, "Node-local copies: memcpy (no streaming stores here)\n");
    else
        fprintf(f, "Node-local copies: streaming stores from %zu bytes (L2 %ld, last-level cache %ld, %d PE%s)\n",
                r->stream_min, l2, llc, shmemi_world.n_local_all, shmemi_world.n_local_all == 1 ? "" : "s");
    if (r->timed_min >= r->stream_min || !HAVE_STRING_COPY)
        return;
    if (r->string < 0)
        fprintf(f, "Node-local copies from %zu bytes below that: memcpy or rep movsb, timed on each PE's first copies "
                   "of each size (SHOAL_COPY_STRING=0 or 1 sets one)\n", r->timed_min);
    else
        fprintf(f, "Node-local copies from %zu bytes below that: %s (SHOAL_COPY_STRING=%d)\n", r->timed_min,
                r->string ? "rep movsb" : "memcpy", r->string);
}

void shmemi_copy_print_timed(FILE *f)
{
    const struct copy_rule rule = copy_rule(), *r = &rule;

    for (int k = 0; k < TIMED_CLASSES; k++) {
        const struct timed_class *c = &timed[k];
        int kept = __atomic_load_n(&c->kept, __ATOMIC_RELAXED);

        if (!kept)
            continue;
        size_t lo = r->timed_min << k, hi = (r->timed_min << (k + 1)) - 1;

        if (k + 1 < TIMED_CLASSES)
            fprintf(f, "Node-local copies of %zu to %zu bytes: ", lo, hi < r->stream_min ? hi : r->stream_min - 1);
        else
            fprintf(f, "Node-local copies of %zu bytes and up: ", lo);
        fprintf(f, "%s kept (fastest %.1f us a MiB, %s %.1f)\n", kept - 1 == COPY_STRING ? "rep movsb" : "memcpy",
                (double)__atomic_load_n(&c->best[kept - 1], __ATOMIC_RELAXED) / 1000,
                kept - 1 == COPY_STRING ? "memcpy" : "rep movsb",
                (double)__atomic_load_n(&c->best[2 - kept], __ATOMIC_RELAXED) / 1000);
    }
}
