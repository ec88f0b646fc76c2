/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/pmi1_wire.c — PMI-1 ("simple PMI", version 1.1), spoken on
 * the socket the launcher passes as PMI_FD: MPICH's Hydra (mpiexec),
 * Intel MPI's mpiexec, Flux, and Slurm's pmi2 plugin when libpmi2 is
 * not installed. None ships a client library we could load, so the few
 * commands Shoal needs are here. Each is one line of space-separated
 * key=value words, answered by one line (abort: no answer).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/backend.h"
#include "shmemi.h"

/* The longest line MPICH's own client sends or reads: keep every
 * command within it. */
#define LINE_MAX_PMI1 1024

static struct {
    int fd;
    char kvsname[257];
    char line[LINE_MAX_PMI1 + 1]; /* the last answer */
    char buf[LINE_MAX_PMI1];      /* bytes read past it */
    size_t have;
} w = {.fd = -1};

static void send_line(const char *routine, const char *fmt, ...)
{
    char line[LINE_MAX_PMI1 + 1];
    size_t n, done = 0;
    va_list ap;
    int k;

    va_start(ap, fmt);
    k = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof line)
        shmemi_fatal(routine, "PMI-1 command longer than %d characters", LINE_MAX_PMI1);
    n = (size_t)k;
    while (done < n) {
        ssize_t r = write(w.fd, line + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            shmemi_fatal(routine, "PMI-1: write to the launcher (PMI_FD %d) failed: %s", w.fd,
                         r < 0 ? strerror(errno) : "closed");
        done += (size_t)r;
    }
}

/* The next answer line into w.line, without its newline. */
static void read_line(const char *routine)
{
    for (;;) {
        char *nl = memchr(w.buf, '\n', w.have);
        if (nl) {
            size_t n = (size_t)(nl - w.buf);
            memcpy(w.line, w.buf, n);
            w.line[n] = '\0';
            w.have -= n + 1;
            memmove(w.buf, nl + 1, w.have);
            return;
        }
        if (w.have == sizeof w.buf)
            shmemi_fatal(routine, "PMI-1: answer from the launcher longer than %d characters", LINE_MAX_PMI1);
        ssize_t r = read(w.fd, w.buf + w.have, sizeof w.buf - w.have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            shmemi_fatal(routine, "PMI-1: the launcher closed PMI_FD %d%s%s", w.fd, r < 0 ? ": " : "",
                         r < 0 ? strerror(errno) : "");
        w.have += (size_t)r;
    }
}

/* The value of word `key` in w.line, or NULL. Values hold no spaces,
 * but for msg=, which is last. */
static const char *field(const char *key, char *out, size_t max)
{
    size_t kl = strlen(key);

    for (const char *p = w.line; p && *p;) {
        while (*p == ' ')
            p++;
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcmp(key, "msg") ? strcspn(v, " ") : strlen(v);
            if (n >= max)
                return NULL;
            memcpy(out, v, n);
            out[n] = '\0';
            return out;
        }
        p = strchr(p, ' ');
    }
    return NULL;
}

/* Read the answer to `cmd`: it must be cmd=`expect` with rc=0 (or no rc). */
static void expect(const char *what, const char *expect_cmd, const char *routine)
{
    char v[64];

    read_line(routine);
    if (!field("cmd", v, sizeof v) || strcmp(v, expect_cmd) != 0)
        shmemi_fatal(routine, "PMI-1: %s: the launcher answered \"%.200s\"", what, w.line);
    if (field("rc", v, sizeof v) && strcmp(v, "0") != 0)
        shmemi_fatal(routine, "PMI-1: %s failed: \"%.200s\"", what, w.line);
}

static long field_long(const char *key, const char *routine)
{
    char v[32], *end;
    long r;

    if (!field(key, v, sizeof v))
        shmemi_fatal(routine, "PMI-1: no %s in \"%.200s\"", key, w.line);
    r = strtol(v, &end, 10);
    if (*end || r <= 0)
        shmemi_fatal(routine, "PMI-1: bad %s in \"%.200s\"", key, w.line);
    return r;
}

