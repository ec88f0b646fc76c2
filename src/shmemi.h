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

#include "shmem.h" /* generated: public types and constants */
#include "shoal/fast.h"
#if defined(__has_include)
#if __has_include("shmemi_forward.h")
#include "shmemi_forward.h" /* generated: core entry points of untyped routines */
#endif
#endif

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
#define SHMEMI_DT(cls, size) ((int)((cls) | (int)(size)))
#define SHMEMI_DT_SIZE(dt)  ((size_t)((dt)&0xff))
#define SHMEMI_DT_CLASS(dt) ((dt)&0xf00)

/* ---- AMO operations (fetching is decided by a non-NULL `fetch`) ---- */
enum shmemi_amo_op {
    SHMEMI_AMO_FETCH, /* atomic read */
    SHMEMI_AMO_SET,
    SHMEMI_AMO_SWAP,
    SHMEMI_AMO_CSWAP, /* uses `cond` */
    SHMEMI_AMO_ADD,   /* inc/fetch_inc pass value 1 */
    SHMEMI_AMO_AND,
    SHMEMI_AMO_OR,
    SHMEMI_AMO_XOR,
};

/* ---- wait/test over sets (wait_until and test are the 1-element ALL) ---- */
enum shmemi_wait_mode {
    SHMEMI_WAIT_ALL,
    SHMEMI_WAIT_ANY,
    SHMEMI_WAIT_SOME,
};

/* ---- errors and checks ---- */
SHMEMI_NORETURN SHMEMI_PRINTF(2, 3) void shmemi_fatal(const char *routine, const char *fmt, ...);
SHMEMI_PRINTF(2, 3) void shmemi_warn(const char *routine, const char *fmt, ...);

/* Always-on, cheap: initialised, PE in range of the context's team. */
void shmemi_check_init(const char *routine);
void shmemi_check_pe(const char *routine, shmem_ctx_t ctx, int pe);
void shmemi_check_ctx(const char *routine, shmem_ctx_t ctx);
/* Under SHMEM_DEBUG only (the bindings test shmemi_debug_on()): `addr` and
 * `addr + len` lie inside one symmetric segment (heap or global data). */
void shmemi_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len);
void shmemi_check_aligned(const char *routine, const char *arg, const void *addr, size_t align);
void shmemi_check_cmp(const char *routine, int cmp);
static inline int shmemi_debug_on(void) { return shmemi_fast.debug; }

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

#endif /* SHMEMI_H */
