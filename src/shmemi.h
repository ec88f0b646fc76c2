/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shmemi.h — the contract between the generated bindings and the core.
 *
 * The generated bindings (build/bindings_*.c, from spec/ and templates/)
 * define every exported routine as a thin wrapper: argument checks derived
 * from the table's parameter kinds, then one call into the kernels below.
 * Typed routines collapse onto size/datatype-generic kernels, so the core
 * never sees a type name; untyped routines forward `shmem_X(args)` to
 * `shmemi_X(args)` with the same parameters (see the `forward` field in spec/).
 *
 * Every kernel that can fail takes `routine`, the user-visible name, for
 * error messages ("shoal: shmem_int_put: pe 7 out of range [0, 4)").
 */
#ifndef SHMEMI_H
#define SHMEMI_H

#include <stddef.h>
#include <stdint.h>

#include "shmemx.h" /* generated: public types and constants (and shmem.h) */
#include "shoal/fast.h"
/* Generated: the core entry points of the untyped routines (shmem_X ->
 * shmemi_X), with the public headers; their definitions see it, so the
 * compiler checks that the core and the table agree. */
#include "shmemi_forward.h"

#if defined(__GNUC__)
#define SHMEMI_NORETURN __attribute__((noreturn))
#define SHMEMI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SHMEMI_NORETURN
#define SHMEMI_PRINTF(f, a)
#endif

/* ---- datatypes: class | byte size, computed in C so the table need not
 * know the platform's integer sizes. ---- */
#define SHMEMI_DT_SINT  0x100
#define SHMEMI_DT_UINT  0x200
#define SHMEMI_DT_FLOAT 0x300
#define SHMEMI_DT_COMPLEX 0x400 /* size is the whole complex number */
#define SHMEMI_DT(cls, size) ((int)((cls) | (int)(size)))
#define SHMEMI_DT_SIZE(dt)  ((size_t)((dt)&0xff))
#define SHMEMI_DT_CLASS(dt) ((dt)&0xf00)

/* ---- AMO operations: enum shmemi_amo_op and their CPU and value
 * functions, generated from spec/ops.toml ---- */
#include "shmemi_ops.h"

/* ---- wait/test over sets (wait_until and test are the 1-element ALL) ---- */
enum shmemi_wait_mode {
    SHMEMI_WAIT_ALL,
    SHMEMI_WAIT_ANY,
    SHMEMI_WAIT_SOME,
};

/* ---- errors (base/error.c) and checks, each defined with what it checks:
 * base/check.c, team/check.c (handles), memory/check.c (addresses) ---- */
SHMEMI_NORETURN SHMEMI_PRINTF(2, 3) void shmemi_fatal(const char *routine, const char *fmt, ...);
SHMEMI_PRINTF(2, 3) void shmemi_warn(const char *routine, const char *fmt, ...);
/* The name the program called, when that is not the C routine which
 * reports: a Fortran wrapper (SHMEM_INT4_WAIT_UNTIL) sets it around the C
 * routine it calls (shmem_int32_wait_until), and errors and the hang
 * report print it instead. NULL outside a wrapper. */
extern _Thread_local __attribute__((tls_model("initial-exec"), visibility("hidden"))) const char *shmemi_called_as;
static inline const char *shmemi_as_called(const char *routine)
{
    return shmemi_called_as ? shmemi_called_as : routine;
}

/* Always-on, cheap: initialised, PE in range of the context's team. */
void shmemi_check_init(const char *routine);
void shmemi_check_ctx_pe(const char *routine, shmem_ctx_t ctx, int pe);
void shmemi_check_ctx(const char *routine, shmem_ctx_t ctx);
/* The default context's team is the world, never destroyed: in the
 * bindings that have no ctx argument this folds to a range check (before
 * shmem_init n_pes is 0, and the full check reports it). */
