/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/query.c — who am I, who can I reach, and library identity.
 */
#include <string.h>
#include <time.h>

#include "base/profile.h"
#include "memory/addr.h"
#include "shmemi.h"
#include "transport/transport.h"

int shmemi_my_pe(void)
{
    return shmemi_world.my_pe;
}

int shmemi_n_pes(void)
{
    return shmemi_world.n_pes;
}

int shmemi_pe_accessible(int pe)
{
    return shmemi_world.init_count > 0 && pe >= 0 && pe < shmemi_world.n_pes && shmemi_tp_ready();
}

int shmemi_addr_accessible(const void *addr, int pe)
{
    size_t off;
    int seg;

    if (!shmemi_pe_accessible(pe))
        return 0;
    seg = shmemi_sym_lookup(addr, 1, &off);
    /* Node-local: reachable exactly when mapped here; network: every
     * symmetric address is registered. */
    return seg >= 0 && shmemi_tp_reaches(pe, seg, off);
}

void *shmemi_ptr(const void *dest, int pe)
{
    size_t off;
    int seg;

    if (!shmemi_pe_accessible(pe))
        return NULL;
    seg = shmemi_sym_lookup(dest, 1, &off);
    return seg >= 0 ? shmemi_tp_ptr(pe, seg, off) : NULL;
}

void shmemi_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmemi_info_get_name(char *name)
{
    if (!name)
        return;
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

void shmemi_pcontrol(int level)
{
    shmemi_prof_control(level); /* SHMEM_PROFILE: 0 pauses its counting, others resume it */
}

/* shmemx_wtime: seconds on a monotonic clock (differences are what
 * matter; the origin is unspecified). Needs no initialised library. */
double shmemi_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* shmemx_register_gettid: Shoal keeps no state keyed by a thread id
 * (private contexts belong to their handle, not to a thread), so the
 * function is accepted and never called. */
void shmemi_register_gettid(shmemi_gettid_fn gettid_fn)
{
    (void)gettid_fn;
}
