/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/describe.c — a symmetric address in the program's own terms, for
 * reports (the hang report): a global by its name in the executable's
 * symbol table, a heap object by its offset in its allocation. Only called
 * to report, so it may read /proc/self/exe.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memory/addr.h"
#include "memory/alloc.h"
#include "memory/describe.h"

/* ELF32_ST_TYPE and ELF64_ST_TYPE are the same low four bits. */
#define SYM_TYPE(info) ((info)&0xf)

static int main_program_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = info->dlpi_addr;
    return 1; /* the first object is the main program */
}

/* The symbol of the executable holding `addr` (file-scope statics too:
 * .symtab, else .dynsym): its name and the offset of addr in it. */
static int exe_symbol(uintptr_t addr, char *name, size_t len, size_t *offset)
{
    ElfW(Ehdr) eh;
    ElfW(Shdr) *sh = NULL;
    ElfW(Sym) chunk[256];
    uintptr_t bias = 0;
    size_t best_off = 0, best_name = 0;
    int fd, found = 0, tab = -1;

    dl_iterate_phdr(main_program_bias, &bias);
    fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_shentsize != sizeof *sh || !eh.e_shnum)
        goto out;
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) != (ssize_t)(eh.e_shnum * sizeof *sh))
        goto out;
    for (int i = 0; i < eh.e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && tab < 0))
            tab = i;
    if (tab < 0 || sh[tab].sh_link >= eh.e_shnum)
        goto out;
    for (size_t at = 0, n = sh[tab].sh_size / sizeof chunk[0]; at < n;) {
        size_t k = n - at < 256 ? n - at : 256;
        if (pread(fd, chunk, k * sizeof chunk[0], (off_t)(sh[tab].sh_offset + at * sizeof chunk[0])) !=
            (ssize_t)(k * sizeof chunk[0]))
            goto out;
        for (size_t i = 0; i < k; i++) {
            const ElfW(Sym) *s = &chunk[i];
            uintptr_t v = bias + s->st_value;
            size_t size = s->st_size ? s->st_size : 1;

            if (SYM_TYPE(s->st_info) != STT_OBJECT || s->st_shndx == SHN_UNDEF || !s->st_name)
                continue;
            if (addr - v < size) {
                found = 1;
                best_off = addr - v;
                best_name = s->st_name;
                break;
            }
        }
        if (found)
            break;
        at += k;
    }
    if (found) {
        ssize_t got = pread(fd, name, len - 1, (off_t)(sh[sh[tab].sh_link].sh_offset + best_name));
        name[got > 0 ? (size_t)got : 0] = '\0';
        *offset = best_off;
        found = name[0] != '\0';
    }
out:
    free(sh);
    close(fd);
    return found ? 0 : -1;
}

void shmemi_describe_addr(const void *addr, char *buf, size_t len)
{
    size_t off, start, size;
    char name[128];
    int seg = shmemi_sym_lookup(addr, 1, &off);

    if (seg == SHMEMI_SEG_HEAP && (size = shmemi_alloc_block_of(off, &start)) != 0) {
        snprintf(buf, len, "offset %zu of a %zu-byte heap allocation (heap offset %zu)", off - start, size,
                 start);
        return;
    }
    if (exe_symbol((uintptr_t)addr, name, sizeof name, &off) == 0) {
        if (off)
            snprintf(buf, len, "%s+%zu", name, off);
        else
            snprintf(buf, len, "%s", name);
        return;
    }
    if (seg == SHMEMI_SEG_DATA)
        snprintf(buf, len, "the global at data offset %zu (%p)", off, addr);
    else if (seg == SHMEMI_SEG_HEAP)
        snprintf(buf, len, "heap offset %zu, in no allocation (%p)", off, addr);
    else
        snprintf(buf, len, "%p", addr);
}
