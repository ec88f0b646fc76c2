/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/segment.h — this PE's shared-memory segments and how node-local
 * peers open them. Two backings, chosen once per process:
 *  - memfd (memfd_create): no name, so nothing can be left behind, not
 *    bounded by /dev/shm's size and not needing it writable. A peer opens
 *    it through /proc/<owner pid>/fd/<fd>, which works while the owner
 *    keeps the fd open (until every peer has opened it: the end of
 *    shmem_init) and when the peer shares the owner's pid namespace.
 *  - POSIX shm (shm_open in /dev/shm), where memfd or /proc is not usable:
 *    random names (/shoal-<hex>) created O_EXCL|0600, in the cleanup
 *    registry (base/cleanup.h) until unlinked at the end of shmem_init.
 *    /dev/shm is a size-limited tmpfs, where touching a page it has no room
 *    for is a SIGBUS: so what may be touched is reserved with fallocate
 *    first (shmemi_segment_reserve), and a full /dev/shm is an error then.
 */
#ifndef SHMEMI_SEGMENT_H
#define SHMEMI_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#define SHMEMI_SEG_NAME_MAX 32

enum { SHMEMI_BACKING_MEMFD = 1, SHMEMI_BACKING_POSIX = 2 };

struct shmemi_segment {
    int backing;   /* SHMEMI_BACKING_* */
    char name[SHMEMI_SEG_NAME_MAX]; /* POSIX: until unlinked */
    int fd;        /* open while peers may still open the segment */
    void *base;    /* mapping in this process */
    size_t size;
    size_t reserved; /* POSIX: bytes from the start fallocate has backed */
};

/* What a peer needs to open a segment; published through the bootstrap. */
struct shmemi_segment_ref {
    uint32_t backing;
    int32_t pid, fd;     /* memfd: /proc/<pid>/fd/<fd> */
    uint64_t ino, dev;   /* memfd: the file, checked after open */
    uint64_t pid_ns;     /* memfd: the owner's pid namespace (inode) */
    char name[SHMEMI_SEG_NAME_MAX]; /* POSIX */
};

/* Create a segment of `size` bytes (sparse) and map it whole at `at`
 * (MAP_FIXED over a range the caller reserved) or anywhere (`at` NULL).
 * `reserve`: bytes from the start that may be touched at once. */
void shmemi_segment_create(struct shmemi_segment *s, size_t size, void *at, size_t reserve, const char *routine);
/* Back [0, upto) so touching it cannot fault (POSIX: fallocate; memfd:
 * nothing to do, it is not size-limited). 0, or -1 with errno. */
int shmemi_segment_reserve(struct shmemi_segment *s, size_t upto);
void shmemi_segment_ref(const struct shmemi_segment *s, struct shmemi_segment_ref *out);
/* Map [0, len) of a peer's segment, read-write and shared. */
void *shmemi_segment_attach(const struct shmemi_segment_ref *ref, size_t len, int pe, const char *routine);
/* Every peer has opened it: close the fd (memfd) and unlink the name
 * (POSIX). The fd of a POSIX segment that still reserves stays open. */
void shmemi_segment_seal(struct shmemi_segment *s, int keep_fd);
/* Close the fd, if open, and unlink the name, if any. */
void shmemi_segment_close(struct shmemi_segment *s);
/* The line's end for a full /dev/shm: what to give it, or what to lower. */
const char *shmemi_segment_full_hint(void);
/* For a mapping that failed with err: " (the address-space limit, ulimit
 * -v, is N KiB: ...)" when the limit is why (ENOMEM under a finite
 * RLIMIT_AS), else "". */
const char *shmemi_address_limit_hint(int err);

#endif /* SHMEMI_SEGMENT_H */
