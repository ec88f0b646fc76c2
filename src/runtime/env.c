/*
 * runtime/env.c — the environment table and its parsers.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/env.h"
#include "shmemi.h"

struct shmemi_settings shmemi_settings = {
    .symmetric_size = (size_t)256 << 20,
    .spin = -1,
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

/* A flag is on when set to anything but an explicit "off" spelling. */
static int parse_flag(const char *text, void *field)
{
    static const char *const off[] = {"", "0", "no", "n", "off", "false"};
    int on = 1;

    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(text, off[i]))
            on = 0;
    *(int *)field = on;
    return 0;
}

static int parse_spin(const char *text, void *field)
{
    char *end;
    long v;

    if (!strcasecmp(text, "auto")) {
        *(long *)field = -1;
        return 0;
    }
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0)
        return -1;
    *(long *)field = v;
    return 0;
}

#define FIELD(f) offsetof(struct shmemi_settings, f)
#define FLAG_FORMS "any value turns it on, except empty, 0, no, n, off, false"

static const struct env_var env_table[] = {
    {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE", "256M", parse_size_field, FIELD(symmetric_size),
     "a non-negative number (integer or decimal) with an optional k/K, m/M, g/G or t/T suffix "
     "(powers of 1024), e.g. 1048576, 512M, 1.5G",
     "symmetric heap size per PE"},
    {"SHMEM_DEBUG", "SMA_DEBUG", "0", parse_flag, FIELD(debug), FLAG_FORMS,
     "check arguments of every call (symmetric addresses, alignment, comparisons); "
     "turns off the inline fast paths"},
    {"SHMEM_VERSION", "SMA_VERSION", "0", parse_flag, FIELD(version), FLAG_FORMS,
     "print the library version at start-up (PE 0)"},
    {"SHMEM_INFO", "SMA_INFO", "0", parse_flag, FIELD(info), FLAG_FORMS,
     "print these variables and their values at start-up (PE 0)"},
    {"SHMEM_SPIN_COUNT", NULL, "auto", parse_spin, FIELD(spin), "auto or a non-negative integer",
     "pause iterations before a waiting PE yields the CPU (auto: 1000, or 0 when node-local PEs "
     "outnumber cores)"},
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

        if (v->parse(text, (char *)&shmemi_settings + v->field) != 0)
            shmemi_fatal(routine, "%s=\"%s\" is malformed; expected %s", from ? from : v->name, text,
                         v->forms);
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
