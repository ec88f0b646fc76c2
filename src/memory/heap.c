/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/heap.c — the symmetric heap segment and the exchange that maps
 * every node-local peer's heap and data into this process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/env.h"
#include "base/profile.h"
#include "bootstrap/bootstrap.h"
#include "memory/ctrl.h"
#include "memory/heap.h"
#include "memory/map.h"
#include "base/world.h"

/* What a PE publishes about itself. */
struct seg_card {
    struct shmemi_segment_ref heap, data;
    uint64_t symmetric_size; /* SHMEM_SYMMETRIC_SIZE */
    uint64_t heap_size;      /* whole segment: control region, team pool, heap */
    uint64_t ctrl_size;      /* control region and team pool */
    uint64_t data_size; /* 0 when globals are not exposed */
    uint32_t profiling; /* SHMEM_PROFILE on: its report at finalize is collective */
};

#define CARD_KEY "shoal.segments"

/* Of a peer's heap segment, this much of the heap is mapped at first;
 * mappings then at least double as the high-water mark passes them, so a
 * heap that ends at size S was remapped about log2(S / 2 MiB) times. */
#define PEER_HEAP_VIEW_MIN ((size_t)2 << 20)

struct shmemi_map shmemi_map = {
    .heap_seg = {.fd = -1},
    .data_seg = {.fd = -1},
};

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* Alignment of the user heap's address: 1 GiB, or more for a bigger heap
 * (the next power of two), so any alignment a block of it can have. */
static size_t heap_base_alignment(size_t user_size)
{
    size_t a = SHMEMI_HEAP_MIN_BASE_ALIGN;

    while (a < user_size && a <= SIZE_MAX / 4)
        a <<= 1;
    return a;
}

/* Reserve `len` bytes of address space (PROT_NONE, no memory) starting
 * `lead` bytes before an `align`-aligned address, by over-reserving and
 * releasing the slack on both sides. The caller maps over it MAP_FIXED. */
static void *reserve_aligned(size_t len, size_t lead, size_t align, const char *routine)
{
    size_t span = len + align;
    char *r, *start, *end;

    /* First without the slack, which under ulimit -v may not fit: where
     * the kernel put `len`, the aligned start just below is likely free
     * too (mappings are placed top-down). */
    r = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r != MAP_FAILED) {
        munmap(r, len);
        start = (char *)((((uintptr_t)r + lead) & ~(uintptr_t)(align - 1)) - lead);
        if ((uintptr_t)start + lead >= (uintptr_t)lead) {
            char *q = mmap(start, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                           -1, 0);
            if (q == start)
                return start;
            if (q != MAP_FAILED) /* a kernel before 4.17 took it as a hint */
                munmap(q, len);
        }
    }
    r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (r == MAP_FAILED)
        shmemi_fatal(routine, "cannot reserve %zu bytes of address space for the symmetric heap: %s%s", span,
                     strerror(errno), shmemi_address_limit_hint(errno));
    start = (char *)((((uintptr_t)r + lead + align - 1) & ~(uintptr_t)(align - 1)) - lead);
    end = start + len;
    if (start > r)
        munmap(r, (size_t)(start - r));
    if (r + span > end)
        munmap(end, (size_t)(r + span - end));
    return start;
}

void shmemi_heap_create(size_t user_size, size_t pool_size, const char *routine)
{
    size_t pg = page_size(), align, ctrl;
    void *at;

    user_size = (user_size + pg - 1) / pg * pg;
    ctrl = SHMEMI_CTRL_SIZE + (pool_size + pg - 1) / pg * pg;
    /* The user heap's address, not just its offset, is aligned to every
     * power of two up to `align`, alike on every PE: shmem_align promises
     * the address, and offsets stay symmetric. The control region and the
     * team pool sit before it, so that a peer's mapping of the low end of
     * the segment (below the high-water mark) covers all it must reach. */
    align = heap_base_alignment(user_size);
    at = reserve_aligned(ctrl + user_size, ctrl, align, routine);
    /* The control region and the pool are written by peers at any time:
     * backed from the start. The heap is backed as allocations reach it. */
    shmemi_segment_create(&shmemi_map.heap_seg, ctrl + user_size, at, ctrl, routine);
    shmemi_map.heap_base_align = align;
    shmemi_map.seg_base[SHMEMI_SEG_CTRL] = (uintptr_t)shmemi_map.heap_seg.base;
    shmemi_map.seg_size[SHMEMI_SEG_CTRL] = ctrl;
    shmemi_map.seg_base[SHMEMI_SEG_HEAP] = (uintptr_t)shmemi_map.heap_seg.base + ctrl;
    shmemi_map.seg_size[SHMEMI_SEG_HEAP] = user_size;
}

static char **peer_array(int n, const char *routine)
{
    char **a = calloc((size_t)n, sizeof(char *));
    if (!a)
        shmemi_fatal(routine, "out of memory");
    return a;
}