static inline void shmemi_check_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT && (unsigned)pe < (unsigned)shmemi_fast.n_pes, 1))
        return;
    shmemi_check_ctx_pe(routine, ctx, pe);
}
void shmemi_check_cmp(const char *routine, int cmp);
/* "==" for SHMEM_CMP_EQ, and so on (reports). */
const char *shmemi_cmp_symbol(int cmp);
void shmemi_check_sig_op(const char *routine, int sig_op);
/* pe outside [0, size) of its team: fatal (after the init check). */
SHMEMI_NORETURN void shmemi_fatal_pe(const char *routine, int pe, int size);
/* Teams: a live team (SHMEM_TEAM_INVALID is fatal), or a live team or
 * SHMEM_TEAM_INVALID where the spec defines its result. A handle that is
 * not a team or was destroyed is fatal (team/team.h: the magic word). */
void shmemi_check_team(const char *routine, const char *arg, shmem_team_t team);
void shmemi_check_team_or_invalid(const char *routine, const char *arg, shmem_team_t team);

SHMEMI_NORETURN void shmemi_fatal_count(const char *routine, const char *arg, size_t count, size_t elem);
SHMEMI_NORETURN void shmemi_fatal_null(const char *routine, const char *arg);
/* A count of `elem`-byte elements whose byte size exceeds PTRDIFF_MAX:
 * a negative int converted to size_t, or an overflowing product. One
 * compare, since the bindings pass a constant `elem`. */
static inline void shmemi_check_count(const char *routine, const char *arg, size_t count, size_t elem)
{
    if (__builtin_expect(count > (size_t)PTRDIFF_MAX / elem, 0))
        shmemi_fatal_count(routine, arg, count, elem);
}
static inline void shmemi_check_nonnegative(const char *routine, const char *arg, int value)
{
    if (__builtin_expect(value < 0, 0))
        shmemi_fatal(routine, "%s %d is negative", arg, value);
}
static inline void shmemi_check_nonnull(const char *routine, const char *arg, const void *p)
{
    if (__builtin_expect(p == NULL, 0))
        shmemi_fatal_null(routine, arg);
}

/* Under SHMEM_DEBUG only (the bindings test shmemi_debug_on()): `addr` and
 * `addr + len` lie inside one symmetric segment (heap or global data);
 * objects updated atomically are aligned to their size; local arrays of
 * `count` elements are not NULL. */
void shmemi_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len);
void shmemi_check_aligned(const char *routine, const char *arg, const void *addr, size_t align);
void shmemi_check_array(const char *routine, const char *arg, const void *p, const char *count_arg, size_t count);
/* shmemi_fast.debug: the bindings' slow path, which a binding with debug
 * checks tests once, after its always-on checks: SHMEM_DEBUG's checks and
 * SHMEM_PROFILE's counting (base/profile.h) share the one test, so
 * profiling costs those bindings no instruction while it is off
 * (transport/select.c fills it). */
#define SHMEMI_SLOW_DEBUG 1
#define SHMEMI_SLOW_PROFILE 2
static inline int shmemi_slow_on(void) { return __builtin_expect(shmemi_fast.debug != 0, 0); }
static inline int shmemi_debug_on(void) { return shmemi_fast.debug & SHMEMI_SLOW_DEBUG; }
/* Elements the spec requires of an active-set reduction's pWrk. */
static inline size_t shmemi_pwrk_elems(size_t nreduce)
{
    size_t n = nreduce / 2 + 1;
    return n > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? n : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
}

/* ---- RMA kernels (sizes in bytes, strides in elements of `elem` bytes) ---- */
void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine);
void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine);
void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine);
void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine);
/* Blocked strided: nblocks blocks of bsize elements; block k starts at
 * dest + k*dst and src + k*sst elements. iput/iget pass bsize = 1. */
void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elem, int pe, const char *routine);
void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elem, int pe, const char *routine);

/* ---- AMO kernels: `value`, `cond`, `fetch` point to objects of the
 * datatype's size; `fetch` may be NULL for non-fetching operations. The
 * _nbi form may complete `fetch` as late as the next quiet. ---- */
