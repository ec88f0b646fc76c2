/*
 * base/give_way.c — a yield, and every SHMEMI_NAP_EVERY-th of a wait a
 * nap (why: give_way.h). Where a wait gives its core away anyway, it also
 * checks whether it should report itself (base/waiting.h).
 */
#include "base/give_way.h"
#include "base/waiting.h"

#include <sched.h>
#include <time.h>

void shmemi_give_way(unsigned yields)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;

    if (s && s->now)
        shmemi_wait_tick();
    if (yields % SHMEMI_NAP_EVERY) {
        sched_yield();
        return;
    }
    const struct timespec nap = {0, SHMEMI_NAP_NS};
    nanosleep(&nap, NULL);
}
