/*
 * base/segment.h — named POSIX shared-memory segments. Names are random
 * (/shoal-<hex>) and created O_EXCL|0600 so no other user can guess or
 * pre-create them; every created name is in the cleanup registry
 * (base/cleanup.h) until it is unlinked, so a fault during start-up
 * leaves nothing behind in /dev/shm.
 */
#ifndef SHMEMI_SEGMENT_H
#define SHMEMI_SEGMENT_H

#include <stddef.h>

#define SHMEMI_SEG_NAME_MAX 32

struct shmemi_segment {
    char name[SHMEMI_SEG_NAME_MAX];
    int fd;        /* open until the caller has mapped what it needs */
    void *base;    /* mapping in this process */
    size_t size;
};

/* Create and size a new segment and map it at `at` (MAP_FIXED: a range
 * the caller has reserved) or anywhere when `at` is NULL; fd stays open. */
void shmemi_segment_create(struct shmemi_segment *s, size_t size, void *at, const char *routine);
/* Map a peer's segment by name (read-write, shared). */
void *shmemi_segment_attach(const char *name, size_t size, int pe, const char *routine);
void shmemi_segment_close(struct shmemi_segment *s);
void shmemi_segment_unlink(struct shmemi_segment *s);

#endif /* SHMEMI_SEGMENT_H */
