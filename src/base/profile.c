/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/profile.c — SHMEM_PROFILE's counting (base/profile.h): the flag,
 * the clock, the per-thread nesting and the list of routine sites. The
 * gathering and the report are api/profile.c's.
 */
#include <time.h>

#include "base/profile.h"

int shmemi_prof_flag;
_Thread_local SHMEMI_PROF_TLS unsigned shmemi_prof_depth;
_Thread_local SHMEMI_PROF_TLS uint64_t shmemi_prof_wait_ns;
/* This thread's call being counted, for the report to close. */
static _Thread_local SHMEMI_PROF_TLS struct shmemi_prof_call *prof_current;

static struct shmemi_prof_site *site_list;
static int prof_mode;

uint64_t shmemi_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void site_list_add(struct shmemi_prof_site *site, const char *name)
{
    int no = 0;

    if (!__atomic_compare_exchange_n(&site->listed, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return; /* another thread listed it */
    site->name = name;
    site->next = __atomic_load_n(&site_list, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(&site_list, &site->next, site, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
        ;
}

void shmemi_prof_count(struct shmemi_prof_site *site, const char *name, uint64_t bytes, uint64_t ns,
                       uint64_t wait_ns)
{
    if (!__atomic_load_n(&site->listed, __ATOMIC_ACQUIRE))
        site_list_add(site, name);
    __atomic_fetch_add(&site->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&site->bytes, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&site->ns, ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&site->wait_ns, wait_ns, __ATOMIC_RELAXED);
}

void shmemi_prof_enter(struct shmemi_prof_call *c, struct shmemi_prof_site *site, const char *name)
{
    shmemi_prof_depth++;
    prof_current = c;
    c->site = site;
    c->name = name;
    c->closed = 0;
    c->wait0 = shmemi_prof_wait_ns;
    c->t0 = shmemi_now_ns();
}

static void count_call(struct shmemi_prof_call *c, uint64_t bytes)
{
    uint64_t t = shmemi_now_ns();

    shmemi_prof_count(c->site, c->name, bytes, t - c->t0, shmemi_prof_wait_ns - c->wait0);
    c->closed = 1;
}

void shmemi_prof_leave(struct shmemi_prof_call *c, uint64_t bytes)
{
    if (!c->closed)
        count_call(c, bytes);
    prof_current = NULL;
    shmemi_prof_depth--;
}

const char *shmemi_prof_close_outer(void)
{
    struct shmemi_prof_call *c = prof_current;

    if (!c)
        return NULL;
    if (!c->closed)
        count_call(c, 0);
    return c->name;
}

void shmemi_prof_set_mode(int mode)
{
    prof_mode = mode;
    __atomic_store_n(&shmemi_prof_flag, mode, __ATOMIC_RELAXED);
}

int shmemi_prof_mode(void)
{
    return prof_mode;
}

void shmemi_prof_control(int level)
{
    if (prof_mode)
        __atomic_store_n(&shmemi_prof_flag, level ? prof_mode : SHMEMI_PROF_OFF, __ATOMIC_RELAXED);
}

struct shmemi_prof_site *shmemi_prof_sites(void)
{
    return __atomic_load_n(&site_list, __ATOMIC_ACQUIRE);
}

void shmemi_prof_reset(void)
{
    for (struct shmemi_prof_site *s = shmemi_prof_sites(); s; s = s->next)
        s->calls = s->bytes = s->ns = s->wait_ns = 0;
}
