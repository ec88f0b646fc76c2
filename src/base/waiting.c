/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/waiting.c — the hang report: a wait that has lasted
 * SHMEM_HANG_REPORT seconds prints one line saying what it waits for,
 * again after ten times as long, and so on; SIGUSR1 asks every waiting
 * thread for its line at once (docs/user-guide.md, "When a program hangs
 * or is slow").
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shmemi.h"
#include "base/env.h"
#include "base/waiting.h"
#include "base/world.h"

#define SLOTS 64

static struct shmemi_wait_slot slots[SLOTS];
static atomic_int slot_used[SLOTS];
/* Raised by SIGUSR1 while some thread waits; each waiting thread answers
 * once per raise. */
static atomic_uint requests;

_Thread_local __attribute__((tls_model("initial-exec"))) struct shmemi_wait_slot *shmemi_wait_slot_mine;
_Thread_local __attribute__((tls_model("initial-exec"))) int shmemi_crowded;
/* Threads past SLOTS wait in a slot of their own that no report sees. */
static _Thread_local struct shmemi_wait_slot unseen = {.index = -1};

static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

static void slot_release(void *arg)
{
    struct shmemi_wait_slot *s = arg;

    s->now = NULL;
    atomic_store(&slot_used[s->index], 0);
}

static void slot_key_make(void)
{
    if (pthread_key_create(&slot_key, slot_release) != 0)
        slot_key = (pthread_key_t)-1;
}

struct shmemi_wait_slot *shmemi_wait_slot_claim(void)
{
    pthread_once(&slot_key_once, slot_key_make);
    for (int i = 0; i < SLOTS; i++) {
        int expect = 0;
        if (!atomic_compare_exchange_strong(&slot_used[i], &expect, 1))
            continue;
        slots[i] = (struct shmemi_wait_slot){.index = i, .seen = atomic_load(&requests)};
        if (slot_key != (pthread_key_t)-1)
            pthread_setspecific(slot_key, &slots[i]);
        return shmemi_wait_slot_mine = &slots[i];
    }
    return shmemi_wait_slot_mine = &unseen;
}

/* The report of one wait, as one write(2): lines of several PEs and
 * threads never interleave. */
static void report(const struct shmemi_waiting *w, const struct shmemi_wait_slot *s, uint64_t now,
                   const char *why)
{
    char line[1024], thread[24] = "";
    double waited = w->start_ns ? (double)(now - w->start_ns) / 1e9 : 0;
    int n;

    if (s->index > 0)
        snprintf(thread, sizeof thread, " (thread %d)", s->index);
    n = snprintf(line, sizeof line, "shoal: PE %d%s: %s: %s has waited %.1f s ", shmemi_world.my_pe, thread, why,
                 shmemi_as_called(w->routine), waited);
    if (n < 0 || (size_t)n >= sizeof line - 2)
        n = 0;
    w->describe(w, line + n, sizeof line - (size_t)n - 1);
    n = (int)strlen(line);
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}

void shmemi_wait_tick(uint64_t now)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;
    struct shmemi_waiting *w = s->now;
    double after = shmemi_settings.hang_report_s;
    unsigned asked = atomic_load_explicit(&requests, memory_order_relaxed);

    if (!w->start_ns) {
        w->start_ns = now;
        w->report_ns = 0;
    }
    if (s->seen != asked) {
        s->seen = asked;
        report(w, s, now, "SIGUSR1");
    }
    if (after <= 0)
        return;
    if (!w->report_ns)
        w->report_ns = w->start_ns + (uint64_t)(after * 1e9);
    if (now < w->report_ns)
        return;
    report(w, s, now, "hang report");
    /* Again after ten times as long as it has waited by now. */
    w->report_ns = w->start_ns + (now - w->start_ns) * 10;
}

/* ---- SIGUSR1 ---- */

static struct sigaction saved_usr1;
static int usr1_installed;

/* Decimal digits of v at out (no terminator); their count. */
static size_t format_uint(char *out, unsigned long v)
{
    char digits[24];
    size_t n = 0;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

/* Async-signal-safe: the waiting threads print their own lines (at their
 * next yield); with none waiting, one line from here. */
static void on_usr1(int sig)
{
    static const char idle[] = ": SIGUSR1: not in a blocking call of the library (computing, or "
                               "blocked outside it)\n";
    char line[160] = "shoal: PE ";
    size_t n = strlen(line);
    int any = 0, saved_errno = errno;

    (void)sig;
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slot_used[i]) && __atomic_load_n(&slots[i].now, __ATOMIC_ACQUIRE))
            any = 1;
    if (any) {
        atomic_fetch_add(&requests, 1);
        errno = saved_errno;
        return;
    }
    n += format_uint(line + n, (unsigned long)(shmemi_world.my_pe < 0 ? 0 : shmemi_world.my_pe));
    memcpy(line + n, idle, sizeof idle - 1);
    n += sizeof idle - 1;
    if (write(STDERR_FILENO, line, n) < 0)
        n = 0;
    errno = saved_errno;
}

void shmemi_wait_report_init(void)
{
    struct sigaction now, sa;

    if (usr1_installed || sigaction(SIGUSR1, NULL, &now) != 0 || now.sa_handler != SIG_DFL ||
        (now.sa_flags & SA_SIGINFO))
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &saved_usr1) == 0)
        usr1_installed = 1;
}

void shmemi_wait_report_fini(void)
{
    struct sigaction now;

    if (!usr1_installed)
        return;
    usr1_installed = 0;
    /* Put the default back unless the program has a handler of its own now. */
    if (sigaction(SIGUSR1, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == on_usr1)
        sigaction(SIGUSR1, &saved_usr1, NULL);
}
