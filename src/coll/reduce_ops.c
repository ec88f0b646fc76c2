/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/reduce_ops.c — element-wise combine functions for reductions, one
 * per (operation, type), chosen once per call. Integer sums wrap (the
 * unsigned arithmetic is done in the unsigned type to stay defined).
 */
#include <complex.h>
#include <stdint.h>

#include "coll/coll.h"

/* The operators and their expressions come from spec/ops.toml, through
 * the generated shmemi_ops.h (SHMEMI_REDUCE_*). */
SHMEMI_REDUCE_CHECK_ENUM();

#define COMBINE(name, T, expr)                                                  \
    static void name(void *acc_, const void *in_, size_t count)               \
    {                                                                           \
        T *acc = acc_;                                                          \
        const T *in = in_;                                                      \
        for (size_t i = 0; i < count; i++) {                                    \
            T a = acc[i], b = in[i];                                            \
            acc[i] = (expr);                                                    \
        }                                                                       \
    }

/* Integers: sum/prod through U, the unsigned type of the width. */
#define INT_OPS(tag, T, U)                                                      \
    SHMEMI_REDUCE_INT_FNS(COMBINE, tag, T, U)                                   \
    static const shmemi_combine_fn ops_##tag[] = SHMEMI_REDUCE_INT_TABLE(tag);

#define FLOAT_OPS(tag, T)                                                       \
    SHMEMI_REDUCE_FLOAT_FNS(COMBINE, tag, T)                                    \
    static const shmemi_combine_fn ops_##tag[] = SHMEMI_REDUCE_FLOAT_TABLE(tag);

#define COMPLEX_OPS(tag, T)                                                     \
    SHMEMI_REDUCE_COMPLEX_FNS(COMBINE, tag, T)                                  \
    static const shmemi_combine_fn ops_##tag[] = SHMEMI_REDUCE_COMPLEX_TABLE(tag);

INT_OPS(i8, int8_t, unsigned)
INT_OPS(i16, int16_t, unsigned)
INT_OPS(i32, int32_t, uint32_t)
INT_OPS(i64, int64_t, uint64_t)
INT_OPS(u8, uint8_t, unsigned)
INT_OPS(u16, uint16_t, unsigned)
INT_OPS(u32, uint32_t, uint32_t)
INT_OPS(u64, uint64_t, uint64_t)
FLOAT_OPS(f, float)
FLOAT_OPS(d, double)
FLOAT_OPS(ld, long double)
COMPLEX_OPS(cf, float _Complex)
COMPLEX_OPS(cd, double _Complex)

static const char *const op_names[] = SHMEMI_REDUCE_OP_NAMES;

shmemi_combine_fn shmemi_combine_for(enum shmemi_reduce_op op, int dtype, const char *routine)
{
    const shmemi_combine_fn *tab = NULL;
    size_t size = SHMEMI_DT_SIZE(dtype);

    switch (SHMEMI_DT_CLASS(dtype)) {
    case SHMEMI_DT_SINT:
        tab = size == 1 ? ops_i8 : size == 2 ? ops_i16 : size == 4 ? ops_i32 : size == 8 ? ops_i64 : NULL;
        break;
    case SHMEMI_DT_UINT:
        tab = size == 1 ? ops_u8 : size == 2 ? ops_u16 : size == 4 ? ops_u32 : size == 8 ? ops_u64 : NULL;
        break;
    case SHMEMI_DT_FLOAT:
        tab = size == sizeof(float) ? ops_f : size == sizeof(double) ? ops_d
            : size == sizeof(long double) ? ops_ld : NULL;
        break;
    case SHMEMI_DT_COMPLEX:
        tab = size == sizeof(float _Complex) ? ops_cf : size == sizeof(double _Complex) ? ops_cd : NULL;
        break;
    default:
        break;
    }
    if (!tab)
        shmemi_fatal(routine, "no reduction for datatype 0x%x", (unsigned)dtype);
    if ((unsigned)op >= SHMEMI_REDUCE_N_OPS || !tab[op])
        shmemi_fatal(routine, "the %s reduction is not defined for this type",
                     (unsigned)op < SHMEMI_REDUCE_N_OPS ? op_names[op] : "unknown");
    return tab[op];
}
