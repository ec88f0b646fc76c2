/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/mem_scale.c — memory per PE as the job grows. Each PE reads
 * /proc/self/status (VmRSS, VmHWM, RssShmem, VmSize) and malloc's in-use bytes
 * (mallinfo2) before shmem_init, after it, and after allocating and
 * touching 1 MiB of symmetric heap; it also counts its memory mappings.
 * PE 0 gathers everything and prints, per figure, the mean and the maximum
 * over PEs of the growth caused by the library (after init - before init).
 * Linux and glibc specific; otherwise standard OpenSHMEM.
 */
#include "common.h"

#include <malloc.h>
#include <shmem.h>

enum { RSS, HWM, SHM, VSZ, HEAP, MAPS, N_FIG };
static const char *const fig_name[N_FIG] = {"rss_kB", "hwm_kB", "rss_shmem_kB", "vsz_kB", "malloc_kB", "maps"};

static void snapshot(long out[N_FIG])
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    struct mallinfo2 mi = mallinfo2();

    for (int i = 0; i < N_FIG; i++)
        out[i] = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "VmRSS:", 6))
                out[RSS] = atol(line + 6);
            else if (!strncmp(line, "VmHWM:", 6))
                out[HWM] = atol(line + 6);
            else if (!strncmp(line, "RssShmem:", 9))
                out[SHM] = atol(line + 9);
            else if (!strncmp(line, "VmSize:", 7))
                out[VSZ] = atol(line + 7);
        }
        fclose(f);
    }
    out[HEAP] = (long)((mi.uordblks + mi.hblkhd) / 1024);
    f = fopen("/proc/self/maps", "r");
    if (f) {
        int c;
        while ((c = fgetc(f)) != EOF)
            if (c == '\n')
                out[MAPS]++;
        fclose(f);
    }
}

#define STAGES 3 /* before init, after init, after 1 MiB touched */

int main(int argc, char **argv)
{
    struct bench_args a;
    long snap[STAGES][N_FIG];
    long *all;                  /* symmetric [npes][STAGES*N_FIG] on PE 0 */
    char *heap;
    int me, npes;
    const size_t touched = (size_t)1 << 20;

    bench_parse_args(argc, argv, &a, 8, 8);
    (void)a;
    snapshot(snap[0]);
    shmem_init();
    snapshot(snap[1]);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    heap = shmem_malloc(touched);
    all = shmem_calloc((size_t)npes * STAGES * N_FIG, sizeof(long));
    if (!heap || !all) {
        fprintf(stderr, "mem_scale: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    memset(heap, 1, touched);
    shmem_barrier_all();
    snapshot(snap[2]);
    shmem_long_put(all + (size_t)me * STAGES * N_FIG, &snap[0][0], STAGES * N_FIG, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int fg = 0; fg < N_FIG; fg++) {
            for (int stage = 1; stage < STAGES; stage++) {
                double sum = 0, max = 0, base_sum = 0;
                char op[64], extra[160];

                for (int pe = 0; pe < npes; pe++) {
                    const long *s = all + (size_t)pe * STAGES * N_FIG;
                    double d = (double)(s[stage * N_FIG + fg] - s[fg]);
                    sum += d;
                    base_sum += (double)s[fg];
                    if (pe == 0 || d > max)
                        max = d;
                }
                snprintf(op, sizeof op, "%s_%s", fig_name[fg], stage == 1 ? "init" : "init_1MiB");
                snprintf(extra, sizeof extra, "\"max\":%.6g,\"before_init_mean\":%.6g", max, base_sum / npes);
                bench_emit("mem", op, 0, npes, fg == MAPS ? "count" : "kB", sum / npes, extra);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(all);
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
