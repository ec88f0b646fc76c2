/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_ep.c — endpoints: an RDM endpoint with its error queue
 * and its two completion counters, and the /dev/shm names of libfabric's
 * shm provider: chosen by us, and removed behind a PE that dies.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "transport/ofi.h"

/* ---- names left in /dev/shm ----
 * libfabric's shm provider backs each endpoint with /dev/shm/<name>,
 * where fi_getname says "fi_shm://<name>", and unlinks it only in
 * fi_close. A PE that ends through shmem_global_exit, a fatal error or
 * a signal never gets there: the cleanup registry unlinks them then. */
#define SHM_NAMES_MAX 72
static char shm_names[SHM_NAMES_MAX][64];
/* Each name's file, held open with a shared lock while the endpoint
 * lives: the lock, which ends with the process however it ends, is what
 * tells a later PE that the file is still someone's. */
static int shm_locks[SHM_NAMES_MAX]; /* the descriptor + 1; 0: none */

static void remember_shm_name(struct fid_ep *ep)
{
    static const char prefix[] = "fi_shm://";
    char addr[SHMEMI_OFI_ADDR_MAX + 1];
    size_t len = SHMEMI_OFI_ADDR_MAX;

    if (fi_getname(&ep->fid, addr, &len) || len >= sizeof addr)
        return;
    addr[len] = '\0';
    if (strncmp(addr, prefix, sizeof prefix - 1))
        return;
    for (int i = 0; i < SHM_NAMES_MAX; i++)
        if (!shm_names[i][0]) {
            snprintf(shm_names[i], sizeof shm_names[i], "/%.60s", addr + sizeof prefix - 1);
            shmemi_cleanup_add(shm_names[i]);
            shm_locks[i] = shm_open(shm_names[i], O_RDONLY, 0) + 1;
            if (shm_locks[i] > 0)
                (void)flock(shm_locks[i] - 1, LOCK_SH | LOCK_NB);
            return;
        }
}

/* A PE killed by SIGKILL runs no cleanup, and outside oshrun (a
 * singleton, srun, mpirun) nothing removes its files for it: the next PE
 * of this user on the node to name a shm endpoint does. One of our files
 * is stale when its process is gone, it is older than a start-up takes to
 * lock it, and no process holds its lock (an owner alive in another pid
 * namespace that shares this /dev/shm does). */
#define STALE_AFTER_S 2

static void sweep_stale_shm_names(void)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d))) {
        long pid;
        unsigned long long nonce;
        int idx, end = 0, fd;
        struct stat st, again;

        if (sscanf(de->d_name, "shoal-%ld-%16llx-%d%n", &pid, &nonce, &idx, &end) != 3 || de->d_name[end] ||
            pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            continue;
        if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && S_ISREG(st.st_mode) &&
            time(NULL) - (st.st_ctime > st.st_mtime ? st.st_ctime : st.st_mtime) >= STALE_AFTER_S &&
            flock(fd, LOCK_EX | LOCK_NB) == 0 && fstatat(dirfd(d), de->d_name, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
            again.st_ino == st.st_ino)
            unlinkat(dirfd(d), de->d_name, 0);
        close(fd);
    }
    closedir(d);
}

/* libfabric's shm names an endpoint's file <pid>:<uid>:<index>, and
 * refuses to enable it (EBUSY, "Device or resource busy") when a file of
 * that name exists and a process of that id is alive: a killed process
 * leaves its file behind, and once its id comes round again, to us, the
 * file looks live. Seen when SIGKILLed jobs had left files. So each shm
 * endpoint gets a name of ours before it is enabled: the process id, a
 * random start-up nonce and an index, which no stale file shares. */
