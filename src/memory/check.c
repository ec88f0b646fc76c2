/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/check.c — the SHMEM_DEBUG check that an argument is symmetric,
 * and the report shared with shmemi_sym_ref (memory/addr.h).
 */
#include "memory/addr.h"

void shmemi_fatal_not_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    if (!addr)
        shmemi_fatal(routine, "%s is NULL (a symmetric address is needed)", arg);
    if (shmemi_sym_lookup(addr, 1, &off) >= 0)
        shmemi_fatal(routine, "%s %p is not a symmetric address (%zu bytes from it run past the end of "
                     "its symmetric segment)", arg, addr, len);
    shmemi_fatal(routine, "%s %p is not a symmetric address", arg, addr);
}

void shmemi_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    /* An empty range names no memory (nelems 0 with any pointer is allowed). */
    if (len && shmemi_sym_lookup(addr, len, &off) < 0)
        shmemi_fatal_not_symmetric(routine, arg, addr, len);
}
