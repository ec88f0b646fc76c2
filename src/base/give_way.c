/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/give_way.c — a yield, or a nap (why: give_way.h). Where a thread
 * gives its core away anyway, it also reads the clock, checks whether its
 * wait should report itself (base/waiting.h), and decides whether to nap.
 */
#include "base/give_way.h"
#include "base/waiting.h"
#include "base/world.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int loadavg_fd = -2; /* -2: not opened yet; -1: unreadable */

int shmemi_node_crowded(const char *loadavg, int ours)
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
    return cpus > 0 && runnable > cpus && runnable > ours;
}

/* This thread's view of the node: crowded by others (shmemi_crowded, base/waiting.h)
 * until a look finds it not, and the probe under way. */
static _Thread_local struct {
    uint64_t next_look_ns;
    unsigned looks, hits;
} crowd;

/* One look at the node's run queue (why: give_way.h). A crowded thread
 * stays so while the looks, SHMEMI_CROWD_CHECK_NS apart, find the node
 * crowded. A thread not crowded that finds it so starts a probe of
 * SHMEMI_CROWD_LOOKS looks SHMEMI_CROWD_LOOK_GAP_NS apart, and is crowded
 * if SHMEMI_CROWD_HITS of them agree. This job's PEs on the node may all
 * be runnable: only tasks beyond them are others'. */
static void look_at_node(uint64_t now)
{
    int hit = shmemi_node_crowded(NULL, shmemi_world.n_local_all);

    if (shmemi_crowded || (!hit && !crowd.looks)) {
        shmemi_crowded = hit;
        crowd.next_look_ns = now + SHMEMI_CROWD_CHECK_NS;
        return;
    }
    crowd.hits += (unsigned)hit;
    if (++crowd.looks < SHMEMI_CROWD_LOOKS) {
        crowd.next_look_ns = now + SHMEMI_CROWD_LOOK_GAP_NS;
        return;
    }
    shmemi_crowded = crowd.hits >= SHMEMI_CROWD_HITS;
    crowd.looks = crowd.hits = 0;
    crowd.next_look_ns = now + SHMEMI_CROWD_CHECK_NS;
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
    uint64_t now = shmemi_now_ns();

    if (w)
        shmemi_wait_tick(now);
    if (now >= crowd.next_look_ns)
        look_at_node(now);
    if (shmemi_crowded) {
        /* An eighth of the wait so far: what it adds to the wait's end
         * is at most that share. */
        uint64_t ns = w && w->start_ns ? (now - w->start_ns) / 8 : 0;
        nap(ns < SHMEMI_NAP_NS ? SHMEMI_NAP_NS : ns > SHMEMI_CROWD_NAP_MAX_NS ? SHMEMI_CROWD_NAP_MAX_NS : (long)ns);
        return;
    }
    if (yields % SHMEMI_NAP_EVERY) {
        sched_yield();
        return;
    }
    nap(SHMEMI_NAP_NS);
}
