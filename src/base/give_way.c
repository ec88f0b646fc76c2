/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/give_way.c — a yield, or a nap (why: give_way.h). Where a wait
 * gives its core away anyway, it also reads the clock, checks whether it
 * should report itself (base/waiting.h), and decides whether to nap.
 */
#include "base/give_way.h"
#include "base/waiting.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int loadavg_fd = -2; /* -2: not opened yet; -1: unreadable */

int shmemi_node_crowded(const char *loadavg)
{
    static long cpus;
    char buf[128];
    const char *p;
    long runnable;

    if (!loadavg) {
        /* Acquire and release: a thread that reads the descriptor another
         * opened must see the open happen first (ThreadSanitizer does). */
        int fd = __atomic_load_n(&loadavg_fd, __ATOMIC_ACQUIRE);
        ssize_t n;

        if (fd == -2) {
            int mine = open("/proc/loadavg", O_RDONLY | O_CLOEXEC), expect = -2;
            if (!__atomic_compare_exchange_n(&loadavg_fd, &expect, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
                mine >= 0)
                close(mine);
            fd = __atomic_load_n(&loadavg_fd, __ATOMIC_ACQUIRE);
        }
        if (fd < 0 || (n = pread(fd, buf, sizeof buf - 1, 0)) <= 0)
            return 0;
        buf[n] = '\0';
        loadavg = buf;
    }
    if (!__atomic_load_n(&cpus, __ATOMIC_RELAXED))
        __atomic_store_n(&cpus, sysconf(_SC_NPROCESSORS_ONLN), __ATOMIC_RELAXED);
    /* "0.52 0.58 0.59 3/1234 5678": the fourth field's numerator counts
     * the runnable tasks, the reader included. */
    p = loadavg;
    for (int field = 0; field < 3 && p; field++) {
        while (*p && *p != ' ')
            p++;
        while (*p == ' ')
            p++;
    }
    if (!p || *p < '0' || *p > '9')
        return 0;
    runnable = strtol(p, NULL, 10);
    return cpus > 0 && runnable > cpus;
}

/* One look at the node's run queue (why: give_way.h). A crowded wait
 * stays so while the looks, SHMEMI_CROWD_CHECK_NS apart, find the node
 * crowded. A wait not crowded that finds it so starts a probe of
 * SHMEMI_CROWD_LOOKS looks SHMEMI_CROWD_LOOK_GAP_NS apart, and is crowded
 * if SHMEMI_CROWD_HITS of them agree: this job's own progress threads
 * are runnable for a moment every 0.1-1 ms, and one look often counts
 * them, while another job's tasks kept from the CPUs stay runnable. */
static void look_at_node(struct shmemi_waiting *w, uint64_t now)
{
    int hit = shmemi_node_crowded(NULL);

    if (shmemi_wait_crowded || (!hit && !w->crowd_looks)) {
        shmemi_wait_crowded = hit;
        w->crowd_check_ns = now + SHMEMI_CROWD_CHECK_NS;
        return;
    }
    w->crowd_hits += (unsigned)hit;
    if (++w->crowd_looks < SHMEMI_CROWD_LOOKS) {
        w->crowd_check_ns = now + SHMEMI_CROWD_LOOK_GAP_NS;
        return;
    }
    shmemi_wait_crowded = w->crowd_hits >= SHMEMI_CROWD_HITS;
    w->crowd_looks = w->crowd_hits = 0;
    w->crowd_check_ns = now + SHMEMI_CROWD_CHECK_NS;
}

static void nap(long ns)
{
    const struct timespec t = {0, ns};
    nanosleep(&t, NULL);
}

void shmemi_give_way(unsigned yields)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;
    struct shmemi_waiting *w = s ? s->now : NULL;

    if (w) {
        uint64_t now = shmemi_now_ns();

        shmemi_wait_tick(now);
        uint64_t waited = now - w->start_ns;

        if (waited >= SHMEMI_CROWD_AFTER_NS && now >= w->crowd_check_ns)
            look_at_node(w, now);
        if (shmemi_wait_crowded) {
            /* An eighth of the wait so far: what it adds to the wait's
             * end is at most that share. */
            uint64_t ns = waited / 8;
            nap(ns < SHMEMI_NAP_NS ? SHMEMI_NAP_NS : ns > SHMEMI_CROWD_NAP_MAX_NS ? SHMEMI_CROWD_NAP_MAX_NS : (long)ns);
            return;
        }
    }
    if (yields % SHMEMI_NAP_EVERY) {
        sched_yield();
        return;
    }
    nap(SHMEMI_NAP_NS);
}
