/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/segment.c — create, reserve, expose and attach shared-memory
 * segments (see segment.h for the two backings and why).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/segment.h"
#include "shmemi.h"

static void random_name(char *out, const char *routine)
{
    unsigned char r[8];
    size_t got = 0;

    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno != EINTR)
            shmemi_fatal(routine, "getrandom failed: %s", strerror(errno));
        if (n > 0)
            got += (size_t)n;
    }
    snprintf(out, SHMEMI_SEG_NAME_MAX, "/shoal-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7]);
}

static uint64_t pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Opens /proc/<pid>/fd/<fd> and checks it is the file (ino, dev). */
static int open_through_proc(int pid, int fd, uint64_t ino, uint64_t dev)
{
    char path[64];
    struct stat st;
    int f;

    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0)
        return -1;
    if (fstat(f, &st) != 0 || (uint64_t)st.st_ino != ino || (uint64_t)st.st_dev != dev) {
        close(f);
        errno = ESTALE;
        return -1;
    }
    return f;
}

/* A memfd this process can hand to its peers, or -1: memfd_create is
 * refused (old kernel, seccomp), or /proc cannot reopen it (not mounted,
 * another pid namespace's), or peers may not (a process that is not
 * dumpable is closed to other processes of its user). Decided once. */
static int memfd_for_peers(void)
{
    static int usable = -1;
    struct stat st;
    char self[32], mine[32];
    ssize_t n;
    int fd, again;

    if (usable == 0)
        return -1;
    fd = memfd_create("shoal", MFD_CLOEXEC);
    if (fd < 0 || usable == 1)
        return fd;
    usable = 0;
    /* /proc/self names this process only when /proc is our pid
     * namespace's; otherwise /proc/<getpid()> is someone else. */
    n = readlink("/proc/self", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(mine, sizeof mine, "%d", (int)getpid());
    if (strcmp(self, mine) || prctl(PR_GET_DUMPABLE) != 1 || fstat(fd, &st) != 0 ||
        (again = open_through_proc(getpid(), fd, (uint64_t)st.st_ino, (uint64_t)st.st_dev)) < 0) {
        close(fd);
        return -1;
    }
    close(again);
    usable = 1;
    return fd;
}

const char *shmemi_segment_full_hint(void)
{
    static char line[160];
    struct statvfs v;

    if (statvfs("/dev/shm", &v) == 0)
        snprintf(line, sizeof line, "/dev/shm has %llu MiB free: give it more (docker run --shm-size=...) "
                 "or lower SHMEM_SYMMETRIC_SIZE", (unsigned long long)v.f_bavail * v.f_frsize >> 20);
    else
        snprintf(line, sizeof line, "give /dev/shm more room (docker run --shm-size=...) or lower "
                 "SHMEM_SYMMETRIC_SIZE");
    return line;
}

/* fallocate, retried when a signal interrupts it (a large one can take a while). */
static int reserve_range(int fd, size_t from, size_t len)
{
    int rc;

    do
        rc = fallocate(fd, 0, (off_t)from, (off_t)len);
    while (rc != 0 && errno == EINTR);
    return rc;
}

int shmemi_segment_reserve(struct shmemi_segment *s, size_t upto)
{
    if (upto > s->size)
        upto = s->size;
    if (s->backing != SHMEMI_BACKING_POSIX || upto <= s->reserved)
        return 0;
    if (s->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (reserve_range(s->fd, s->reserved, upto - s->reserved) != 0)
        return -1;
    s->reserved = upto;
    return 0;
}

static int posix_create(struct shmemi_segment *s, const char *routine)
{
    int fd = -1;

    for (int tries = 0; fd < 0; tries++) {
        random_name(s->name, routine);
        fd = shm_open(s->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && (errno != EEXIST || tries > 8))
            shmemi_fatal(routine, "no shared memory: memfd_create or /proc is not usable here, and "
                         "shm_open(%s) failed: %s", s->name, strerror(errno));
    }
    shmemi_cleanup_add(s->name);
    return fd;
}

void shmemi_segment_create(struct shmemi_segment *s, size_t size, void *at, size_t reserve, const char *routine)
{
    int fd = memfd_for_peers();

    s->name[0] = '\0';
    s->backing = fd >= 0 ? SHMEMI_BACKING_MEMFD : SHMEMI_BACKING_POSIX;
    if (fd < 0)
        fd = posix_create(s, routine);
    s->fd = fd;
    s->size = size;
    s->reserved = 0;
    /* Sparse: pages are only committed when first touched. */
    if (ftruncate(fd, (off_t)size) != 0)
        shmemi_fatal(routine, "cannot size a shared-memory segment to %zu bytes: %s", size, strerror(errno));
    if (shmemi_segment_reserve(s, reserve) != 0)
        shmemi_fatal(routine, "cannot reserve %zu bytes of shared memory in /dev/shm (%s): %s", reserve,
                     strerror(errno), shmemi_segment_full_hint());
    s->base = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
    if (s->base == MAP_FAILED)
        shmemi_fatal(routine, "cannot map a shared-memory segment of %zu bytes: %s%s", size, strerror(errno),
                     shmemi_address_limit_hint(errno));
}

void shmemi_segment_ref(const struct shmemi_segment *s, struct shmemi_segment_ref *out)
{
    struct stat st;

    memset(out, 0, sizeof *out);
    out->backing = (uint32_t)s->backing;
    if (s->backing == SHMEMI_BACKING_POSIX) {
        memcpy(out->name, s->name, SHMEMI_SEG_NAME_MAX);
        return;
    }
    out->pid = (int32_t)getpid();
    out->fd = s->fd;
    if (fstat(s->fd, &st) == 0) {
        out->ino = (uint64_t)st.st_ino;
        out->dev = (uint64_t)st.st_dev;
    }
    out->pid_ns = pid_namespace();
}

void *shmemi_segment_attach(const struct shmemi_segment_ref *ref, size_t len, int pe, const char *routine)
{
    uint64_t ns = pid_namespace();
    int fd;
    void *p;

    if (ref->backing == SHMEMI_BACKING_POSIX) {
        fd = shm_open(ref->name, O_RDWR | O_CLOEXEC, 0);
        if (fd < 0)
            shmemi_fatal(routine, "cannot open PE %d's segment %s: %s", pe, ref->name, strerror(errno));
    } else {
        if (ref->pid_ns && ns && ref->pid_ns != ns)
            shmemi_fatal(routine, "PE %d shares this node but runs in another pid namespace, so its memory "
                         "cannot be opened through /proc: start the node's PEs in one pid namespace "
                         "(docker run --pid=..., or one container per node)", pe);
        fd = open_through_proc(ref->pid, ref->fd, ref->ino, ref->dev);
        if (fd < 0)
            shmemi_fatal(routine, "cannot open PE %d's memory through /proc/%d/fd/%d: %s", pe, ref->pid,
                         ref->fd, strerror(errno));
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        shmemi_fatal(routine, "cannot map %zu bytes of PE %d's memory: %s%s", len, pe, strerror(errno),
                     shmemi_address_limit_hint(errno));
    return p;
}

void shmemi_segment_seal(struct shmemi_segment *s, int keep_fd)
{
    if (s->name[0]) {
        shm_unlink(s->name);
        shmemi_cleanup_remove(s->name);
        s->name[0] = '\0';
    }
    if (!keep_fd && s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}

void shmemi_segment_close(struct shmemi_segment *s)
{
    shmemi_segment_seal(s, 0);
}

const char *shmemi_address_limit_hint(int err)
{
    static char line[160];
    struct rlimit r;

    if (err != ENOMEM || getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return "";
    snprintf(line, sizeof line, " (the address-space limit, ulimit -v, is %llu KiB: raise it or lower "
             "SHMEM_SYMMETRIC_SIZE)", (unsigned long long)r.rlim_cur >> 10);
    return line;
}
