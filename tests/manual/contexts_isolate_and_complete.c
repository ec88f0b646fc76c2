/* SPDX-License-Identifier: BSD-3-Clause */
/* Communication contexts: shmem_ctx_create with no option, PRIVATE,
 * SERIALIZED, NOSTORE and combinations succeeds; RMA and AMOs on a context
 * complete with shmem_ctx_quiet; shmem_ctx_fence orders a flag after data on
 * the same context; shmem_ctx_destroy completes outstanding nbi puts; many
 * contexts coexist and destroying one leaves the others working; unknown
 * option bits are rejected with a nonzero return and SHMEM_CTX_INVALID. */
#include "check.h"

#include <string.h>

#define LEN 512
#define NCTX 16

static int data[LEN];
static long flag;
static long counter;
static long many[NCTX];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    int src[LEN];

    long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                      SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                      SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    int nopt = (int)(sizeof options / sizeof options[0]);

    for (int o = 0; o < nopt; o++) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        int ret = shmem_ctx_create(options[o], &ctx);
        CHECK(ret == 0, "shmem_ctx_create(%ld) returned %d", options[o], ret);
        CHECK(ctx != SHMEM_CTX_INVALID, "shmem_ctx_create(%ld) gave SHMEM_CTX_INVALID", options[o]);
        if (ret != 0 || ctx == SHMEM_CTX_INVALID)
            continue;
        shmem_team_t team = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD,
              "shmem_ctx_get_team of a shmem_ctx_create context is not SHMEM_TEAM_WORLD");

        /* blocking put, nbi put, p, AMO — all on ctx, completed by ctx_quiet */
        for (int i = 0; i < LEN; i++)
            src[i] = o * 100000 + me * 1000 + i;
        shmem_ctx_int_put(ctx, data, src, LEN / 2, right);
        shmem_ctx_putmem_nbi(ctx, data + LEN / 2, src + LEN / 2, (LEN / 2) * sizeof(int), right);
        shmem_ctx_long_p(ctx, &flag, o + 1, right);
        shmem_ctx_long_atomic_add(ctx, &counter, 1, 0);
        shmem_atomic_add(ctx, &counter, 2L, 0);                  /* generic with ctx */
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        for (int i = 0; i < LEN; i++)
            if (data[i] != o * 100000 + left * 1000 + i) {
                CHECK(0, "ctx options %ld: data[%d] = %d, want %d", options[o], i, data[i],
                      o * 100000 + left * 1000 + i);
                break;
            }
        CHECK(flag == o + 1, "ctx options %ld: flag = %ld, want %d", options[o], flag, o + 1);
        long c = shmem_ctx_long_atomic_fetch(ctx, &counter, 0);
        CHECK(c == 3L * npes * (o + 1), "ctx options %ld: counter = %ld, want %ld", options[o], c,
              3L * npes * (o + 1));

        /* gets on ctx */
        int got[LEN];
        shmem_ctx_int_get(ctx, got, data, LEN, right);
        for (int i = 0; i < LEN; i++)
            if (got[i] != o * 100000 + me * 1000 + i) {
                CHECK(0, "ctx options %ld: get data[%d] from PE %d = %d", options[o], i, right, got[i]);
                break;
            }
        int g = shmem_ctx_int_g(ctx, &data[7], right);
        CHECK(g == o * 100000 + me * 1000 + 7, "ctx_int_g = %d", g);
        int gn[8];
        shmem_get_nbi(ctx, gn, data + 8, 8, right);              /* generic with ctx */
        shmem_ctx_quiet(ctx);
        for (int i = 0; i < 8; i++)
            CHECK(gn[i] == o * 100000 + me * 1000 + 8 + i, "ctx get_nbi [%d] = %d", i, gn[i]);
        shmem_barrier_all();
        shmem_ctx_destroy(ctx);
    }

    /* ctx_fence: data then flag on the same context, many rounds */
    shmem_ctx_t fctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &fctx) == 0, "ctx_create for fence failed");
    shmem_barrier_all();
    flag = 0;
    shmem_barrier_all();
    for (int r = 1; r <= 100; r++) {
        if (me == 0) {
            for (int t = 1; t < npes; t++) {
                for (int i = 0; i < LEN; i++)
                    src[i] = r * 7 + t + i;
                shmem_ctx_int_put(fctx, data, src, LEN, t);
            }
            shmem_ctx_fence(fctx);
            for (int t = 1; t < npes; t++)
                shmem_ctx_long_atomic_set(fctx, &flag, r, t);
            shmem_ctx_quiet(fctx);
        } else {
            wait_long_bounded(&flag, SHMEM_CMP_EQ, r, "ctx fence flag");
            for (int i = 0; i < LEN; i++)
                if (data[i] != r * 7 + me + i) {
                    CHECK(0, "ctx_fence round %d: data[%d] = %d, want %d", r, i, data[i], r * 7 + me + i);
                    break;
                }
        }
        shmem_barrier_all();
    }
    shmem_ctx_destroy(fctx);

    /* destroy completes outstanding nbi puts (barrier_all only covers the
     * default context) */
    shmem_ctx_t dctx;
    CHECK(shmem_ctx_create(0, &dctx) == 0, "ctx_create for destroy failed");
    for (int i = 0; i < LEN; i++)
        src[i] = -(me * 1000 + i);
    shmem_ctx_int_put_nbi(dctx, data, src, LEN, right);
    shmem_ctx_destroy(dctx);
    shmem_barrier_all();
    for (int i = 0; i < LEN; i++)
        if (data[i] != -(left * 1000 + i)) {
            CHECK(0, "after ctx_destroy data[%d] = %d, want %d", i, data[i], -(left * 1000 + i));
            break;
        }
    shmem_barrier_all();

    /* many contexts at once; destroy every other one; the rest still work */
    shmem_ctx_t ctxs[NCTX];
    for (int k = 0; k < NCTX; k++) {
        int ret = shmem_ctx_create(k % 2 ? SHMEM_CTX_PRIVATE : 0, &ctxs[k]);
        CHECK(ret == 0 && ctxs[k] != SHMEM_CTX_INVALID, "ctx_create #%d failed (%d)", k, ret);
        if (ret != 0)
            ctxs[k] = SHMEM_CTX_INVALID;
    }
    for (int k = 0; k < NCTX; k += 2)
        shmem_ctx_destroy(ctxs[k]);
    for (int k = 1; k < NCTX; k += 2)
        if (ctxs[k] != SHMEM_CTX_INVALID) {
            shmem_ctx_long_atomic_add(ctxs[k], &many[k], k, right);
            shmem_ctx_quiet(ctxs[k]);
        }
    shmem_barrier_all();
    for (int k = 0; k < NCTX; k++)
        CHECK(many[k] == (k % 2 ? k : 0), "many[%d] = %ld, want %d", k, many[k], k % 2 ? k : 0);
    for (int k = 1; k < NCTX; k += 2)
        shmem_ctx_destroy(ctxs[k]);

    /* the default context, explicitly */
    shmem_ctx_long_atomic_inc(SHMEM_CTX_DEFAULT, &counter, 0);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    long c = shmem_long_atomic_fetch(&counter, 0);
    CHECK(c == 3L * npes * nopt + npes, "counter = %ld, want %ld", c, 3L * npes * nopt + npes);

    /* invalid handles and options */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);                    /* no-op */
    long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    long bad = 1L << 20;
    while (bad & known)
        bad <<= 1;
    shmem_ctx_t badctx = SHMEM_CTX_DEFAULT;
    int ret = shmem_ctx_create(bad, &badctx);
    CHECK(ret != 0, "shmem_ctx_create(unknown option 0x%lx) returned 0", bad);
    CHECK(badctx == SHMEM_CTX_INVALID, "shmem_ctx_create(unknown option) did not set SHMEM_CTX_INVALID");
    if (ret == 0 && badctx != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(badctx);
    badctx = SHMEM_CTX_DEFAULT;
    ret = shmem_ctx_create(-1L, &badctx);
    CHECK(ret != 0 && badctx == SHMEM_CTX_INVALID, "shmem_ctx_create(-1) returned %d", ret);
    if (ret == 0 && badctx != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(badctx);

    int rc = check_finish();
    shmem_finalize();
    return rc;
}
