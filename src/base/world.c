/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/world.c — the state tables: the private world and the exported
 * table the inline fast paths read (filled by transport/select.c).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/env.h"
#include "base/world.h"

struct shmemi_world shmemi_world = {
    .my_pe = -1,
};

/* Sizes stay 0 (inline paths off) until init fills the table. */
__attribute__((visibility("default"))) struct shmemi_fast_state shmemi_fast_v2;

/* ---- SHMEM_INIT_TIMING ---- */
#define PHASES_MAX 16
static struct {
    int mode; /* -1 not read yet, 0 off, 1 PE 0, 2 every PE */
    int n;
    double start;
    size_t heap0; /* malloc's bytes in use when the clock started */
    struct { const char *name; double end; size_t heap; } phase[PHASES_MAX];
} timing = {.mode = -1};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bytes malloc has handed out (and not taken back), by the library, the
 * launcher's client and the provider alike. */
static size_t malloc_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
}

void shmemi_init_phase(const char *name)
{
    if (timing.mode < 0) {
        timing.mode = shmemi_env_init_timing();
        timing.n = 0;
        timing.start = now_s();
        timing.heap0 = malloc_in_use();
    }
    if (timing.mode && name && timing.n < PHASES_MAX) {
        timing.phase[timing.n].name = name;
        timing.phase[timing.n].heap = malloc_in_use();
        timing.phase[timing.n++].end = now_s();
    }
}

void shmemi_init_phase_report(void)
{
    char line[1536];
    int len;
    double prev;
    size_t heap_prev;

    if (timing.mode > 0 && (timing.mode == 2 || shmemi_world.my_pe == 0)) {
        prev = timing.start;
        heap_prev = timing.heap0;
        len = snprintf(line, sizeof line, "shoal: PE %d of %d: init %.3f s:", shmemi_world.my_pe,
                       shmemi_world.n_pes, timing.n ? timing.phase[timing.n - 1].end - timing.start : 0.0);
        /* Each phase: seconds, then malloc'd kB it added (negative: freed). */
        for (int i = 0; i < timing.n && len > 0 && (size_t)len < sizeof line; i++) {
            len += snprintf(line + len, sizeof line - (size_t)len, " %s %.3f %+.0fkB", timing.phase[i].name,
                            timing.phase[i].end - prev,
                            ((double)timing.phase[i].heap - (double)heap_prev) / 1024);
            prev = timing.phase[i].end;
            heap_prev = timing.phase[i].heap;
        }
        fprintf(stderr, "%s\n", line);
    }
    timing.mode = -1; /* a later init reads the variable again */
}

int shmemi_init_timing_prints(void)
{
    int mode = shmemi_env_init_timing();

    return mode == 2 || (mode == 1 && shmemi_world.my_pe == 0);
}
