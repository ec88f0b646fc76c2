/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad arguments get one line on stderr naming the routine, the argument and
 * its value, and end the job with a nonzero status; where the spec defines
 * a result instead (-1, NULL, a nonzero return and SHMEM_TEAM_INVALID),
 * that result comes back. The first argument names the case (a second one
 * only labels an entry); the manifest gives each case its expected message,
 * status and SHMEM_DEBUG setting.
 *
 * A case that should end the job but returns says so on stderr and exits 0,
 * which the manifest (expect_status = "nonzero") counts as a failure. A case
 * with a defined result checks it and prints OK on PE 0. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int me, npes;
static int sym_ints[16];
static long sym_longs[16];
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static uint64_t signals[2];
static long not_a_team[8];

static int right(void) { return (me + 1) % npes; }

/* ---- PEs, relative to the team of the context in use ---- */

static void pe_out_of_range(void)
{
    shmem_int_put(sym_ints, sym_ints + 8, 4, npes);
}

static void pe_negative_ctx(void)
{
    shmem_ctx_t ctx;
    shmem_ctx_create(0, &ctx);
    shmem_ctx_long_atomic_inc(ctx, sym_longs, -1);
}

/* Rows of one PE: on a context of the row team, PE 1 does not exist. */
static void pe_out_of_range_team_ctx(void)
{
    shmem_team_t row, column;
    shmem_ctx_t ctx;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &row, NULL, 0, &column);
    shmem_team_create_ctx(row, 0, &ctx);
    shmem_ctx_int_p(ctx, sym_ints, 1, 1);
}

static void root_out_of_range(void)
{
    shmem_int_broadcast(SHMEM_TEAM_WORLD, sym_ints, sym_ints + 8, 1, npes);
}

/* ---- teams ---- */

static void team_invalid_collective(void)
{
    shmem_int_sum_reduce(SHMEM_TEAM_INVALID, sym_ints, sym_ints + 8, 1);
}

static void team_invalid_sync(void)
{
    shmem_team_sync(SHMEM_TEAM_INVALID);
}

static void team_destroyed(void)
{
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    shmem_team_destroy(t);
    shmem_team_sync(t);
}

/* A small integer: must be refused without being dereferenced. */
static void team_small_integer(void)
{
    shmem_team_n_pes((shmem_team_t)(uintptr_t)0x10);
}

static void team_not_a_team(void)
{
    shmem_team_my_pe((shmem_team_t)(void *)not_a_team);
}

static void split_null_new_team(void)
{
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, NULL);
}

static void split_2d_null_yaxis(void)
{
    shmem_team_t x;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, NULL);
}

/* A bad triplet: nonzero everywhere, SHMEM_TEAM_INVALID, one warning. */
static void expect_no_team(int start, int stride, int size)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
    CHECK(rc != 0, "split_strided(%d, %d, %d) returned 0", start, stride, size);
    CHECK(t == SHMEM_TEAM_INVALID, "split_strided(%d, %d, %d) gave a team", start, stride, size);
}

static void split_bad_size(void) { expect_no_team(0, 1, 0); }
static void split_bad_start(void) { expect_no_team(npes, 1, 1); }
static void split_wraps(void) { expect_no_team(1, 1, npes); }
static void split_stride0(void) { expect_no_team(0, 0, 2); }

static void split_2d_bad_xrange(void)
{
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y);
    CHECK(rc != 0, "split_2d(xrange 0) returned 0");
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d(xrange 0) gave a team");
}

/* ---- contexts ---- */

static void ctx_invalid(void)
{
    shmem_ctx_int_put(SHMEM_CTX_INVALID, sym_ints, sym_ints + 8, 4, right());
}

static void ctx_destroyed(void)
{
    shmem_ctx_t ctx;
    shmem_ctx_create(0, &ctx);
    shmem_ctx_destroy(ctx);
    shmem_ctx_long_atomic_inc(ctx, sym_longs, right());
}

/* A private context outlives its team; using it must not reach the team. */
static void ctx_of_destroyed_team(void)
{
    shmem_team_t t;
    shmem_ctx_t ctx;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    shmem_team_create_ctx(t, SHMEM_CTX_PRIVATE, &ctx);
    shmem_team_destroy(t);
    shmem_ctx_int_p(ctx, sym_ints, 1, 0);
}

