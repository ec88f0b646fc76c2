/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/check.c — the argument checks the bindings call that need nothing
 * but the world: a compare or two. Checks of handles and addresses live
 * with what they check (team/check.c, memory/check.c).
 */
#include "base/world.h"

void shmemi_check_init(const char *routine)
{
    if (__builtin_expect(shmemi_world.init_count <= 0, 0))
        shmemi_fatal(routine, "called before shmem_init (or after the last shmem_finalize)");
}

void shmemi_fatal_pe(const char *routine, int pe, int size)
{
    /* Before init every team is empty: say what is really wrong. */
    shmemi_check_init(routine);
    shmemi_fatal(routine, "pe %d out of range [0, %d)", pe, size);
}

void shmemi_fatal_count(const char *routine, const char *arg, size_t count, size_t elem)
{
    if ((ptrdiff_t)count < 0)
        shmemi_fatal(routine, "%s %zu (%td as a signed value) is too large: a negative count?", arg, count,
                     (ptrdiff_t)count);
    shmemi_fatal(routine, "%s %zu is too large: %zu-byte elements overflow the address space", arg, count, elem);
}

void shmemi_fatal_null(const char *routine, const char *arg)
{
    shmemi_fatal(routine, "%s is NULL", arg);
}

void shmemi_check_aligned(const char *routine, const char *arg, const void *addr, size_t align)
{
    if (align && (uintptr_t)addr % align)
        shmemi_fatal(routine, "%s %p is not aligned to %zu bytes", arg, addr, align);
}

void shmemi_check_array(const char *routine, const char *arg, const void *p, const char *count_arg, size_t count)
{
    if (!p && count)
        shmemi_fatal(routine, "%s is NULL with %s %zu", arg, count_arg, count);
}

void shmemi_check_cmp(const char *routine, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_fatal(routine, "cmp %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", cmp);
}

const char *shmemi_cmp_symbol(int cmp)
{
    static const char *const symbol[] = {[SHMEM_CMP_EQ] = "==", [SHMEM_CMP_NE] = "!=", [SHMEM_CMP_GT] = ">",
                                         [SHMEM_CMP_GE] = ">=", [SHMEM_CMP_LT] = "<", [SHMEM_CMP_LE] = "<="};

    return cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE ? symbol[cmp] : "?";
}

/* Before any data moves, so a bad call has no effect at the target. */
void shmemi_check_sig_op(const char *routine, int sig_op)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal(routine, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
}
