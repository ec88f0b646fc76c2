/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/cleanup.c — the cleanup registry (see cleanup.h). Slots are
 * claimed and released with atomics, so a signal handler can walk them
 * at any moment without a lock.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/world.h"

/* libfabric shm regions (one per endpoint), and heap + data segments on
 * the /dev/shm fallback. */
#define SLOTS 96
#define NAME_MAX_LEN 64
#define RECORD_MAX 256

enum { FREE, BUSY, LIVE };

static struct {
    atomic_int state;
    char name[NAME_MAX_LEN];
    char record[RECORD_MAX]; /* "" when there is no cleanup dir */
} slot[SLOTS];

static void record_path(char *out, const char *name)
{
    const char *dir = getenv("SHOAL_CLEANUP_DIR");

    out[0] = '\0';
    if (!dir || !dir[0])
        return;
    /* Skip the name's leading '/': the record is dir/<entry in /dev/shm>. */
    if (snprintf(out, RECORD_MAX, "%s/%s", dir, name + (name[0] == '/')) >= RECORD_MAX)
        out[0] = '\0';
}

void shmemi_cleanup_add(const char *name)
{
    if (strlen(name) >= NAME_MAX_LEN)
        return;
    for (int i = 0; i < SLOTS; i++) {
        int expect = FREE;
        if (!atomic_compare_exchange_strong(&slot[i].state, &expect, BUSY))
            continue;
        memcpy(slot[i].name, name, strlen(name) + 1);
        record_path(slot[i].record, name);
        if (slot[i].record[0]) {
            int fd = open(slot[i].record, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            if (fd >= 0)
                close(fd);
        }
        atomic_store(&slot[i].state, LIVE);
        return;
    }
}

void shmemi_cleanup_remove(const char *name)
{
    for (int i = 0; i < SLOTS; i++) {
        int expect = LIVE;
        if (atomic_load(&slot[i].state) != LIVE || strcmp(slot[i].name, name) ||
            !atomic_compare_exchange_strong(&slot[i].state, &expect, BUSY))
            continue;
        if (slot[i].record[0])
            unlink(slot[i].record);
        slot[i].name[0] = '\0';
        atomic_store(&slot[i].state, FREE);
        return;
    }
}

void shmemi_cleanup_run(void)
{
    for (int i = 0; i < SLOTS; i++) {
        int expect = LIVE;
        if (!atomic_compare_exchange_strong(&slot[i].state, &expect, BUSY))
            continue;
        shm_unlink(slot[i].name);
        if (slot[i].record[0])
            unlink(slot[i].record);
        slot[i].name[0] = '\0';
        atomic_store(&slot[i].state, FREE);
    }
}

/* ---- signals ---- */

static const int ending[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
static const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_ENDING (sizeof ending / sizeof ending[0])
#define N_CRASHES (sizeof crashes / sizeof crashes[0])
static struct sigaction saved[N_ENDING + N_CRASHES];
static int armed;

static int signal_at(size_t i)
{
    return i < N_ENDING ? ending[i] : crashes[i - N_ENDING];
}

static int is_crash(int sig)
{
    for (size_t i = 0; i < N_CRASHES; i++)
        if (crashes[i] == sig)
            return 1;
    return 0;
}

/* Appends the decimal form of v at p; returns the new end. */
static char *put_uint(char *p, unsigned v)
{
    char digits[12];
    int n = 0;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof digits);
    while (n)
        *p++ = digits[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

/* One write(2), as shmemi_fatal does, built by hand: stdio is not
 * async-signal-safe. */
static void say_crash(int sig)
{
    char line[96];
    const char *name = sigabbrev_np(sig);
    char *p = put_str(line, "shoal: PE ");
    int pe = shmemi_world.my_pe;

    p = pe >= 0 ? put_uint(p, (unsigned)pe) : put_str(p, "?");
    p = put_str(p, ": killed by SIG");
    p = name ? put_str(p, name) : put_uint(p, (unsigned)sig);
    *p++ = '\n';
    if (write(STDERR_FILENO, line, (size_t)(p - line)) < 0)
        return;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (is_crash(sig))
        say_crash(sig);
    shmemi_cleanup_run();
    /* Die of the same signal, as if we had never been here: a fault
     * (si_code > 0, from the kernel) recurs when we return; a signal that
     * was sent is sent again. */
    for (size_t i = 0; i < N_ENDING + N_CRASHES; i++)
        if (signal_at(i) == sig)
            sigaction(sig, &saved[i], NULL);
    if (!is_crash(sig) || info->si_code <= 0)
        raise(sig);
}

/* libinfinipath (loaded with libfabric's psm provider) installs from its
 * constructor, unless IPATH_NO_BACKTRACE is set, handlers for SIGINT,
 * SIGTERM and the crashes that write a backtrace and exit(1): a killed PE
 * would then report an exit without shmem_finalize, not its signal. Its
 * handlers are not the program's: ours replace them, over the default. */
static int is_infinipath_handler(const struct sigaction *sa)
{
    void *fn = (sa->sa_flags & SA_SIGINFO) ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
    Dl_info where;

    if (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN)
        return 0;
    return dladdr(fn, &where) && where.dli_fname && strstr(where.dli_fname, "/libinfinipath.");
}

void shmemi_cleanup_arm(void)
{
    struct sigaction sa;

    if (armed)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_ENDING + N_CRASHES; i++) {
        sigaction(signal_at(i), &sa, &saved[i]);
        if (is_infinipath_handler(&saved[i])) {
            memset(&saved[i], 0, sizeof saved[i]);
            saved[i].sa_handler = SIG_DFL;
        }
        /* A signal the program (or a sanitizer) ignores or handles stays
         * its own; oshrun's records still cover what it leaves. */
        if ((saved[i].sa_flags & SA_SIGINFO) || saved[i].sa_handler != SIG_DFL)
            sigaction(signal_at(i), &saved[i], NULL);
    }
    armed = 1;
}

void shmemi_cleanup_disarm(void)
{
    if (!armed)
        return;
    for (size_t i = 0; i < N_ENDING + N_CRASHES; i++) {
        struct sigaction now;
        /* Only where ours is still in place: the program may have set
         * its own since. */
        if (sigaction(signal_at(i), NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
            now.sa_sigaction == on_fatal_signal)
            sigaction(signal_at(i), &saved[i], NULL);
    }
    armed = 0;
}
