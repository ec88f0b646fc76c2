/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/env.c — the environment table and its parsers.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/env.h"
#include "base/profile.h"
#include "shmemi.h"

struct shmemi_settings shmemi_settings = {
    .symmetric_size = (size_t)512 << 20,
    .spin = -1,
    .progress_thread = -1,
    .progress_interval_us = 100,
    .ofi_gather = -1,
    .ofi_gather_put = 512,
    .team_pool_size = (size_t)4 << 20,
    .hang_report_s = 300,
};

typedef int (*env_parser)(const char *text, void *field);

struct env_var {
    const char *name;
    const char *alias;   /* deprecated SMA_ spelling; the SHMEM_ name wins */
    const char *fallback; /* default, as text */
    env_parser parse;
    size_t field;        /* offset in struct shmemi_settings */
    const char *forms;   /* accepted values, for error messages */
    const char *desc;
};

static int parse_size_field(const char *text, void *field)
{
    return shmemi_parse_size(text, field);
}

static int parse_count(const char *text, void *field)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0)
        return -1;
    *(long *)field = v;
    return 0;
}

/* A flag is a known spelling or a number (0 off, other on); anything else
 * is a typo (SHMEM_DEBUG=ture) worth stopping for rather than guessing. */
static int parse_flag(const char *text, void *field)
{
    static const char *const off[] = {"", "no", "n", "off", "false"};
    static const char *const on[] = {"yes", "y", "on", "true"};
    long number;

    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(text, off[i])) {
            *(int *)field = 0;
            return 0;
        }
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        if (!strcasecmp(text, on[i])) {
            *(int *)field = 1;
            return 0;
        }
    if (parse_count(text, &number) != 0)
        return -1;
    *(int *)field = number != 0;
    return 0;
}

/* SHMEM_INIT_TIMING: a flag (PE 0 prints) or "all" (every PE prints). */
static int parse_init_timing(const char *text, void *field)
{
    if (!strcasecmp(text, "all")) {
        *(int *)field = 2;
        return 0;
    }
    return parse_flag(text, field);
}

int shmemi_env_init_timing(void)
{
    const char *text = getenv("SHMEM_INIT_TIMING");
    int mode = 0;

    if (!text || parse_init_timing(text, &mode) != 0)
        return 0;
    return mode;
}

/* SHMEM_PROFILE: a flag (on: a table), or where to write CSV. A file
 * name must hold a '.' or a '/' (prof.csv, ./prof), so that a misspelt
 * flag (SHMEM_PROFILE=ture) is refused rather than written to. */
static int parse_profile(const char *text, void *field)
{
    struct shmemi_profile_setting *p = field;
    size_t n = strlen(text);
    int on;

    if (parse_flag(text, &on) == 0) {
        p->mode = on ? SHMEMI_PROF_TABLE : SHMEMI_PROF_OFF;
        p->file[0] = '\0';
        return 0;
    }
    if (!strpbrk(text, "./") || text[n - 1] == '/' || n >= sizeof p->file)
        return -1;
    p->mode = SHMEMI_PROF_CSV;
    memcpy(p->file, text, n + 1);
    return 0;
}

static int parse_auto_count(const char *text, void *field)
{
    if (!strcasecmp(text, "auto")) {
        *(long *)field = -1;
        return 0;
    }
    return parse_count(text, field);
}

/* Microseconds, 1 to 1,000,000: 0 would spin a core (SHMEM_PROGRESS_THREAD=0
 * is the way to have no thread). */
static int parse_interval_us(const char *text, void *field)
{
    long v;

    if (parse_count(text, &v) || v < 1 || v > 1000000)
        return -1;
    *(long *)field = v;
    return 0;
}

/* Seconds: a non-negative decimal number; 0 or off: never. */
static int parse_seconds(const char *text, void *field)
{
    char *end;
    double v;

    if (!strcasecmp(text, "off")) {
        *(double *)field = 0;
        return 0;
    }
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < 0 || v > 1e9 || !isdigit((unsigned char)text[0]))
        return -1;
    *(double *)field = v;
    return 0;
}

static int parse_transport(const char *text, void *field)
{
    static const char *const names[] = {"auto", "shm", "ofi"};

    for (int i = 0; i < 3; i++)
        if (!strcasecmp(text, names[i])) {
            *(int *)field = i; /* SHMEMI_PATH_* in this order */
            return 0;
        }
    return -1;
}