/* Which (op, dtype) an AMO is defined for: 4- and 8-byte objects, and on
 * floating point only the bit-preserving fetch, set and swap (the
 * extended AMO types). Every caller is a generated binding, which asserts
 * it at compile time, so no call pays for the check. */
#define SHMEMI_AMO_DEFINED(op, dt)                                                  \
    ((SHMEMI_DT_SIZE(dt) == 4 || SHMEMI_DT_SIZE(dt) == 8) &&                        \
     (SHMEMI_DT_CLASS(dt) != SHMEMI_DT_FLOAT || (op) == SHMEMI_AMO_FETCH ||         \
      (op) == SHMEMI_AMO_SET || (op) == SHMEMI_AMO_SWAP))
void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, int dtype, void *dest, const void *value,
                const void *cond, void *fetch, int pe, const char *routine);
void shmemi_amo_nbi(shmem_ctx_t ctx, enum shmemi_amo_op op, int dtype, void *dest, const void *value,
                    const void *cond, void *fetch, int pe, const char *routine);

/* ---- point-to-point synchronisation over `nelems` objects of `dtype`.
 * `values` is one value, or nelems values when `vector` is nonzero.
 * Returns: ALL -> 1 when satisfied (always 1 when blocking);
 *          ANY -> index satisfied, or SIZE_MAX;
 *          SOME -> number of indices written to `indices`. ---- */
size_t shmemi_wait_set(enum shmemi_wait_mode mode, int blocking, int dtype, void *ivars, size_t nelems,
                       size_t *indices, const int *status, int cmp, const void *values, int vector,
                       const char *routine);

/* ---- signals (put-with-signal): the data is delivered before the signal
 * update is visible; sig_op is SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. ---- */
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                       uint64_t signal, int sig_op, int pe, int nbi, const char *routine);

/* ---- team collectives (return 0 on success; sizes in bytes) ---- */
int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root,
                     const char *routine);
int shmemi_collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine);
int shmemi_fcollect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine);
/* nbytes: the block each PE sends to each PE */
int shmemi_alltoall(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine);
/* strides in elements of `elem` bytes; nelems elements per PE pair */
int shmemi_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                     size_t nelems, const char *routine);

enum shmemi_reduce_op {
    SHMEMI_OP_AND,
    SHMEMI_OP_OR,
    SHMEMI_OP_XOR,
    SHMEMI_OP_MAX,
    SHMEMI_OP_MIN,
    SHMEMI_OP_SUM,
    SHMEMI_OP_PROD,
};
/* Element-wise reduction of `count` elements of `dtype` (SHMEMI_DT class:
 * SINT, UINT, FLOAT incl. long double by size, COMPLEX by whole size). */
int shmemi_reduce(shmem_team_t team, enum shmemi_reduce_op op, int dtype, void *dest, const void *src,
                  size_t count, const char *routine);
/* 1.6 prefix sums by team rank; exclusive: rank 0 gets zeros. */
int shmemi_scan(shmem_team_t team, int exclusive, int dtype, void *dest, const void *src, size_t count,
                const char *routine);

/* ---- deprecated active-set collectives: PEs PE_start + k * 2^logPE_stride,
 * k < PE_size; pSync (and pWrk) as the 1.4 spec says; pSync is back to
 * SHMEM_SYNC_VALUE on return. ---- */
void shmemi_broadcast_as(void *dest, const void *src, size_t nbytes, int root, int PE_start, int logPE_stride,
                         int PE_size, long *pSync, const char *routine);
void shmemi_collect_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                       long *pSync, const char *routine);
void shmemi_fcollect_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                        long *pSync, const char *routine);
void shmemi_alltoall_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                        long *pSync, const char *routine);
void shmemi_alltoalls_as(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems,
                         int PE_start, int logPE_stride, int PE_size, long *pSync, const char *routine);
void shmemi_reduce_as(enum shmemi_reduce_op op, int dtype, void *dest, const void *src, size_t count, int PE_start,
                      int logPE_stride, int PE_size, void *pWrk, long *pSync, const char *routine);

#endif /* SHMEMI_H */
