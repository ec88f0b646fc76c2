/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/heap.h — this PE's segments and their exposure to peers.
 */
#ifndef SHMEMI_HEAP_H
#define SHMEMI_HEAP_H

#include <stddef.h>

struct shmemi_boot_info;

/* Create this PE's heap segment: control region, the team pool
 * (`pool_size` bytes) and the user heap (`user_size`). */
void shmemi_heap_create(size_t user_size, size_t pool_size, const char *routine);
/* Replace the program's writable data by a shared mapping (best effort:
 * warns and leaves globals non-symmetric when it cannot). */
void shmemi_data_expose(const char *routine);
/* Publish own segment names, map every node-local peer's. Collective. */
void shmemi_segments_exchange(const struct shmemi_boot_info *bi, const char *routine);
/* After every PE has mapped (a barrier): close what let peers open the
 * segments (memfd fds, /dev/shm names). */
void shmemi_segments_seal(void);
/* The symmetric heap's high-water mark is now at least `end` (a heap
 * offset; every PE reaches the same one, allocation being symmetric):
 * back it (POSIX) and map it from every node-local peer. Returns 1 when a
 * peer's mapping moved (transport/ must then reread peer_base), else 0;
 * a limit that stops it is fatal, named. */
int shmemi_heap_reach(size_t end, const char *routine);
/* Unmap peers and the heap; own data stays mapped (it holds the globals). */
void shmemi_segments_release(void);

#endif /* SHMEMI_HEAP_H */