static int parse_word(const char *text, void *field)
{
    size_t n = strlen(text);

    if (n >= sizeof ((struct shmemi_settings *)0)->ofi_provider || strchr(text, ' '))
        return -1;
    memcpy(field, text, n + 1);
    return 0;
}

static int parse_ofi_atomics(const char *text, void *field)
{
    if (strcasecmp(text, "auto") && strcasecmp(text, "software"))
        return -1;
    *(int *)field = !strcasecmp(text, "software");
    return 0;
}

/* The offending part of a value with several parts, for the error
 * message (empty when the whole value is the problem). */
static char bad_token[48];

/* A comma-separated list of mr_local, context, transmit_complete,
 * thread_safe (empty: none). */
static int parse_ofi_force(const char *text, void *field)
{
    static const struct {
        const char *name;
        unsigned bit;
    } words[] = {{"mr_local", SHMEMI_OFI_FORCE_MR_LOCAL},
                 {"context", SHMEMI_OFI_FORCE_CONTEXT},
                 {"transmit_complete", SHMEMI_OFI_FORCE_TRANSMIT_COMPLETE},
                 {"thread_safe", SHMEMI_OFI_FORCE_THREAD_SAFE}};
    unsigned bits = 0;
    const char *p = text;

    while (*p) {
        size_t len = strcspn(p, ","), i;

        for (i = 0; i < sizeof words / sizeof words[0]; i++)
            if (len == strlen(words[i].name) && !strncasecmp(p, words[i].name, len))
                break;
        if (i == sizeof words / sizeof words[0]) {
            snprintf(bad_token, sizeof bad_token, "%.*s", (int)(len < 40 ? len : 40), p);
            return -1;
        }
        bits |= words[i].bit;
        p += len;
        if (*p == ',' && !*++p) {
            snprintf(bad_token, sizeof bad_token, "(empty after the last comma)");
            return -1;
        }
    }
    *(unsigned *)field = bits;
    return 0;
}

static int parse_auto_flag(const char *text, void *field)
{
    if (!strcasecmp(text, "auto")) {
        *(int *)field = -1;
        return 0;
    }
    return parse_flag(text, field);
}

/* Collective algorithm names; the index is the SHMEMI_ALG_* value
 * (coll/algo.h), 0 being auto. */
static const char *const alg_names[] = {"auto", "dissemination", "tree", "knomial", "pipelined", "direct",
                                        "ring", "pairwise", "push", "recursive_doubling", "reduce_scatter",
                                        "linear", "central"};

static int parse_alg(const char *text, void *field, unsigned allowed)
{
    for (unsigned i = 0; i < sizeof alg_names / sizeof alg_names[0]; i++)
        if ((i == 0 || (allowed >> i & 1)) && !strcasecmp(text, alg_names[i])) {
            *(int *)field = (int)i;
            return 0;
        }
    return -1;
}

#define ALG_BIT(i) (1u << (i))
static int parse_barrier_alg(const char *t, void *f)
{
    return parse_alg(t, f, ALG_BIT(1) | ALG_BIT(2) | ALG_BIT(5) | ALG_BIT(12));
}
static int parse_bcast_alg(const char *t, void *f) { return parse_alg(t, f, ALG_BIT(3) | ALG_BIT(4)); }
static int parse_collect_alg(const char *t, void *f) { return parse_alg(t, f, ALG_BIT(5) | ALG_BIT(6)); }
static int parse_alltoall_alg(const char *t, void *f) { return parse_alg(t, f, ALG_BIT(7) | ALG_BIT(8)); }
static int parse_reduce_alg(const char *t, void *f) { return parse_alg(t, f, ALG_BIT(9) | ALG_BIT(10)); }
static int parse_scan_alg(const char *t, void *f) { return parse_alg(t, f, ALG_BIT(5) | ALG_BIT(11)); }

#define FIELD(f) offsetof(struct shmemi_settings, f)
#define FLAG_FORMS "1, yes, y, on, true or a positive integer (on); empty, 0, no, n, off, false (off)"

