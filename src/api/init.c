/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/init.c — bringing the world up and down. Init and finalize are
 * reference counted (OpenSHMEM 1.6): only the first init builds the
 * world and only the last finalize tears it down. A program that ends
 * with init outstanding (start_pes, or shmem_init without finalize, as
 * OpenSHMEM 1.0-era programs and some examples do) is finalized at exit
 * when its status is 0, the same way for both; a nonzero status ends the
 * whole job with that status, since peers may be waiting for this PE.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/profile.h"
#include "base/abort.h"
#include "base/cleanup.h"
#include "base/copy.h"
#include "base/env.h"
#include "base/launcher_watch.h"
#include "base/profile.h"
#include "base/waiting.h"
#include "bootstrap/bootstrap.h"
#include "coll/barrier.h"
#include "coll/group.h"
#include "memory/alloc.h"
#include "memory/ctrl.h"
#include "memory/heap.h"
#include "memory/map.h"
#include "base/world.h"
#include "team/pool.h"
#include "team/team.h"
#include "transport/transport.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemi_boot_info boot_info;
static int exit_hook_registered;
static pid_t init_pid; /* a fork()ed child's exit is not this PE's */

/* The CPUs this node's PEs may run on: the union of their affinities (a
 * launcher's binding, a cgroup or container cpuset), or, while unknown
 * or where affinity cannot be read, the online CPUs. A job confined to
 * fewer CPUs than the node has is oversubscribed by what it may use: a
 * PE that waits must give its CPU away at once, or a node-local peer it
 * waits for sits behind it for a scheduler tick (a round trip 0.7 ms
 * instead of 7 us with two PEs bound to one CPU). */
#define NODE_CPUS_KEY "shoal.cpus"
static long node_cpus;

static void choose_wait_policy(long cpus)
{
    struct shmemi_world *w = &shmemi_world;

    node_cpus = cpus;
    w->oversubscribed = cpus > 0 && w->n_local_all > cpus;
    w->pes_per_cpu = w->oversubscribed ? (int)((w->n_local_all + cpus - 1) / cpus) : 1;
    if (shmemi_settings.spin >= 0)
        w->spin_limit = (unsigned)shmemi_settings.spin;
    else
        w->spin_limit = w->oversubscribed ? 0 : 1000;
}

/* Publish this PE's affinity to its node (rides on the next exchange). */
static void publish_cpus(const char *routine)
{
    cpu_set_t mine;

    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine); /* more CPUs than a cpu_set_t holds: counted as unknown */
    shmemi_boot_put_node(NODE_CPUS_KEY, &mine, sizeof mine, routine);
}

/* After the exchange: the wait policy on the CPUs the node's PEs (all
 * of them, whatever SHMEM_VIRTUAL_NODES says) may use. The same answer
 * on every PE of a node, as the collectives that read it need. */
static void refine_wait_policy(const int *node_pes, int n, const char *routine)
{
    cpu_set_t all, one;

    CPU_ZERO(&all);
    for (int i = 0; i < n; i++) {
        shmemi_boot_get(node_pes[i], NODE_CPUS_KEY, &one, sizeof one, routine);
        if (CPU_COUNT(&one) == 0)
            return; /* a PE could not tell: keep the online count */
        CPU_OR(&all, &all, &one);
    }
    choose_wait_policy(CPU_COUNT(&all));
}

static void print_banner(void)
{
    if (shmemi_world.my_pe != 0)
        return;
    if (shmemi_settings.version || shmemi_settings.info)
        printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    if (shmemi_settings.info) {
        printf("Node: %d PE%s on %ld CPU%s%s\n", shmemi_world.n_local_all, shmemi_world.n_local_all == 1 ? "" : "s",
               node_cpus, node_cpus == 1 ? "" : "s",
               shmemi_world.oversubscribed ? ": oversubscribed, a waiting PE yields its CPU at once" : "");
        printf("Bootstrap: %s\n", shmemi_boot_name());
        shmemi_copy_print(stdout);
        shmemi_env_print(stdout);
    }
    fflush(stdout);
}