static void name_shm_endpoint(struct fid_ep *ep)
{
    static const char prefix[] = "fi_shm://";
    static uint64_t nonce;
    static int next;
    char addr[SHMEMI_OFI_ADDR_MAX + 1], name[96];
    size_t len = SHMEMI_OFI_ADDR_MAX;
    int idx;

    if (fi_getname(&ep->fid, addr, &len) || len >= sizeof addr || strncmp(addr, prefix, sizeof prefix - 1))
        return;
    if (!__atomic_load_n(&nonce, __ATOMIC_ACQUIRE)) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
        r |= 1;
        if (__atomic_compare_exchange_n(&nonce, &(uint64_t){0}, r, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            sweep_stale_shm_names(); /* once, before this process's first file */
    }
    idx = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
    snprintf(name, sizeof name, "%sshoal-%ld-%016llx-%d", prefix, (long)getpid(),
             (unsigned long long)__atomic_load_n(&nonce, __ATOMIC_ACQUIRE), idx);
    fi_setname(&ep->fid, name, strlen(name) + 1); /* on failure the provider's name stays */
}

/* The endpoints are closed: fi_close unlinked their names. */
void shmemi_ofi_forget_shm_names(void)
{
    for (int i = 0; i < SHM_NAMES_MAX; i++) {
        if (shm_names[i][0])
            shmemi_cleanup_remove(shm_names[i]);
        if (shm_locks[i] > 0)
            close(shm_locks[i] - 1);
        shm_locks[i] = 0;
    }
    memset(shm_names, 0, sizeof shm_names);
}

/* ---- endpoints ---- */

void shmemi_ofi_ep_open(struct shmemi_ofi_ep *e, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};

    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->bounce.lock, NULL);
    shmemi_ofi_ctxring_open(e);
    shmemi_ofi_posted_open(e, routine);
    SHMEMI_OFI_CHECK(fi_cq_open(o->domain, &cqa, &e->cq, NULL), "fi_cq_open", routine);
    SHMEMI_OFI_CHECK(fi_cntr_open(o->domain, &ca, &e->w.cntr, NULL), "fi_cntr_open", routine);
    SHMEMI_OFI_CHECK(fi_cntr_open(o->domain, &ca, &e->r.cntr, NULL), "fi_cntr_open", routine);
    SHMEMI_OFI_CHECK(fi_endpoint(o->domain, o->info, &e->ep, NULL), "fi_endpoint", routine);
    name_shm_endpoint(e->ep);
    SHMEMI_OFI_CHECK(fi_ep_bind(e->ep, &o->av->fid, 0), "fi_ep_bind(av)", routine);
    SHMEMI_OFI_CHECK(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION),
                     "fi_ep_bind(cq)", routine);
    SHMEMI_OFI_CHECK(fi_ep_bind(e->ep, &e->w.cntr->fid, FI_WRITE), "fi_ep_bind(write counter)", routine);
    SHMEMI_OFI_CHECK(fi_ep_bind(e->ep, &e->r.cntr->fid, FI_READ), "fi_ep_bind(read counter)", routine);
    /* Peers' writes arrive at the default endpoint: counted there for the
     * waits that space their polls (ofi_progress.c). */
    if (e == &o->main && o->spaced_polls && (o->info->caps & FI_RMA_EVENT)) {
        SHMEMI_OFI_CHECK(fi_cntr_open(o->domain, &ca, &o->remote_writes, NULL), "fi_cntr_open", routine);
        SHMEMI_OFI_CHECK(fi_ep_bind(e->ep, &o->remote_writes->fid, FI_REMOTE_WRITE),
                         "fi_ep_bind(remote write counter)", routine);
    }
    SHMEMI_OFI_CHECK(fi_enable(e->ep), "fi_enable", routine);
    remember_shm_name(e->ep);
}

void shmemi_ofi_ep_close(struct shmemi_ofi_ep *e)
{
    SHMEMI_OFI_CLOSE(e->ep);
    if (e == &shmemi_ofi.main)
        SHMEMI_OFI_CLOSE(shmemi_ofi.remote_writes);
    SHMEMI_OFI_CLOSE(e->w.cntr);
    SHMEMI_OFI_CLOSE(e->r.cntr);
    SHMEMI_OFI_CLOSE(e->cq);
    shmemi_ofi_bounce_release(&e->bounce); /* the endpoint is closed: nothing reads it now */
    pthread_mutex_destroy(&e->bounce.lock);
    shmemi_ofi_posted_close(e);
    shmemi_ofi_ctxring_close(e);
    memset(e, 0, sizeof *e);
}