static const struct env_var env_table[] = {
    {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE", "512M", parse_size_field, FIELD(symmetric_size),
     "a non-negative number (integer or decimal) with an optional k/K, m/M, g/G or t/T suffix "
     "(powers of 1024), e.g. 1048576, 512M, 1.5G",
     "symmetric heap size per PE (alike on every PE)"},
    {"SHMEM_DEBUG", "SMA_DEBUG", "0", parse_flag, FIELD(debug), FLAG_FORMS,
     "check arguments of every call (symmetric addresses, alignment, comparisons); "
     "turns off the inline fast paths"},
    {"SHMEM_VERSION", "SMA_VERSION", "0", parse_flag, FIELD(version), FLAG_FORMS,
     "print the library version at start-up (PE 0)"},
    {"SHMEM_INFO", "SMA_INFO", "0", parse_flag, FIELD(info), FLAG_FORMS,
     "print these variables and their values at start-up (PE 0)"},
    {"SHMEM_INIT_TIMING", NULL, "0", parse_init_timing, FIELD(init_timing), "all, or a flag (" FLAG_FORMS ")",
     "print shmem_init's phases with their seconds and the memory malloc'd in each, and at finalize how "
     "many peers were reached through libfabric (on: PE 0; all: every PE)"},
    {"SHMEM_PROFILE", NULL, "0", parse_profile, FIELD(profile),
     "a flag (" FLAG_FORMS "), or a file name with a '.' or '/' in it, e.g. prof.csv",
     "at finalize, PE 0 reports every routine the program called, with its calls, bytes moved, time "
     "inside and time waiting, each as the total and min/median/max over PEs (on: a table on stderr; a "
     "file name: CSV there, one row per PE and routine); turns off the inline fast paths; on or off alike on "
     "every PE"},
    {"SHMEM_HANG_REPORT", NULL, "300", parse_seconds, FIELD(hang_report_s),
     "a non-negative number of seconds, or off (0 is off too)",
     "a blocking call that has waited this long prints one line on stderr saying what it waits for "
     "(the variable and the value awaited, the PEs a barrier waits for), then again after ten times as "
     "long; SIGUSR1 to a PE, or to oshrun, prints every PE's line at once (off: only SIGUSR1)"},
    {"SHMEM_SPIN_COUNT", NULL, "auto", parse_auto_count, FIELD(spin), "auto or a non-negative integer",
     "pause iterations before a waiting PE yields the CPU (auto: 1000, or 0 when node-local PEs "
     "outnumber cores)"},
    {"SHMEM_TRANSPORT", NULL, "auto", parse_transport, FIELD(transport), "auto, shm or ofi",
     "path to peers: auto (node-local peers by shared memory, others by libfabric), shm (one node, "
     "no libfabric), ofi (every peer, this PE included, through libfabric)"},
    {"SHMEM_OFI_PROVIDER", NULL, "", parse_word, FIELD(ofi_provider), "a libfabric provider name",
     "libfabric provider for the network path, e.g. tcp, shm, sockets (empty: the first usable one "
     "that fi_getinfo offers, after libfabric's own FI_PROVIDER filter; udp;ofi_rxd is never chosen)"},
    {"SHMEM_VIRTUAL_NODES", NULL, "0", parse_count, FIELD(virtual_nodes), "a non-negative integer",
     "split the PEs into this many contiguous groups treated as separate nodes: shared memory only "
     "inside a group, libfabric between groups, SHMEM_TEAM_SHARED is the group (0 or 1: off)"},
    {"SHMEM_PROGRESS_THREAD", NULL, "auto", parse_auto_flag, FIELD(progress_thread),
     "auto or a flag (" FLAG_FORMS ")",
     "a thread that drives libfabric progress, so a PE computing without calling the library still "
     "serves remote puts, gets and atomics (auto: on when the provider has manual data progress)"},
    {"SHMEM_PROGRESS_INTERVAL", NULL, "100", parse_interval_us, FIELD(progress_interval_us),
     "an integer from 1 to 1000000 (microseconds)",
     "microseconds between the progress thread's polls while its PE computes: a peer waits up to about "
     "this long for a computing PE, and each poll's wake-up takes the PE's core for a moment (measured "
     "on a 2-vCPU VM: 100 cost a computing PE 23% of its speed, 1000 4%)"},
    {"SHMEM_OFI_ATOMICS", NULL, "auto", parse_ofi_atomics, FIELD(ofi_soft_amo), "auto or software",
     "network-path AMOs: auto (the provider's atomics for every type it fully supports, the locked "
     "software path for the others), software (the locked software path for every type; for testing)"},
    {"SHMEM_OFI_BOUNCE_SIZE", NULL, "8K", parse_size_field, FIELD(ofi_bounce_size),
     "a size like SHMEM_SYMMETRIC_SIZE's",
     "network-path blocking puts above the provider's inject size and up to this size are copied into "
     "a bounce buffer and return at once; larger ones are zero-copy and wait for completion (0: never "
     "copy). Each endpoint has a pool of 32 such buffers, allocated on first use"},
    {"SHMEM_OFI_GATHER", NULL, "auto", parse_auto_flag, FIELD(ofi_gather), "auto or a flag (" FLAG_FORMS ")",
     "network path: puts up to SHMEM_OFI_GATHER_PUT and non-fetching AMOs of the default context are "
     "gathered per target PE and sent as one message, which the target applies in one pass; a "
     "buffer leaves when full, at quiet, fence and barriers, before a get or fetching AMO to its PE, "
     "when the PE waits or tests, and from the progress thread once the PE stops calling (auto and "
     "on: where the provider's atomics are CPU atomics at the target (tcp), calls are serialized "
     "and the progress thread runs; alike on every PE)"},
    {"SHMEM_OFI_GATHER_PUT", NULL, "512", parse_size_field, FIELD(ofi_gather_put),
     "a size like SHMEM_SYMMETRIC_SIZE's",
     "largest put gathered where SHMEM_OFI_GATHER is on (0: puts are not gathered, AMOs still are)"},
    {"SHMEM_OFI_TIMEOUT", NULL, "30", parse_count, FIELD(ofi_timeout), "a non-negative integer (seconds)",
     "a PE whose network path makes no progress towards a peer for this long (a transfer that does not "
     "complete, or a wait whose probes of the off-node peers go unanswered) ends the job with an error "
     "naming the routine, the peer and its host (0: wait forever)"},
    {"SHMEM_OFI_FORCE", NULL, "", parse_ofi_force, FIELD(ofi_force),
     "empty or a comma-separated list of mr_local, context, transmit_complete and thread_safe",
     "network path: behave as if the provider required each listed thing, to exercise on any provider "
     "what RDMA providers ask (docs/providers.md): mr_local registers every local buffer and passes "
     "descriptors (bounce pool for small ones, registration per call for large ones), context passes a "
     "libfabric context with every operation, transmit_complete gives up FI_DELIVERY_COMPLETE and makes "
     "quiet flush every PE written with a read, thread_safe opens the domain FI_THREAD_SAFE below "
     "SHMEM_THREAD_MULTIPLE too (the provider's locks instead of Shoal's one)"},
    {"SHMEM_TEAM_POOL_SIZE", NULL, "4M", parse_size_field, FIELD(team_pool_size),
     "a size like SHMEM_SYMMETRIC_SIZE's",
     "symmetric space per PE, beside the heap, for the sync blocks of teams; a team of N PEs takes "
     "64 * (3*ceil(log2 N) + 6*ceil(log4 N) + min(N, 8) + 7) bytes of it (pages are used only when touched)"},
    {"SHMEM_BARRIER_ALGORITHM", NULL, "auto", parse_barrier_alg, FIELD(barrier_alg),
     "auto, dissemination, tree, direct or central",
     "barrier and sync (auto: for a team of up to 8 PEs mapped here, when the node's PEs outnumber its "
     "cores central (released by rank 0) for the program's barriers and direct inside collectives, else "
     "direct up to 4 PEs; dissemination otherwise. direct and central apply to teams of up to 8 PEs mapped "
     "here, others use dissemination)"},
    {"SHMEM_BCAST_ALGORITHM", NULL, "auto", parse_bcast_alg, FIELD(bcast_alg), "auto, knomial or pipelined",
     "broadcast (auto: with every member mapped here and up to 64 KiB, pushed: flat from the root for "
     "teams and active sets of up to 8 PEs (active sets of any size when the node's PEs outnumber its "
     "cores), a k-nomial tree for larger active sets; otherwise a pulled k-nomial tree below 512 KiB, a "
     "pipelined chain from there)"},
    {"SHMEM_COLLECT_ALGORITHM", NULL, "auto", parse_collect_alg, FIELD(collect_alg), "auto, direct or ring",
     "collect and fcollect (auto: a pushed fcollect for a 1.4 active set mapped here; direct reads when "
     "every member is mapped here, or for an fcollect result under 64 KiB; ring otherwise)"},
    {"SHMEM_ALLTOALL_ALGORITHM", NULL, "auto", parse_alltoall_alg, FIELD(alltoall_alg),
     "auto, pairwise or push",
     "alltoall and alltoalls (auto: push without barriers for a 1.4 active set mapped here; "
     "pairwise exchange reading mapped peers, push otherwise)"},
    {"SHMEM_REDUCE_ALGORITHM", NULL, "auto", parse_reduce_alg, FIELD(reduce_alg),
     "auto, recursive_doubling or reduce_scatter",
     "reductions (auto: recursive doubling up to 8 KiB, or 64 KiB when PEs outnumber cores, pushed into pWrk "
     "(direct, or recursive doubling) for a small 1.4 active-set reduction mapped here; reduce-scatter + "
     "allgather above)"},
    {"SHMEM_SCAN_ALGORITHM", NULL, "auto", parse_scan_alg, FIELD(scan_alg), "auto, direct or linear",
     "inscan/exscan (auto: direct)"},
};