/* Settings every PE must share, or the job would hang or misread memory
 * later; checked against each node-local peer and against PE 0. */
static void check_alike(const struct seg_card *mine, const struct seg_card *theirs, int pe, const char *routine)
{
    if (theirs->symmetric_size != mine->symmetric_size)
        shmemi_fatal(routine, "SHMEM_SYMMETRIC_SIZE is %llu bytes on PE %d and %llu on this PE: "
                     "set it alike on every PE", (unsigned long long)theirs->symmetric_size, pe,
                     (unsigned long long)mine->symmetric_size);
    if (theirs->heap_size != mine->heap_size || theirs->ctrl_size != mine->ctrl_size)
        shmemi_fatal(routine, "PE %d's symmetric segment has %llu bytes, this PE's %llu: "
                     "set SHMEM_SYMMETRIC_SIZE and SHMEM_TEAM_POOL_SIZE alike on every PE", pe,
                     (unsigned long long)theirs->heap_size, (unsigned long long)mine->heap_size);
    if (theirs->profiling != mine->profiling)
        shmemi_fatal(routine, "SHMEM_PROFILE is %s on PE %d and %s on this PE: set it alike on every PE "
                     "(its report at shmem_finalize takes every PE)", theirs->profiling ? "on" : "off", pe,
                     mine->profiling ? "on" : "off");
}

/* Bytes of a peer's heap segment to map for heap offsets below `end`. */
static size_t peer_view_for(size_t end)
{
    size_t heap = shmemi_map.seg_size[SHMEMI_SEG_HEAP], want = PEER_HEAP_VIEW_MIN, pg = page_size();

    while (want < end && want < heap)
        want <<= 1;
    if (want > heap)
        want = (heap + pg - 1) / pg * pg;
    return shmemi_map.seg_size[SHMEMI_SEG_CTRL] + want;
}

static void set_peer(int pe, char *view, char *data)
{
    __atomic_store_n(&shmemi_map.peer_base[SHMEMI_SEG_CTRL][pe], view, __ATOMIC_RELAXED);
    __atomic_store_n(&shmemi_map.peer_base[SHMEMI_SEG_HEAP][pe], view ? view + shmemi_map.seg_size[SHMEMI_SEG_CTRL]
                                                                       : NULL, __ATOMIC_RELAXED);
    if (data)
        shmemi_map.peer_base[SHMEMI_SEG_DATA][pe] = data;
}

void shmemi_segments_exchange(const struct shmemi_boot_info *bi, const char *routine)
{
    struct shmemi_world *w = &shmemi_world;
    struct seg_card mine = {0}, theirs;
    size_t view = peer_view_for(0);

    shmemi_segment_ref(&shmemi_map.heap_seg, &mine.heap);
    if (shmemi_map.seg_size[SHMEMI_SEG_DATA])
        shmemi_segment_ref(&shmemi_map.data_seg, &mine.data);
    mine.symmetric_size = shmemi_settings.symmetric_size;
    mine.heap_size = shmemi_map.heap_seg.size;
    mine.ctrl_size = shmemi_map.seg_size[SHMEMI_SEG_CTRL];
    mine.data_size = shmemi_map.seg_size[SHMEMI_SEG_DATA];
    mine.profiling = shmemi_settings.profile.mode != SHMEMI_PROF_OFF;
    shmemi_boot_put(CARD_KEY, &mine, sizeof mine, routine);
    shmemi_boot_exchange(routine);
    shmemi_init_phase("pmix_fence");

    for (int s = 0; s < SHMEMI_SEG_COUNT; s++)
        shmemi_map.peer_base[s] = peer_array(w->n_pes, routine);
    shmemi_map.peer_view = view;

    for (int i = 0; i < bi->n_local; i++) {
        int pe = bi->local_pes[i];
        char *heap, *data = NULL;

        if (pe == w->my_pe) {
            heap = shmemi_map.heap_seg.base;
            data = (char *)shmemi_map.seg_base[SHMEMI_SEG_DATA];
        } else {
            shmemi_boot_get(pe, CARD_KEY, &theirs, sizeof theirs, routine);
            check_alike(&mine, &theirs, pe, routine);
            /* The part below the heap's high-water mark (none yet):
             * shmemi_heap_reach maps more as allocations grow. */
            heap = shmemi_segment_attach(&theirs.heap, view, pe, routine);
            /* Globals are symmetric only between copies of one program. */
            if (mine.data_size && theirs.data_size == mine.data_size)
                data = shmemi_segment_attach(&theirs.data, theirs.data_size, pe, routine);
        }
        set_peer(pe, heap, data);
    }
    /* Every PE is compared with PE 0 as well: above when it shares the
     * node (local_pes is ascending), here when it does not. */
    if (bi->local_pes[0] != 0) {
        shmemi_boot_get(0, CARD_KEY, &theirs, sizeof theirs, routine);
        check_alike(&mine, &theirs, 0, routine);
    }
}