/* A team's sync block: the flag layout is coll/'s, the pool team/'s. */
static size_t team_block_bytes(int n)
{
    return (size_t)shmemi_grp_team_slots(n) * SHMEMI_POOL_GRANULE;
}

static void world_up(const char *routine)
{
    struct shmemi_world *w = &shmemi_world;
    struct shmemi_boot_info *bi = &boot_info;
    size_t pool;
    int *node_pes;

    /* Before anything lands in /dev/shm. */
    shmemi_cleanup_arm();
    shmemi_init_phase(NULL); /* SHMEM_INIT_TIMING's clock starts */
    /* First, while no other thread exists (PMIx starts one): a global
     * written during the remap would be lost. */
    shmemi_data_expose(routine);
    shmemi_boot_init(bi, routine);
    shmemi_init_phase("pmix_init");
    w->my_pe = bi->rank;
    w->n_pes = bi->size;
    w->singleton = bi->singleton;
    /* A launcher that dies must not leave this PE behind (a singleton's
     * parent is a shell, not a launcher). */
    if (!w->singleton)
        shmemi_launcher_watch_start(routine);
    w->n_local = w->n_local_all = bi->n_local;
    shmemi_env_load(routine);
    shmemi_prof_start(routine); /* before the fast-path table: SHMEM_PROFILE turns it off */
    choose_wait_policy(sysconf(_SC_NPROCESSORS_ONLN)); /* on the real node's PE count */
    /* The real node's PEs, before SHMEM_VIRTUAL_NODES splits the node. */
    node_pes = malloc((size_t)bi->n_local * sizeof *node_pes);
    if (!node_pes)
        shmemi_fatal(routine, "out of memory");
    memcpy(node_pes, bi->local_pes, (size_t)bi->n_local * sizeof *node_pes);
    shmemi_boot_virtual_nodes(bi, shmemi_settings.virtual_nodes);
    shmemi_team_node_setup(bi, routine); /* SHMEMX_TEAM_NODE: the node, whatever the path */
    /* SHMEM_TRANSPORT=ofi: no peer shares memory with us, so each PE is
     * its own node (SHMEM_TEAM_SHARED = this PE, as shmem_ptr says). */
    if (shmemi_settings.transport == SHMEMI_PATH_OFI)
        shmemi_boot_virtual_nodes(bi, bi->size);
    w->n_local = bi->n_local;
    shmemi_team_setup(bi, routine);

    /* The team pool (sync blocks of teams) follows the control region, in
     * its segment (SHMEMI_SEG_CTRL); room for the three predefined teams
     * at least. */
    pool = shmemi_team_pool_bytes(3 * team_block_bytes(1 << 30));
    shmemi_heap_create(shmemi_settings.symmetric_size, pool, routine);
    if (shmemi_alloc_init(shmemi_map.seg_size[SHMEMI_SEG_HEAP]) != 0)
        shmemi_fatal(routine, "out of memory");
    shmemi_team_pool_setup(SHMEMI_CTRL_SIZE, pool, team_block_bytes, routine);
    shmemi_init_phase("teams_heap");
    /* Opens libfabric when some peer needs it; its card rides on the
     * segment exchange's fence. */
    shmemi_transport_prepare(bi, routine);
    publish_cpus(routine);
    shmemi_init_phase("ofi_publish");
    shmemi_segments_exchange(bi, routine);
    refine_wait_policy(node_pes, w->n_local_all, routine);
    free(node_pes);
    shmemi_init_phase("map_peers");
    shmemi_transport_select(routine);
    shmemi_init_phase("peer_table");
    /* Once every PE has opened every segment, what let them can go. */
    shmemi_barrier_team(&shmemi_team_world, routine);
    shmemi_init_phase("barrier");
    shmemi_segments_seal();
    shmemi_fast_fill();
    shmemi_transport_start();
    shmemi_init_phase("start");
    shmemi_wait_report_init(); /* SIGUSR1: what each waiting thread waits for */
    print_banner();
    shmemi_init_phase_report();
}