static struct shmemi_pmi_ops ops;

static void w_put(const char *key, const char *value, const char *routine)
{
    send_line(routine, "cmd=put kvsname=%s key=%s value=%s\n", w.kvsname, key, value);
    expect("put", "put_result", routine);
}

static void w_fence(const char *routine)
{
    send_line(routine, "cmd=barrier_in\n");
    expect("barrier", "barrier_out", routine);
}

static int w_get(int pe, const char *key, char *value, size_t max, const char *routine)
{
    char rc[16];

    (void)pe;
    send_line(routine, "cmd=get kvsname=%s key=%s\n", w.kvsname, key);
    read_line(routine);
    if (!field("cmd", rc, sizeof rc) || strcmp(rc, "get_result") != 0)
        shmemi_fatal(routine, "PMI-1: get %s: the launcher answered \"%.200s\"", key, w.line);
    if (!field("rc", rc, sizeof rc) || strcmp(rc, "0") != 0)
        return -1;
    if (!field("value", value, max))
        shmemi_fatal(routine, "PMI-1: get %s: no value of at most %zu characters in the answer", key, max - 1);
    return 0;
}

static void w_abort(int status, const char *msg)
{
    char line[64];
    int n = snprintf(line, sizeof line, "cmd=abort exitcode=%d\n", status);

    (void)msg; /* the PE has printed it; a message with spaces would need quoting */
    if (w.fd >= 0 && write(w.fd, line, (size_t)n) == n) {
        /* No answer: the launcher ends the job, or our grace alarm does. */
    }
}

static void w_fini(void)
{
    if (w.fd < 0)
        return;
    send_line("shmem_finalize", "cmd=finalize\n");
    expect("finalize", "finalize_ack", "shmem_finalize");
    close(w.fd);
    w.fd = -1;
}

const struct shmemi_pmi_ops *shmemi_pmi1_open(int *rank, int *size, char *why, size_t why_len,
                                              const char *routine)
{
    const char *fd = getenv("PMI_FD"), *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
    char *end;
    long vallen, keylen;

    if (!fd || !r || !s) {
        snprintf(why, why_len, "PMI_FD, PMI_RANK or PMI_SIZE unset");
        return NULL;
    }
    w.fd = (int)strtol(fd, &end, 10);
    *rank = (int)strtol(r, NULL, 10);
    *size = (int)strtol(s, NULL, 10);
    if (*end || w.fd < 0 || *size < 1 || *rank < 0 || *rank >= *size)
        shmemi_fatal(routine, "PMI-1: bad PMI_FD=%s PMI_RANK=%s PMI_SIZE=%s", fd, r, s);
    send_line(routine, "cmd=init pmi_version=1 pmi_subversion=1\n");
    expect("init", "response_to_init", routine);
    send_line(routine, "cmd=get_maxes\n");
    expect("get_maxes", "maxes", routine);
    vallen = field_long("vallen_max", routine);
    keylen = field_long("keylen_max", routine);
    send_line(routine, "cmd=get_my_kvsname\n");
    expect("get_my_kvsname", "my_kvsname", routine);
    if (!field("kvsname", w.kvsname, sizeof w.kvsname))
        shmemi_fatal(routine, "PMI-1: no kvsname in \"%.200s\"", w.line);

    ops.name = "PMI-1";
    /* The put line must fit as well as the value: its words, the name
     * and the longest key. */
    ops.keylen = (size_t)keylen - 1;
    ops.vallen = (size_t)vallen - 1;
    {
        size_t room = LINE_MAX_PMI1 - sizeof "cmd=put kvsname= key= value=\n" - strlen(w.kvsname) - ops.keylen;
        if (ops.vallen > room)
            ops.vallen = room;
    }
    ops.put = w_put;
    ops.fence = w_fence;
    ops.get = w_get;
    ops.abort = w_abort;
    ops.fini = w_fini;
    return &ops;
}
