/*
 * base/give_way.c — a yield, and every SHMEMI_NAP_EVERY-th of a wait a
 * nap (why: give_way.h).
 */
#include "base/give_way.h"

#include <sched.h>
#include <time.h>

void shmemi_give_way(unsigned yields)
{
    if (yields % SHMEMI_NAP_EVERY) {
        sched_yield();
        return;
    }
    const struct timespec nap = {0, SHMEMI_NAP_NS};
    nanosleep(&nap, NULL);
}