static void world_down(void)
{
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    /* No PE may unmap while a peer still accesses its memory. */
    shmemi_barrier_team(&shmemi_team_world, "shmem_finalize");
    /* SHMEM_PROFILE: every PE is here, and nothing is torn down yet. */
    shmemi_prof_report();
    if (shmemi_settings.info && shmemi_world.my_pe == 0) {
        shmemi_copy_print_timed(stdout);
        fflush(stdout);
    }
    shmemi_fast_clear();
    shmemi_transport_release();
    shmemi_segments_release();
    shmemi_alloc_fini();
    shmemi_team_teardown();
    shmemi_boot_fini(&boot_info);
    shmemi_wait_report_fini();
    shmemi_world.my_pe = -1;
    shmemi_world.n_pes = 0;
    shmemi_cleanup_disarm();
}

/* Runs at exit() and at return from main, with the status. Status 0 is
 * a program done with its work: finalize as shmem_finalize would (its
 * barrier keeps peers' memory mapped until every PE is here). Nonzero
 * is a failure: end the job now, with that status, rather than wait in
 * a barrier that peers still working may never reach. */
static void finalize_at_exit(int status, void *unused)
{
    (void)unused;
    if (getpid() != init_pid)
        return;
    status &= 0xff; /* what the parent will see: exit(256) is a 0 */
    pthread_mutex_lock(&init_lock);
    if (shmemi_world.init_count > 0 && status != 0) {
        shmemi_warn("exit", "the program ended with status %d without calling shmem_finalize", status);
        shmemi_abort_job(status, "shoal: exit without shmem_finalize");
    }
    if (shmemi_world.init_count > 0) {
        if (shmemi_settings.debug && shmemi_world.my_pe == 0)
            shmemi_warn("exit", "the program ended without calling shmem_finalize: finalizing");
        shmemi_world.init_count = 0;
        world_down();
    }
    pthread_mutex_unlock(&init_lock);
}

static void init_common(const char *routine, int level)
{
    uint64_t t0 = shmemi_now_ns(); /* SHMEM_PROFILE counts the init that builds the world */

    pthread_mutex_lock(&init_lock);
    if (shmemi_world.init_count == 0) {
        /* Before the network path opens: it serializes its own calls
         * below MULTIPLE (transport/ofi.h). */
        shmemi_world.thread_level = level;
        world_up(routine);
        shmemi_prof_count_init(routine, t0);
        init_pid = getpid();
        if (!exit_hook_registered)
            exit_hook_registered = on_exit(finalize_at_exit, NULL) == 0;
    } else if (level > shmemi_world.thread_level) {
        /* Served too where the network path was opened below MULTIPLE:
         * its calls stay serialized by its own lock (transport/ofi.h). */
        shmemi_world.thread_level = level;
    }
    shmemi_world.init_count++;
    pthread_mutex_unlock(&init_lock);
}

void shmemi_init(void)
{
    init_common("shmem_init", SHMEM_THREAD_SINGLE);
}

int shmemi_init_thread(int requested, int *provided)
{
    int level = requested;

    /* Nothing below takes locks, so every level up to MULTIPLE is met. */
    if (level < SHMEM_THREAD_SINGLE)
        level = SHMEM_THREAD_SINGLE;
    if (level > SHMEM_THREAD_MULTIPLE)
        level = SHMEM_THREAD_MULTIPLE;
    init_common("shmem_init_thread", level);
    if (provided)
        *provided = shmemi_world.thread_level;
    return 0;
}

void shmemi_start_pes(int npes)
{
    (void)npes; /* ignored since OpenSHMEM 1.2 */
    init_common("start_pes", SHMEM_THREAD_SINGLE);
}

void shmemi_query_thread(int *provided)
{
    if (provided)
        *provided = shmemi_world.thread_level;
}

void shmemi_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (shmemi_world.init_count > 0 && --shmemi_world.init_count == 0)
        world_down();
    pthread_mutex_unlock(&init_lock);
}

void shmemi_query_initialized(int *initialized)
{
    if (initialized)
        *initialized = shmemi_world.init_count > 0;
}
