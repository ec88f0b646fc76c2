/*
 * coll/reduce_ops.c — element-wise combine functions for reductions, one
 * per (operation, type), chosen once per call. Integer sums wrap (the
 * unsigned arithmetic is done in the unsigned type to stay defined).
 */
#include <complex.h>
#include <stdint.h>

#include "coll/coll.h"

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

/* Integers: and, or, xor, max, min, sum, prod (sum/prod through U). */
#define INT_OPS(tag, T, U)                                                      \
    COMBINE(and_##tag, T, a & b)                                                \
    COMBINE(or_##tag, T, a | b)                                                 \
    COMBINE(xor_##tag, T, a ^ b)                                                \
    COMBINE(max_##tag, T, a > b ? a : b)                                        \
    COMBINE(min_##tag, T, a < b ? a : b)                                        \
    COMBINE(sum_##tag, T, (T)((U)a + (U)b))                                     \
    COMBINE(prod_##tag, T, (T)((U)a * (U)b))                                    \
    static const shmemi_combine_fn ops_##tag[] = {and_##tag, or_##tag, xor_##tag, max_##tag, \
                                                  min_##tag, sum_##tag, prod_##tag};

#define FLOAT_OPS(tag, T)                                                       \
    COMBINE(max_##tag, T, a > b ? a : b)                                        \
    COMBINE(min_##tag, T, a < b ? a : b)                                        \
    COMBINE(sum_##tag, T, a + b)                                                \
    COMBINE(prod_##tag, T, a * b)                                               \
    static const shmemi_combine_fn ops_##tag[] = {NULL, NULL, NULL, max_##tag, min_##tag, sum_##tag, prod_##tag};

#define COMPLEX_OPS(tag, T)                                                     \
    COMBINE(sum_##tag, T, a + b)                                                \
    COMBINE(prod_##tag, T, a * b)                                               \
    static const shmemi_combine_fn ops_##tag[] = {NULL, NULL, NULL, NULL, NULL, sum_##tag, prod_##tag};

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

static const char *const op_names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};

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
    if ((unsigned)op > SHMEMI_OP_PROD || !tab[op])
        shmemi_fatal(routine, "the %s reduction is not defined for this type",
                     (unsigned)op <= SHMEMI_OP_PROD ? op_names[op] : "unknown");
    return tab[op];
}