void shmemi_segments_seal(void)
{
    /* A POSIX heap keeps its fd: fallocate backs the heap as it fills. */
    shmemi_segment_seal(&shmemi_map.heap_seg, shmemi_map.heap_seg.backing == SHMEMI_BACKING_POSIX);
    shmemi_segment_seal(&shmemi_map.data_seg, 0);
}

/* Keep a replaced mapping until finalize: a thread may still be copying
 * through it (it maps the same memory, so what it does stays right). */
static int retire(void *addr, size_t len)
{
    struct shmemi_view *r = realloc(shmemi_map.retired, (shmemi_map.n_retired + 1) * sizeof *r);

    if (!r)
        return -1;
    r[shmemi_map.n_retired++] = (struct shmemi_view){addr, len};
    shmemi_map.retired = r;
    return 0;
}

int shmemi_heap_reach(size_t end, const char *routine)
{
    struct shmemi_world *w = &shmemi_world;
    size_t view, old = shmemi_map.peer_view;
    int moved = 0;

    if (shmemi_segment_reserve(&shmemi_map.heap_seg, shmemi_map.seg_size[SHMEMI_SEG_CTRL] + end) != 0)
        shmemi_fatal(routine, "cannot back %zu bytes of the symmetric heap in /dev/shm (%s): %s", end,
                     strerror(errno), shmemi_segment_full_hint());
    if (!shmemi_map.peer_base[SHMEMI_SEG_CTRL] || shmemi_map.seg_size[SHMEMI_SEG_CTRL] + end <= old)
        return 0;
    view = peer_view_for(end);
    for (int pe = 0; pe < w->n_pes; pe++) {
        char *p = shmemi_map.peer_base[SHMEMI_SEG_CTRL][pe], *q;

        if (!p || pe == w->my_pe)
            continue;
        /* In place when the addresses after it are free; else a second,
         * larger mapping of the same memory elsewhere (old size 0: a
         * duplicate), and the old one stays. */
        q = mremap(p, old, view, 0);
        if (q == MAP_FAILED) {
            q = mremap(p, 0, view, MREMAP_MAYMOVE);
            if (q == MAP_FAILED || retire(p, old) != 0)
                shmemi_fatal(routine, "cannot map %zu bytes of PE %d's heap: %s%s", view, pe, strerror(errno),
                             shmemi_address_limit_hint(errno));
            set_peer(pe, q, NULL);
            moved = 1;
        }
    }
    shmemi_map.peer_view = view;
    return moved;
}

void shmemi_segments_release(void)
{
    struct shmemi_world *w = &shmemi_world;

    for (int pe = 0; pe < w->n_pes && shmemi_map.peer_base[SHMEMI_SEG_CTRL]; pe++) {
        if (pe == w->my_pe)
            continue;
        if (shmemi_map.peer_base[SHMEMI_SEG_CTRL][pe])
            munmap(shmemi_map.peer_base[SHMEMI_SEG_CTRL][pe], shmemi_map.peer_view);
        if (shmemi_map.peer_base[SHMEMI_SEG_DATA][pe])
            munmap(shmemi_map.peer_base[SHMEMI_SEG_DATA][pe], shmemi_map.seg_size[SHMEMI_SEG_DATA]);
    }
    for (int i = 0; i < shmemi_map.n_retired; i++)
        munmap(shmemi_map.retired[i].addr, shmemi_map.retired[i].len);
    free(shmemi_map.retired);
    shmemi_map.retired = NULL;
    shmemi_map.n_retired = 0;
    shmemi_map.peer_view = 0;
    for (int s = 0; s < SHMEMI_SEG_COUNT; s++) {
        free(shmemi_map.peer_base[s]);
        shmemi_map.peer_base[s] = NULL;
    }
    if (shmemi_map.heap_seg.base)
        munmap(shmemi_map.heap_seg.base, shmemi_map.heap_seg.size);
    shmemi_segment_close(&shmemi_map.heap_seg);
    shmemi_map.heap_seg.base = NULL;
    shmemi_map.seg_base[SHMEMI_SEG_HEAP] = shmemi_map.seg_base[SHMEMI_SEG_CTRL] = 0;
    shmemi_map.seg_size[SHMEMI_SEG_HEAP] = shmemi_map.seg_size[SHMEMI_SEG_CTRL] = 0;
    shmemi_map.heap_base_align = 0;
    /* The data mapping now backs the program's globals: keep it, but it
     * is no longer symmetric. */
    shmemi_map.seg_base[SHMEMI_SEG_DATA] = 0;
    shmemi_map.seg_size[SHMEMI_SEG_DATA] = 0;
}
