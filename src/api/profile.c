/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/profile.c — SHMEM_PROFILE's report. At finalize every PE's rows
 * (one per routine it called: calls, bytes, ns inside, ns waiting; the
 * counting is base/profile.c's) reach PE 0, which prints one table for
 * the job on stderr, or writes every row as CSV to the named file.
 *
 * Gathering. Each PE copies its rows into a window of its control region
 * (memory/ctrl.h: symmetric, mapped or registered like the heap, outside
 * the user's heap so it never runs short), and PE 0 reads the windows one
 * PE at a time, between two barriers; a PE with more rows than a window
 * holds sends them over several rounds (the count of rounds is a max
 * reduction). So each PE holds O(routines it called), and PE 0 folds one
 * PE at a time into one entry per routine with that routine's value on
 * every PE (4 x 8 bytes per PE and routine), from which come the totals
 * and the min / median / max over PEs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/profile.h"
#include "base/env.h"
#include "base/profile.h"
#include "base/world.h"
#include "coll/coll.h"
#include "memory/ctrl.h"
#include "team/team.h"

#define REPORT_ROUTINE "shmem_finalize"
#define NAME_BYTES 64
enum { CALLS, BYTES, NS, WAIT_NS, METRICS };

/* One row as PE 0 reads it from a peer's window. */
struct wire_row {
    uint64_t v[METRICS];
    char name[NAME_BYTES];
};

/* A PE's window (the control region's `profile` bytes). */
struct window {
    uint64_t n_rows;  /* the PE's rows in all */
    uint64_t n_chunk; /* rows in the window this round */
    uint64_t run_ns;  /* from shmem_init to this report */
    _Alignas(SHMEMI_CACHE_LINE) uint64_t max_src; /* the reduction of row counts */
    _Alignas(SHMEMI_CACHE_LINE) uint64_t max_dst;
    _Alignas(SHMEMI_CACHE_LINE) struct wire_row rows[];
};
#define WINDOW_ROWS ((SHMEMI_CTRL_PROFILE_BYTES - offsetof(struct window, rows)) / sizeof(struct wire_row))
_Static_assert(WINDOW_ROWS >= 64, "SHMEMI_CTRL_PROFILE_BYTES holds too few rows");

static FILE *csv;              /* PE 0, SHMEM_PROFILE=<file>: open from init to the report */
static uint64_t run_start;     /* shmemi_now_ns() when init began */
static uint64_t init_wait0;
static struct shmemi_prof_site init_site;

void shmemi_prof_start(const char *routine)
{
    const struct shmemi_profile_setting *s = &shmemi_settings.profile;

    shmemi_prof_reset();
    run_start = shmemi_now_ns();
    init_wait0 = shmemi_prof_wait_ns;
    if (s->mode == SHMEMI_PROF_CSV && shmemi_world.my_pe == 0) {
        csv = fopen(s->file, "w");
        if (!csv)
            shmemi_fatal(routine, "SHMEM_PROFILE=%s: cannot open it for writing: %s", s->file, strerror(errno));
    }
    shmemi_prof_set_mode(s->mode);
}

void shmemi_prof_count_init(const char *routine, uint64_t t0)
{
    if (!shmemi_prof_mode())
        return;
    run_start = t0;
    shmemi_prof_count(&init_site, routine, 0, shmemi_now_ns() - t0, shmemi_prof_wait_ns - init_wait0);
}

/* ---- this PE's rows ---- */

static int by_time(const void *a, const void *b)
{
    const struct wire_row *x = a, *y = b;

    if (x->v[NS] != y->v[NS])
        return x->v[NS] < y->v[NS] ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The routines this PE called, busiest first. */
static struct wire_row *own_rows(size_t *n)
{
    struct wire_row *rows;
    size_t k = 0;

    *n = 0;
    for (struct shmemi_prof_site *s = shmemi_prof_sites(); s; s = s->next)
        k += s->calls != 0;
    rows = calloc(k ? k : 1, sizeof *rows);
    if (!rows)
        shmemi_fatal(REPORT_ROUTINE, "SHMEM_PROFILE: out of memory");
    for (struct shmemi_prof_site *s = shmemi_prof_sites(); s && *n < k; s = s->next) {
        struct wire_row *r = &rows[*n];

        if (!s->calls)
            continue;
        r->v[CALLS] = s->calls;
        r->v[BYTES] = s->bytes;
        r->v[NS] = s->ns;
        r->v[WAIT_NS] = s->wait_ns;
        snprintf(r->name, sizeof r->name, "%s", s->name);
        (*n)++;
    }
    qsort(rows, *n, sizeof *rows, by_time);
    return rows;
}

/* ---- PE 0: one entry per routine, with its values on every PE ---- */

struct routine_agg {
    char name[NAME_BYTES];
    uint64_t total[METRICS];
    uint64_t *per_pe; /* [METRICS * n_pes]: metric m of PE p at m * n_pes + p */
};

struct gather {
    int n_pes;
    struct routine_agg *agg;
    size_t n_agg, cap;
    size_t *slot; /* open addressing by name: agg index + 1, 0 empty */
    size_t n_slots;
    uint64_t *pe_sum; /* [METRICS * n_pes]: each PE's sums over its routines */
    uint64_t *run_ns; /* [n_pes] */
    size_t csv_rows;
    const char *end; /* the finalize called, NULL at exit */
};

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (!p)
        shmemi_fatal(REPORT_ROUTINE, "SHMEM_PROFILE: out of memory");
    return p;
}

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    return h;
}

static void rehash(struct gather *g)
{
    free(g->slot);
    g->n_slots = g->n_slots ? g->n_slots * 2 : 256;
    g->slot = zalloc(g->n_slots, sizeof *g->slot);
    for (size_t i = 0; i < g->n_agg; i++) {
        size_t h = name_hash(g->agg[i].name) & (g->n_slots - 1);

        while (g->slot[h])
            h = (h + 1) & (g->n_slots - 1);
        g->slot[h] = i + 1;
    }
}

static struct routine_agg *agg_of(struct gather *g, const char *name)
{
    size_t h;
    struct routine_agg *a;

    if (2 * (g->n_agg + 1) > g->n_slots)
        rehash(g);
    for (h = name_hash(name) & (g->n_slots - 1); g->slot[h]; h = (h + 1) & (g->n_slots - 1))
        if (!strcmp(g->agg[g->slot[h] - 1].name, name))
            return &g->agg[g->slot[h] - 1];
    if (g->n_agg == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->agg = realloc(g->agg, g->cap * sizeof *g->agg);
        if (!g->agg)
            shmemi_fatal(REPORT_ROUTINE, "SHMEM_PROFILE: out of memory");
    }
    a = &g->agg[g->n_agg];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->per_pe = zalloc((size_t)METRICS * (size_t)g->n_pes, sizeof *a->per_pe);
    g->slot[h] = ++g->n_agg;
    return a;
}

static void fold_row(struct gather *g, int pe, const struct wire_row *r)
{
    char name[NAME_BYTES];
    struct routine_agg *a;

    memcpy(name, r->name, sizeof name);
    name[sizeof name - 1] = '\0';
    a = agg_of(g, name);
    for (int m = 0; m < METRICS; m++) {
        a->total[m] += r->v[m];
        a->per_pe[(size_t)m * (size_t)g->n_pes + (size_t)pe] += r->v[m];
        g->pe_sum[(size_t)m * (size_t)g->n_pes + (size_t)pe] += r->v[m];
    }
    if (csv) {
        fprintf(csv, "%d,%s,%llu,%llu,%llu,%llu\n", pe, name, (unsigned long long)r->v[CALLS],
                (unsigned long long)r->v[BYTES], (unsigned long long)r->v[NS], (unsigned long long)r->v[WAIT_NS]);
        g->csv_rows++;
    }
}

/* ---- PE 0: the table ---- */

/* The k-th smallest of v[0..n) (reorders v): quickselect with a
 * three-way partition, since many PEs often hold the same value. */
static uint64_t select_kth(uint64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* k is in [lo, hi) */

    while (hi - lo > 1) {
        uint64_t pivot = v[lo + (hi - lo) / 2], t;
        size_t lt = lo, i = lo, gt = hi;

        while (i < gt) {
            if (v[i] < pivot) {
                t = v[lt], v[lt++] = v[i], v[i++] = t;
            } else if (v[i] > pivot) {
                t = v[--gt], v[gt] = v[i], v[i] = t;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[lo];
}

/* min, median (of an even count, the mean of the middle two, rounded
 * half up) and max of v[0..n). */
static void spread(const uint64_t *v, size_t n, uint64_t *scratch, uint64_t out[3])
{
    size_t k = (n - 1) / 2;
    uint64_t lo, hi;

    memcpy(scratch, v, n * sizeof *v);
    out[0] = out[2] = v[0];
    for (size_t i = 1; i < n; i++) {
        out[0] = v[i] < out[0] ? v[i] : out[0];
        out[2] = v[i] > out[2] ? v[i] : out[2];
    }
    lo = hi = select_kth(scratch, n, k);
    if (n % 2 == 0) {
        /* Past k the selection left only values >= scratch[k]. */
        hi = scratch[k + 1];
        for (size_t i = k + 2; i < n; i++)
            hi = scratch[i] < hi ? scratch[i] : hi;
    }
    out[1] = lo + (hi - lo + 1) / 2;
}

/* Counts and bytes: exact below a million, then 3 significant digits. */
static void fmt_count(char *out, size_t len, uint64_t v)
{
    static const char suffix[] = "kMGTPE";
    double x = (double)v;
    int s = -1;

    if (v < 1000000) {
        snprintf(out, len, "%llu", (unsigned long long)v);
        return;
    }
    while (x >= 999.5 && s < 5) {
        x /= 1000;
        s++;
    }
    snprintf(out, len, x >= 99.95 ? "%.0f%c" : x >= 9.995 ? "%.1f%c" : "%.2f%c", x, suffix[s]);
}

static void fmt_time(char *out, size_t len, uint64_t ns)
{
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    double x = (double)ns;
    int u = 0;

    if (ns == 0) {
        snprintf(out, len, "0");
        return;
    }
    while (x >= 999.5 && u < 3) {
        x /= 1000;
        u++;
    }
    snprintf(out, len, u == 0 || x >= 99.95 ? "%.0f %s" : x >= 9.995 ? "%.1f %s" : "%.2f %s", x, unit[u]);
}

#define COLS (1 + 4 * METRICS)
#define CELL (NAME_BYTES + 8)
static const char *const header[COLS] = {"routine", "calls", "min", "med", "max", "bytes", "min", "med", "max",
                                         "time",    "min",   "med", "max", "wait",  "min", "med", "max"};

/* One line's cells: the name, then per metric its total and spread. */
static void cells(char (*c)[CELL], const char *name, const uint64_t *total, const uint64_t *per_pe, int n,
                  uint64_t *scratch)
{
    snprintf(c[0], CELL, "%s", name);
    for (int m = 0; m < METRICS; m++) {
        void (*fmt)(char *, size_t, uint64_t) = m == NS || m == WAIT_NS ? fmt_time : fmt_count;
        uint64_t s[3];

        spread(per_pe + (size_t)m * (size_t)n, (size_t)n, scratch, s);
        fmt(c[1 + 4 * m], CELL, total[m]);
        for (int i = 0; i < 3; i++)
            fmt(c[2 + 4 * m + i], CELL, s[i]);
    }
}

static void print_line(FILE *out, char (*c)[CELL], const int *width)
{
    fprintf(out, "%-*s", width[0], c[0]);
    for (int i = 1; i < COLS; i++)
        fprintf(out, "%s%*s", (i - 1) % 4 == 0 ? " | " : "  ", width[i], c[i]);
    fputc('\n', out);
}

static int by_total_time(const void *a, const void *b)
{
    const struct routine_agg *x = a, *y = b;

    if (x->total[NS] != y->total[NS])
        return x->total[NS] < y->total[NS] ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* "70% of the run on the median PE (least: PE 3, 40%; most: PE 0, 71%)":
 * metric m summed over each PE's routines, as a share of its run. Naming
 * the PEs is the point: where PEs wait for one another, the one that
 * waited least is the one the others waited for. */
static void share(FILE *out, const struct gather *g, int m, uint64_t *pct, uint64_t *scratch)
{
    int least = 0, most = 0;
    uint64_t s[3];

    for (int p = 0; p < g->n_pes; p++) {
        uint64_t whole = g->run_ns[p] ? g->run_ns[p] : 1;

        pct[p] = (g->pe_sum[(size_t)m * (size_t)g->n_pes + (size_t)p] * 100 + whole / 2) / whole;
        least = pct[p] < pct[least] ? p : least;
        most = pct[p] > pct[most] ? p : most;
    }
    spread(pct, (size_t)g->n_pes, scratch, s);
    if (g->n_pes == 1)
        fprintf(out, "%llu%% of the run", (unsigned long long)s[1]);
    else
        fprintf(out, "%llu%% of the run on the median PE (least: PE %d, %llu%%; most: PE %d, %llu%%)",
                (unsigned long long)s[1], least, (unsigned long long)pct[least], most,
                (unsigned long long)pct[most]);
}

static void print_table(struct gather *g)
{
    size_t n = (size_t)g->n_pes, lines = g->n_agg + 2;
    uint64_t *scratch = zalloc(n, sizeof *scratch), *pct = zalloc(n, sizeof *pct), total[METRICS] = {0};
    char (*c)[COLS][CELL] = zalloc(lines, sizeof *c), run[CELL];
    int width[COLS] = {0};
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);

    if (!out)
        shmemi_fatal(REPORT_ROUTINE, "SHMEM_PROFILE: out of memory");
    qsort(g->agg, g->n_agg, sizeof *g->agg, by_total_time);
    for (int i = 0; i < COLS; i++)
        snprintf(c[0][i], CELL, "%s", header[i]);
    for (size_t r = 0; r < g->n_agg; r++) {
        cells(c[1 + r], g->agg[r].name, g->agg[r].total, g->agg[r].per_pe, g->n_pes, scratch);
        for (int m = 0; m < METRICS; m++)
            total[m] += g->agg[r].total[m];
    }
    cells(c[lines - 1], "(all routines)", total, g->pe_sum, g->n_pes, scratch);
    for (size_t r = 0; r < lines; r++)
        for (int i = 0; i < COLS; i++) {
            int len = (int)strlen(c[r][i]);

            width[i] = len > width[i] ? len : width[i];
        }
    fmt_time(run, sizeof run, g->run_ns[0]);
    fprintf(out, "shoal: SHMEM_PROFILE: %d PE%s, %s from shmem_init to %s on PE 0. Per routine: the total "
            "over the PEs, then the min, median and max of one PE; sorted by time\n",
            g->n_pes, g->n_pes == 1 ? "" : "s", run, g->end ? g->end : "exit");
    for (size_t r = 0; r < lines; r++)
        print_line(out, c[r], width);
    fprintf(out, "shoal: SHMEM_PROFILE: inside OpenSHMEM routines: ");
    share(out, g, NS, pct, scratch);
    fprintf(out, "\nshoal: SHMEM_PROFILE: waiting in them: ");
    share(out, g, WAIT_NS, pct, scratch);
    fputc('\n', out);
    fclose(out);
    /* One write: the launcher merges PEs' stderr by chunks. */
    fflush(stderr);
    fwrite(text, 1, text_len, stderr);
    fflush(stderr);
    free(text);
    free(c);
    free(pct);
    free(scratch);
}

static void gather_free(struct gather *g)
{
    for (size_t i = 0; i < g->n_agg; i++)
        free(g->agg[i].per_pe);
    free(g->agg);
    free(g->slot);
    free(g->pe_sum);
    free(g->run_ns);
}

/* PE 0: write the CSV file out, and say where it went. */
static void csv_close(const struct gather *g)
{
    const char *file = shmemi_settings.profile.file;
    int failed = ferror(csv);

    failed |= fclose(csv) != 0;
    csv = NULL;
    if (failed)
        shmemi_warn(REPORT_ROUTINE, "SHMEM_PROFILE=%s: writing the profile failed: %s", file, strerror(errno));
    else
        fprintf(stderr, "shoal: SHMEM_PROFILE: wrote %zu rows (%d PE%s) to %s\n", g->csv_rows, g->n_pes,
                g->n_pes == 1 ? "" : "s", file);
}

/* ---- the report ---- */

static struct shmemi_buf window_buf(size_t off)
{
    return (struct shmemi_buf){SHMEMI_SEG_CTRL, SHMEMI_CTRL_OFF(profile) + off};
}

void shmemi_prof_report(void)
{
    struct window *w = (struct window *)shmemi_grp_addr(SHMEMI_SEG_CTRL, SHMEMI_CTRL_OFF(profile));
    int me = shmemi_world.my_pe, n = shmemi_world.n_pes;
    struct gather g = {.n_pes = n};
    struct shmemi_group grp;
    struct wire_row *mine;
    size_t n_mine, rounds;
    uint64_t run_ns;

    if (!shmemi_prof_mode())
        return;
    /* The finalize that runs us is counted up to here (its barrier). */
    g.end = shmemi_prof_close_outer();
    run_ns = shmemi_now_ns() - run_start;
    mine = own_rows(&n_mine);
    if (me == 0) {
        g.pe_sum = zalloc((size_t)METRICS * (size_t)n, sizeof *g.pe_sum);
        g.run_ns = zalloc((size_t)n, sizeof *g.run_ns);
        if (csv)
            fprintf(csv, "pe,routine,calls,bytes,time_ns,wait_ns\n");
    }
    shmemi_grp_team(&grp, &shmemi_team_world, REPORT_ROUTINE);
    w->max_src = n_mine;
    shmemi_coll_reduce(&grp, SHMEMI_OP_MAX, SHMEMI_DT(SHMEMI_DT_UINT, 8), window_buf(offsetof(struct window, max_dst)),
                       window_buf(offsetof(struct window, max_src)), 1, (struct shmemi_buf){0, 0}, 0);
    rounds = w->max_dst ? (w->max_dst + WINDOW_ROWS - 1) / WINDOW_ROWS : 1;
    shmemi_grp_team(&grp, &shmemi_team_world, REPORT_ROUTINE);
    for (size_t r = 0; r < rounds; r++) {
        size_t first = r * WINDOW_ROWS, k = n_mine > first ? n_mine - first : 0;

        k = k < WINDOW_ROWS ? k : WINDOW_ROWS;
        w->n_rows = n_mine;
        w->n_chunk = k;
        w->run_ns = run_ns;
        memcpy(w->rows, mine + first, k * sizeof *mine);
        shmemi_grp_barrier(&grp);
        for (int pe = 0; me == 0 && pe < n; pe++) {
            struct window head;
            struct wire_row rows[64];

            shmemi_grp_get(&grp, &head, pe, SHMEMI_SEG_CTRL, SHMEMI_CTRL_OFF(profile),
                           offsetof(struct window, max_src));
            g.run_ns[pe] = head.run_ns;
            for (size_t i = 0; i < head.n_chunk && i < WINDOW_ROWS; i += 64) {
                size_t m = head.n_chunk - i < 64 ? head.n_chunk - i : 64;

                shmemi_grp_get(&grp, rows, pe, SHMEMI_SEG_CTRL,
                               SHMEMI_CTRL_OFF(profile) + offsetof(struct window, rows) + i * sizeof *rows,
                               m * sizeof *rows);
                for (size_t j = 0; j < m; j++)
                    fold_row(&g, pe, &rows[j]);
            }
        }
        shmemi_grp_barrier(&grp); /* no window is rewritten before PE 0 has read it */
    }
    free(mine);
    if (me == 0) {
        if (csv)
            csv_close(&g);
        else
            print_table(&g);
        gather_free(&g);
    }
    shmemi_prof_set_mode(SHMEMI_PROF_OFF);
}
