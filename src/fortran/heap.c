/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fortran/heap.c — SHPALLOC, SHPDEALLC and SHPCLMOVE: the symmetric heap
 * for Cray pointers. Lengths are in 32-bit words. The error codes are the
 * 1.4 spec's: -1 bad length, -2 no memory, -3 address outside the heap,
 * -4 no live block starts at the address (freed already, or never the
 * start of one: the allocator cannot tell the spec's -4 from -5 apart).
 * A nonzero `abort` turns an error into the end of the job.
 * Errors are found before any communication, and alike on every PE when
 * the call is symmetric as the spec requires, so no PE is left waiting.
 */
#include "memory/addr.h"
#include "memory/alloc.h"
#include "shmemi_fortran.h"

#define WORD 4 /* SHPALLOC's unit: 32 bits */

static const char *const why[] = {
    "",
    "length is not an integer greater than 0",
    "no more memory is available in the symmetric heap",
    "the address is outside the symmetric heap",
    "no live block starts at the address",
};

static int fail(const char *routine, shmemi_fint code, shmemi_fint *out, const shmemi_fint *abort_on_error)
{
    if (*abort_on_error)
        shmemi_fatal(routine, "error %d: %s", (int)code, why[-code]);
    *out = code;
    return (int)code;
}

/* 0, or the error code of an address that is not the start of a live block. */
static shmemi_fint block_error(const void *addr)
{
    size_t off;

    if (shmemi_sym_lookup(addr, 1, &off) != SHMEMI_SEG_HEAP)
        return -3;
    return shmemi_alloc_size(off) ? 0 : -4;
}

void shmemi_f_shpalloc(void **addr, const shmemi_fint *length, shmemi_fint *errcode,
                       const shmemi_fint *abort_on_error)
{
    void *p;

    shmemi_check_init("SHPALLOC");
    if (*length <= 0) {
        fail("SHPALLOC", -1, errcode, abort_on_error);
        return;
    }
    p = shmemi_malloc((size_t)*length * WORD);
    if (!p) {
        fail("SHPALLOC", -2, errcode, abort_on_error);
        return;
    }
    *addr = p;
    *errcode = 0;
}

void shmemi_f_shpdeallc(void **addr, shmemi_fint *errcode, const shmemi_fint *abort_on_error)
{
    shmemi_fint code;

    shmemi_check_init("SHPDEALLC");
    code = block_error(*addr);
    if (code) {
        fail("SHPDEALLC", code, errcode, abort_on_error);
        return;
    }
    shmemi_free(*addr);
    *errcode = 0;
}

void shmemi_f_shpclmove(void **addr, const shmemi_fint *length, shmemi_fint *status,
                        const shmemi_fint *abort_on_error)
{
    shmemi_fint code;
    void *p;

    shmemi_check_init("SHPCLMOVE");
    code = *length <= 0 ? -1 : block_error(*addr);
    if (code) {
        fail("SHPCLMOVE", code, status, abort_on_error);
        return;
    }
    p = shmemi_realloc(*addr, (size_t)*length * WORD);
    if (!p) { /* the old block stays valid */
        fail("SHPCLMOVE", -2, status, abort_on_error);
        return;
    }
    *status = p == *addr ? 0 : 1;
    *addr = p;
}
