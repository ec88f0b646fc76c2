/*
 * runtime/error.c — the one error path: a single line
 * "shoal: PE <n>: <routine>: <message>" on stderr, then the whole job ends.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "memory/segment.h"
#include "runtime/abort.h"
#include "transport/transport.h"
#include "runtime/world.h"

/* Format the line into one buffer and write it with one write(2), so
 * lines from several PEs never interleave. */
static void emit(const char *routine, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

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

void shmemi_abort_job(int status, const char *msg)
{
    static volatile int aborting;

    if (!aborting) {
        aborting = 1;
        fflush(stdout);
        fflush(stderr);
        /* Segments not yet unlinked (start-up) must not outlive us. */
        shmemi_segment_unlink_all();
        shmemi_transport_abort(); /* e.g. libfabric shm's /dev/shm regions */
        shmemi_boot_abort(status, msg);
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