#define ENV_COUNT (sizeof env_table / sizeof env_table[0])

/* The text in force for `v`, and which name supplied it (NULL: default). */
static const char *env_text(const struct env_var *v, const char **from)
{
    const char *t = getenv(v->name);

    *from = v->name;
    if (!t && v->alias) {
        t = getenv(v->alias);
        *from = v->alias;
    }
    if (!t)
        *from = NULL;
    return t ? t : v->fallback;
}

int shmemi_parse_size(const char *text, size_t *bytes)
{
    const char *p = text;
    char *end;
    double v, mult = 1.0;

    while (isspace((unsigned char)*p))
        p++;
    /* strtod alone would also take hex, inf and nan. */
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return -1;
    errno = 0;
    v = strtod(p, &end);
    if (errno || end == p)
        return -1;
    switch (*end) {
    case 'k': case 'K': mult = 0x1p10; end++; break;
    case 'm': case 'M': mult = 0x1p20; end++; break;
    case 'g': case 'G': mult = 0x1p30; end++; break;
    case 't': case 'T': mult = 0x1p40; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') /* "512MB" */
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    v *= mult;
    if (!isfinite(v) || v < 0 || v >= 0x1p62)
        return -1;
    *bytes = (size_t)ceil(v);
    return 0;
}

void shmemi_env_load(const char *routine)
{
    for (size_t i = 0; i < ENV_COUNT; i++) {
        const struct env_var *v = &env_table[i];
        const char *from, *text = env_text(v, &from);

        bad_token[0] = '\0';
        if (v->parse(text, (char *)&shmemi_settings + v->field) != 0)
            shmemi_fatal(routine, "%s=\"%s\" is malformed%s%s%s; expected %s", from ? from : v->name, text,
                         bad_token[0] ? " (bad token \"" : "", bad_token, bad_token[0] ? "\")" : "", v->forms);
    }
}

void shmemi_env_print(FILE *out)
{
    fprintf(out, "Environment variables (value in force, meaning):\n");
    for (size_t i = 0; i < ENV_COUNT; i++) {
        const struct env_var *v = &env_table[i];
        const char *from, *text = env_text(v, &from);

        fprintf(out, "  %s=%s", v->name, text);
        if (!from)
            fprintf(out, " (default)");
        else if (strcmp(from, v->name))
            fprintf(out, " (from deprecated %s)", from);
        fprintf(out, "\n      %s", v->desc);
        if (v->alias)
            fprintf(out, "; deprecated alias %s", v->alias);
        fprintf(out, "\n");
    }
}

int shmemi_env_doc(size_t i, struct shmemi_env_doc *doc)
{
    if (i >= ENV_COUNT)
        return 0;
    *doc = (struct shmemi_env_doc){env_table[i].name, env_table[i].alias, env_table[i].fallback, env_table[i].forms,
                                   env_table[i].desc};
    return 1;
}