static void ctx_create_null(void)
{
    shmem_ctx_create(0, NULL);
}

static void team_create_ctx_null(void)
{
    shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, NULL);
}

/* ---- sizes ---- */

/* Sizes go to the out-of-line routines, (name)(...): the inline twins
 * would only hand them on, and the compiler rightly warns about them. */
static void count_negative(void)
{
    int n = -4;
    (shmem_int_put)(sym_ints, sym_ints + 8, (size_t)n, right());
}

static void count_overflow(void)
{
    (shmem_long_get)(sym_longs, sym_longs + 8, SIZE_MAX / 4, right());
}

static void nreduce_negative(void)
{
    shmem_int_sum_to_all(sym_ints, sym_ints + 8, -1, 0, 0, npes, pwrk, psync);
}

static void active_start_negative(void)
{
    shmem_barrier(-1, 0, npes, psync);
}

static void active_stride_negative(void)
{
    shmem_broadcast32(sym_ints, sym_ints + 8, 1, 0, 0, -1, npes, psync);
}

static void active_size_negative(void)
{
    shmem_fcollect64(sym_longs, sym_longs + 8, 1, 0, 0, -2, psync);
}

static void alltoalls_negative_stride(void)
{
    shmem_int_alltoalls(SHMEM_TEAM_WORLD, sym_ints, sym_ints + 8, -1, 1, 1);
}

/* ---- symmetric addresses, NULL, alignment ---- */

static void psync_null(void)
{
    shmem_barrier(0, 0, npes, NULL);
}

static void psync_not_symmetric(void)
{
    long local[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        local[i] = SHMEM_SYNC_VALUE;
    shmem_barrier(0, 0, npes, local);
}

static void pwrk_not_symmetric(void)
{
    int local[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    shmem_int_max_to_all(sym_ints, sym_ints + 8, 1, 0, 0, npes, local, psync);
}

/* 4 GiB from a heap address: far past the end of the heap. */
static void range_past_segment(void)
{
    int *heap = shmem_malloc(64);
    (shmem_int_put)(heap, sym_ints, (size_t)1 << 30, right());
}

static void collective_past_segment(void)
{
    int *heap = shmem_malloc(64);
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, heap, heap, (size_t)1 << 30);
}

static void sym_dest_null(void)
{
    shmem_int_put(NULL, sym_ints, 4, right());
}

static void local_source_null(void)
{
    shmem_int_put(sym_ints, NULL, 4, right());
}

static void local_dest_null(void)
{
    shmem_long_get(NULL, sym_longs, 2, right());
}

static void fetch_null(void)
{
    shmem_int_atomic_fetch_add_nbi(NULL, sym_ints, 1, right());
}

static void signal_not_symmetric(void)
{
    uint64_t local = 0;
    shmem_signal_fetch(&local);
}

static void signal_misaligned(void)
{
    uint64_t *odd = (uint64_t *)((char *)signals + 4);
    shmem_putmem_signal(sym_longs, sym_longs + 8, 8, odd, 1, SHMEM_SIGNAL_SET, right());
}

static void amo_misaligned(void)
{
    int *odd = (int *)((char *)sym_ints + 2);
    shmem_int_atomic_add(odd, 1, right());
}

static void wait_misaligned(void)
{
    long *odd = (long *)((char *)sym_longs + 4);
    shmem_long_wait_until(odd, SHMEM_CMP_EQ, 0);
}

static void lock_not_symmetric(void)
{
    long lock = 0;
    shmem_set_lock(&lock);
}

static void lock_misaligned(void)
{
    shmem_set_lock((long *)((char *)sym_longs + 4));
}

static void cmp_invalid(void)
{
    shmem_int_wait_until(sym_ints, 99, 0);
}

static void sig_op_invalid(void)
{
    shmem_long_put_signal(sym_longs, sym_longs + 8, 1, signals, 1, 7, right());
}

/* ---- results the spec defines ---- */

static void queries_return_spec_values(void)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    long *heap = shmem_malloc(sizeof(long));

    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1, "translate pe npes");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD) == -1, "translate pe -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate from INVALID");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID)");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID)");
    CHECK(shmem_ptr(heap, npes) == NULL && shmem_ptr(heap, -1) == NULL, "shmem_ptr to a bad pe");
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, npes) == NULL, "team_ptr to a bad pe");
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, heap, 0) == NULL, "team_ptr(INVALID)");
    CHECK(shmem_addr_accessible(heap, npes) == 0 && shmem_addr_accessible(heap, -1) == 0, "addr_accessible");
    CHECK(shmem_pe_accessible(npes) == 0 && shmem_pe_accessible(-1) == 0, "pe_accessible");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
          "split of SHMEM_TEAM_INVALID");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID,
          "team_create_ctx(INVALID)");
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID, "ctx_get_team(INVALID)");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "calloc with an overflowing size");
    shmem_free(heap);
}

