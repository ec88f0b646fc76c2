/*
 * base/segment.c — create, attach, and unlink POSIX shm segments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
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

void shmemi_segment_create(struct shmemi_segment *s, size_t size, void *at, const char *routine)
{
    int fd = -1;

    for (int tries = 0; fd < 0; tries++) {
        random_name(s->name, routine);
        fd = shm_open(s->name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && (errno != EEXIST || tries > 8))
            shmemi_fatal(routine, "shm_open(%s) failed: %s", s->name, strerror(errno));
    }
    shmemi_cleanup_add(s->name);
    /* Sparse: tmpfs pages are only committed when first touched. */
    if (ftruncate(fd, (off_t)size) != 0)
        shmemi_fatal(routine, "cannot size shared-memory segment %s to %zu bytes: %s", s->name, size,
                     strerror(errno));
    s->base = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
    if (s->base == MAP_FAILED)
        shmemi_fatal(routine, "cannot map shared-memory segment %s (%zu bytes): %s", s->name, size,
                     strerror(errno));
    s->fd = fd;
    s->size = size;
}

void *shmemi_segment_attach(const char *name, size_t size, int pe, const char *routine)
{
    int fd = shm_open(name, O_RDWR, 0);
    void *p;

    if (fd < 0)
        shmemi_fatal(routine, "cannot open PE %d's segment %s: %s", pe, name, strerror(errno));
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        shmemi_fatal(routine, "cannot map PE %d's segment %s (%zu bytes): %s", pe, name, size,
                     strerror(errno));
    return p;
}

void shmemi_segment_close(struct shmemi_segment *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

void shmemi_segment_unlink(struct shmemi_segment *s)
{
    if (!s->name[0])
        return;
    shm_unlink(s->name);
    shmemi_cleanup_remove(s->name);
    s->name[0] = '\0';
}
