/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/error.c — the one error path: a single line
 * "shoal: PE <n>: <routine>: <message>" on stderr, then the whole job ends.
 */
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/sockios.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/abort.h"
#include "base/cleanup.h"
#include "base/world.h"
#include "shmemi.h"

_Thread_local __attribute__((tls_model("initial-exec"))) const char *shmemi_called_as;

/* Format the line into one buffer and write it with one write(2), so
 * lines from several PEs never interleave. */
static void emit(const char *routine, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    routine = shmemi_as_called(routine);
    if (shmemi_world.my_pe >= 0)
        n = snprintf(line, sizeof line, "shoal: PE %d: %s: ", shmemi_world.my_pe, routine);
    else
        n = snprintf(line, sizeof line, "shoal: PE ?: %s: ", routine);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    n = (int)strlen(line);
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}

/* How long the launcher gets to end us after the abort request: with the
 * link to it lost (a remote node), PMIx_Abort may never return, and a PE
 * must not outlive the job it just failed. */
#define ABORT_GRACE_S 5
static volatile sig_atomic_t abort_status;
static atomic_int aborting;
static _Atomic(shmemi_abort_hook) abort_hook;

void shmemi_abort_hook_set(shmemi_abort_hook hook)
{
    atomic_store(&abort_hook, hook);
}

static void abort_grace_over(int sig)
{
    (void)sig;
    _exit(abort_status);
}

/* Bytes written to fd that its reader has not taken yet: a pipe's content,
 * or a socket's unread send queue; 0 for anything else (a file, a tty). */
static int unread_output(int fd)
{
    struct stat st;
    int n = 0;

    if (fstat(fd, &st) != 0)
        return 0;
    if (S_ISFIFO(st.st_mode) && ioctl(fd, FIONREAD, &n) == 0)
        return n;
    if (S_ISSOCK(st.st_mode) && ioctl(fd, SIOCOUTQ, &n) == 0)
        return n;
    return 0;
}

/* A launcher forwarding our stdout/stderr through a pipe (Hydra's proxy,
 * Open MPI's) kills the job when told of the abort, and drops what it had
 * not read yet: the line that says why. Give it up to OUTPUT_DRAIN_MS to
 * read it first; it forwards what it read before the abort request that
 * follows. */
#define OUTPUT_DRAIN_MS 500
static void let_launcher_read_output(void)
{
    const struct timespec tick = {0, 1000 * 1000};

    for (int ms = 0; ms < OUTPUT_DRAIN_MS; ms++) {
        if (unread_output(STDOUT_FILENO) == 0 && unread_output(STDERR_FILENO) == 0)
            return;
        nanosleep(&tick, NULL);
    }
}

int shmemi_abort_status(void)
{
    return atomic_load(&aborting) ? (int)abort_status : -1;
}

void shmemi_abort_job(int status, const char *msg)
{
    static _Thread_local int this_thread_aborts;

    /* One thread cleans up. Another thread failing meanwhile must not
     * _exit under it (before the segments are unlinked and the job told);
     * a failure inside the clean-up itself (same thread) just exits. */
    if (atomic_exchange(&aborting, 1)) {
        while (!this_thread_aborts)
            pause();
    } else {
        this_thread_aborts = 1;
        abort_status = status;
        fflush(stdout);
        fflush(stderr);
        let_launcher_read_output();
        /* Segments not yet unlinked (start-up) and libfabric shm's
         * regions must not outlive us. */
        shmemi_cleanup_run();
        signal(SIGALRM, abort_grace_over);
        alarm(ABORT_GRACE_S);
        shmemi_abort_hook hook = atomic_load(&abort_hook);
        if (hook)
            hook(status, msg);
    }
    _exit(status);
}

void shmemi_fatal(const char *routine, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(routine, fmt, ap);
    va_end(ap);
    shmemi_abort_job(1, "shoal: fatal error");
}

void shmemi_warn(const char *routine, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(routine, fmt, ap);
    va_end(ap);
}