/* ---- dispatch ---- */

struct bad_case {
    const char *name;
    void (*run)(void);
    int returns; /* the spec defines a result: check it, print OK */
};

static const struct bad_case cases[] = {
    {"pe_out_of_range", pe_out_of_range, 0},
    {"pe_negative_ctx", pe_negative_ctx, 0},
    {"pe_out_of_range_team_ctx", pe_out_of_range_team_ctx, 0},
    {"root_out_of_range", root_out_of_range, 0},
    {"team_invalid_collective", team_invalid_collective, 0},
    {"team_invalid_sync", team_invalid_sync, 0},
    {"team_destroyed", team_destroyed, 0},
    {"team_small_integer", team_small_integer, 0},
    {"team_not_a_team", team_not_a_team, 0},
    {"split_null_new_team", split_null_new_team, 0},
    {"split_2d_null_yaxis", split_2d_null_yaxis, 0},
    {"split_bad_size", split_bad_size, 1},
    {"split_bad_start", split_bad_start, 1},
    {"split_wraps", split_wraps, 1},
    {"split_stride0", split_stride0, 1},
    {"split_2d_bad_xrange", split_2d_bad_xrange, 1},
    {"ctx_invalid", ctx_invalid, 0},
    {"ctx_destroyed", ctx_destroyed, 0},
    {"ctx_of_destroyed_team", ctx_of_destroyed_team, 0},
    {"ctx_create_null", ctx_create_null, 0},
    {"team_create_ctx_null", team_create_ctx_null, 0},
    {"count_negative", count_negative, 0},
    {"count_overflow", count_overflow, 0},
    {"nreduce_negative", nreduce_negative, 0},
    {"active_start_negative", active_start_negative, 0},
    {"active_stride_negative", active_stride_negative, 0},
    {"active_size_negative", active_size_negative, 0},
    {"alltoalls_negative_stride", alltoalls_negative_stride, 0},
    {"psync_null", psync_null, 0},
    {"psync_not_symmetric", psync_not_symmetric, 0},
    {"pwrk_not_symmetric", pwrk_not_symmetric, 0},
    {"range_past_segment", range_past_segment, 0},
    {"collective_past_segment", collective_past_segment, 0},
    {"sym_dest_null", sym_dest_null, 0},
    {"local_source_null", local_source_null, 0},
    {"local_dest_null", local_dest_null, 0},
    {"fetch_null", fetch_null, 0},
    {"signal_not_symmetric", signal_not_symmetric, 0},
    {"signal_misaligned", signal_misaligned, 0},
    {"amo_misaligned", amo_misaligned, 0},
    {"wait_misaligned", wait_misaligned, 0},
    {"lock_not_symmetric", lock_not_symmetric, 0},
    {"lock_misaligned", lock_misaligned, 0},
    {"cmp_invalid", cmp_invalid, 0},
    {"sig_op_invalid", sig_op_invalid, 0},
    {"queries_return_spec_values", queries_return_spec_values, 1},
};

int main(int argc, char **argv)
{
    const struct bad_case *c = NULL;

    for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[1], cases[i].name))
            c = &cases[i];
    if (!c) {
        fprintf(stderr, "usage: %s CASE (unknown case %s)\n", argv[0], argc > 1 ? argv[1] : "(none)");
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    c->run();
    if (c->returns) {
        int rc = check_finish();
        shmem_finalize();
        return rc;
    }
    fprintf(stderr, "PE %d: TEST FAILURE: case %s returned normally\n", me, c->name);
    return 0;
}
