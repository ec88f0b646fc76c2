/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/data.c — make the program's global/static data symmetric.
 *
 * The main program's writable PT_LOAD (.data + .bss, minus the part that
 * becomes read-only after relocation, PT_GNU_RELRO) is copied into a new
 * shared-memory segment that is then mapped MAP_FIXED over the original
 * range. The program keeps its addresses, its globals now live in shared
 * memory, and peers map the same segment: RMA, AMOs and shmem_ptr then
 * work on globals exactly as on the heap, with no help from the target.
 */
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memory/heap.h"
#include "memory/map.h"
#include "base/world.h"

struct writable {
    uintptr_t start, end;
    uintptr_t relro_start, relro_end;
};

static int find_main_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct writable *w = arg;
    (void)size;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !w->start) {
            w->start = a;
            w->end = a + ph->p_memsz;
        } else if (ph->p_type == PT_GNU_RELRO) {
            w->relro_start = a;
            w->relro_end = a + ph->p_memsz;
        }
    }
    return 1; /* the first object visited is the main program */
}

/* These two read whole pages, across the gaps between globals that
 * AddressSanitizer poisons as redzones, so they are exempt from its checks;
 * the volatile loads keep the copy from becoming an (intercepted) memcpy. */
__attribute__((no_sanitize_address))
static int page_is_zero(const void *p, size_t pg)
{
    const volatile uint64_t *q = p;
    for (size_t i = 0; i < pg / sizeof *q; i++)
        if (q[i])
            return 0;
    return 1;
}

__attribute__((no_sanitize_address))
static void page_copy(void *dst, const void *src, size_t pg)
{
    uint64_t *d = dst;
    const volatile uint64_t *q = src;
    for (size_t i = 0; i < pg / sizeof *q; i++)
        d[i] = q[i];
}

void shmemi_data_expose(const char *routine)
{
    struct writable w = {0};
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
    struct shmemi_segment *s = &shmemi_map.data_seg;
    size_t len;
    void *p;

    dl_iterate_phdr(find_main_program, &w);
    if (!w.start) {
        shmemi_warn(routine, "no writable data segment found; global variables are not symmetric");
        return;
    }
    lo = w.start & ~(pg - 1);
    if (w.relro_end > lo && w.relro_start < w.end)
        lo = (w.relro_end + pg - 1) & ~(pg - 1);
    hi = (w.end + pg - 1) & ~(pg - 1);
    if (hi <= lo)
        return;
    len = hi - lo;

    shmemi_segment_create(s, len, NULL, len, routine);
    /* Untouched .bss reads as zero and tmpfs starts zeroed: copying only
     * nonzero pages keeps large arrays from being committed up front. */
    for (uintptr_t a = lo; a < hi; a += pg)
        if (!page_is_zero((const void *)a, pg))
            page_copy((char *)s->base + (a - lo), (const void *)a, pg);
    /* No global may be written between the copy above and this mmap: the
     * write would be lost. (Globals of a static libshmem live here too.) */
    p = mmap((void *)lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        munmap(s->base, len);
        shmemi_segment_close(s);
        s->base = NULL;
        shmemi_warn(routine, "cannot remap the data segment (%s); global variables are not symmetric",
                    strerror(e));
        return;
    }
    /* The fd stays open until peers have opened it (the end of init). */
    munmap(s->base, len);
    s->base = p;
    s->size = len;
    shmemi_map.seg_base[SHMEMI_SEG_DATA] = lo;
    shmemi_map.seg_size[SHMEMI_SEG_DATA] = len;
}
