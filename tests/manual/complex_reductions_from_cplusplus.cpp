/* SPDX-License-Identifier: BSD-3-Clause */
// complex_reductions_from_cplusplus.cpp — a C++ program sees the complexf /
// complexd routines (g++ and clang++ accept _Complex as an extension) and
// gets exact results from them: team sum/prod reductions, scans, and the
// 1.4 complex sum_to_all.
#include <shmem.h>

#include <cstdio>

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static double _Complex pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static double _Complex mk(double re, double im)
{
    double _Complex z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

int main()
{
    enum { N = 3 };
    int me, npes, fails = 0;
    long checked = 0;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    double _Complex *dsrc = static_cast<double _Complex *>(shmem_malloc(N * sizeof(double _Complex)));
    double _Complex *ddst = static_cast<double _Complex *>(shmem_malloc(N * sizeof(double _Complex)));
    float _Complex *fsrc = static_cast<float _Complex *>(shmem_malloc(N * sizeof(float _Complex)));
    float _Complex *fdst = static_cast<float _Complex *>(shmem_malloc(N * sizeof(float _Complex)));
    for (int i = 0; i < N; i++) {
        dsrc[i] = mk(me + i, 2 * me - i);
        fsrc[i] = static_cast<float _Complex>(mk(me + 1, 0));
    }
    shmem_barrier_all();

#define EXPECT(cond, ...)                                            \
    do {                                                             \
        checked++;                                                   \
        if (!(cond)) {                                               \
            fails++;                                                 \
            std::fprintf(stderr, "FAIL PE %d: ", me);                \
            std::fprintf(stderr, __VA_ARGS__);                       \
            std::fputc('\n', stderr);                                \
        }                                                            \
    } while (0)

    // Sum over PEs p of (p + i) + (2p - i)i: exact in double.
    double s = npes * (npes - 1) / 2.0;
    EXPECT(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, N) == 0, "complexd_sum_reduce rc");
    for (int i = 0; i < N; i++)
        EXPECT(__real__ ddst[i] == s + npes * i && __imag__ ddst[i] == 2 * s - npes * i,
               "complexd_sum_reduce[%d] = %g%+gi", i, __real__ ddst[i], __imag__ ddst[i]);
    // Product over PEs of (p + 1): npes!.
    float fact = 1;
    for (int p = 1; p <= npes; p++)
        fact *= static_cast<float>(p);
    EXPECT(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, N) == 0, "complexf_prod_reduce rc");
    for (int i = 0; i < N; i++)
        EXPECT(__real__ fdst[i] == fact && __imag__ fdst[i] == 0, "complexf_prod_reduce[%d] = %g%+gi", i,
               static_cast<double>(__real__ fdst[i]), static_cast<double>(__imag__ fdst[i]));
    // Inclusive scan: PEs 0..me.
    double sm = me * (me + 1) / 2.0;
    EXPECT(shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, ddst, dsrc, N) == 0, "complexd_sum_inscan rc");
    for (int i = 0; i < N; i++)
        EXPECT(__real__ ddst[i] == sm + (me + 1) * i && __imag__ ddst[i] == 2 * sm - (me + 1) * i,
               "complexd_sum_inscan[%d] = %g%+gi", i, __real__ ddst[i], __imag__ ddst[i]);
    shmem_barrier_all();
    shmem_complexd_sum_to_all(ddst, dsrc, N, 0, 0, npes, pWrk, pSync);
    for (int i = 0; i < N; i++)
        EXPECT(__real__ ddst[i] == s + npes * i && __imag__ ddst[i] == 2 * s - npes * i,
               "complexd_sum_to_all[%d] = %g%+gi", i, __real__ ddst[i], __imag__ ddst[i]);

    shmem_barrier_all();
    shmem_free(fdst);
    shmem_free(fsrc);
    shmem_free(ddst);
    shmem_free(dsrc);
    if (fails)
        std::fprintf(stderr, "PE %d: %d check(s) failed\n", me, fails);
    else if (me == 0)
        std::printf("OK\nchecked %ld values\n", checked);
    shmem_finalize();
    return fails ? 1 : 0;
}
