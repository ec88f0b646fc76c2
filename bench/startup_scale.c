/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/startup_scale.c — start-up time and memory per PE as the job grows
 * (init, the first AMO, 20 barriers), with the memory split by kind of
 * mapping.
 *
 * Each PE times shmem_init, its first fetch-add to PE 0 and 20
 * barrier_all, and after init reads /proc/self/smaps, summing Rss and Pss
 * per class of mapping:
 *   sym_own    this PE's symmetric segments (/dev/shm/shoal-* or memfd:shoal)
 *   sym_peers  other PEs' symmetric segments mapped here (node-local path)
 *   prov_shm   other /dev/shm files (libfabric shm provider's buffers)
 *   heap       [heap] (malloc's arena)
 *   anon       anonymous mappings (large mallocs, provider pools, stacks)
 *   libs       file-backed mappings (shared libraries' data and text)
 * plus malloc's in-use bytes (mallinfo2) grown by shmem_init and the
 * address space in use right after it (VmSize). PE 0 gathers
 * everything and prints one JSON line per figure: the mean and the max over
 * PEs. Symmetric segments are told apart by address (they are the only
 * /dev/shm/shoal-* mappings; this PE's own heap holds the pointer that
 * shmem_malloc returns). Linux and glibc specific; otherwise standard
 * OpenSHMEM, so it also builds against other implementations.
 *
 * At several sizes and paths, two builds interleaved:
 *   python3 bench/compare.py --prog startup_scale --np 64,128,256 --mode shm,ofi-tcp \
 *       --reps 3 --timeout 900 --out scale.jsonl after=build before=../before/build
 */
#include "common.h"

#include <malloc.h>
#include <shmem.h>

enum { T_INIT, T_AMO, T_BARRIER20, M_SYM_OWN, M_SYM_PEERS, M_PROV_SHM, M_HEAP, M_ANON, M_LIBS, M_PSS_TOTAL,
       M_RSS_TOTAL, M_MALLOC, M_MAPS, M_VSIZE, N_FIG };
static const char *const fig_name[N_FIG] = {
    "init_s", "first_amo_s", "barrier20_s", "sym_own_pss_kB", "sym_peers_pss_kB", "prov_shm_pss_kB", "heap_pss_kB",
    "anon_pss_kB", "libs_pss_kB", "pss_total_kB", "rss_total_kB", "malloc_init_kB", "maps", "vsize_init_kB"};

/* Address space in use (VmSize), in kB: what ulimit -v bounds. */
static double vsize_kb(void)
{
    char line[256];
    double kb = 0;
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmSize:", 7))
            kb = atof(line + 7);
    fclose(f);
    return kb;
}

/* Sum Pss (and Rss) of each class of mapping. `own` is an address inside
 * this PE's symmetric heap. */
static void smaps(double *fig, uintptr_t own)
{
    char line[512];
    FILE *f = fopen("/proc/self/smaps", "r");
    int cls = -1;
    uintptr_t lo = 0, hi = 0;

    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char path[400] = "";

        /* A mapping's header line ("lo-hi perms offset dev inode path");
         * field lines ("Rss:   4 kB") never parse as two numbers. */
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %399s", &a, &b, path) >= 2) {
            lo = a;
            hi = b;
            fig[M_MAPS] += 1;
            if (!strncmp(path, "/dev/shm/shoal-", 15) || !strncmp(path, "/memfd:shoal", 12))
                cls = (own >= lo && own < hi) ? M_SYM_OWN : M_SYM_PEERS;
            else if (!strncmp(path, "/dev/shm/", 9))
                cls = M_PROV_SHM;
            else if (!strcmp(path, "[heap]"))
                cls = M_HEAP;
            else if (path[0] == '/')
                cls = M_LIBS;
            else
                cls = M_ANON;
            continue;
        }
        if (cls < 0)
            continue;
        if (!strncmp(line, "Pss:", 4)) {
            double kb = atof(line + 4);
            fig[cls] += kb;
            fig[M_PSS_TOTAL] += kb;
        } else if (!strncmp(line, "Rss:", 4)) {
            fig[M_RSS_TOTAL] += atof(line + 4);
        }
    }
    fclose(f);
    (void)lo;
    (void)hi;
}

static long fetch_target;

int main(int argc, char **argv)
{
    struct bench_args a;
    double fig[N_FIG] = {0}, t0, t1;
    double *all;
    size_t before;
    long *own;
    int me, npes;

    bench_parse_args(argc, argv, &a, 8, 8);
    (void)a;
    before = mallinfo2().uordblks + mallinfo2().hblkhd;
    t0 = bench_now_ns();
    shmem_init();
    t1 = bench_now_ns();
    fig[T_INIT] = (t1 - t0) / 1e9;
    fig[M_VSIZE] = vsize_kb();
    fig[M_MALLOC] = (double)(mallinfo2().uordblks + mallinfo2().hblkhd - before) / 1024;
    me = shmem_my_pe();
    npes = shmem_n_pes();

    t0 = bench_now_ns();
    (void)shmem_long_atomic_fetch_add(&fetch_target, 1, 0);
    fig[T_AMO] = (bench_now_ns() - t0) / 1e9;
    shmem_barrier_all();
    t0 = bench_now_ns();
    for (int i = 0; i < 20; i++)
        shmem_barrier_all();
    fig[T_BARRIER20] = (bench_now_ns() - t0) / 1e9;

    own = shmem_malloc(sizeof(long));
    all = shmem_calloc((size_t)npes * N_FIG, sizeof(double));
    if (!own || !all) {
        fprintf(stderr, "startup_scale: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    smaps(fig, (uintptr_t)own);
    shmem_double_put(all + (size_t)me * N_FIG, fig, N_FIG, 0);
    shmem_barrier_all();
    if (me == 0) {
        if (fetch_target != npes)
            fprintf(stderr, "startup_scale: fetch-add total %ld, expected %d\n", fetch_target, npes);
        for (int fg = 0; fg < N_FIG; fg++) {
            double sum = 0, max = 0;
            char extra[96];

            for (int pe = 0; pe < npes; pe++) {
                double v = all[(size_t)pe * N_FIG + fg];
                sum += v;
                if (pe == 0 || v > max)
                    max = v;
            }
            snprintf(extra, sizeof extra, "\"max\":%.6g,\"pe0\":%.6g", max, all[fg]);
            bench_emit("startup_scale", fig_name[fg], 0, npes,
                       fg <= T_BARRIER20 ? "s" : fg == M_MAPS ? "count" : "kB", sum / npes, extra);
        }
    }
    shmem_barrier_all();
    shmem_free(all);
    shmem_free(own);
    shmem_finalize();
    return 0;
}
