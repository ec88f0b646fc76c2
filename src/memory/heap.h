/*
 * memory/heap.h — this PE's segments and their exposure to peers.
 */
#ifndef SHMEMI_HEAP_H
#define SHMEMI_HEAP_H

#include <stddef.h>

struct shmemi_boot_info;

/* Create this PE's heap segment: control region + `user_size` bytes. */
void shmemi_heap_create(size_t user_size, const char *routine);
/* Replace the program's writable data by a shared mapping (best effort:
 * warns and leaves globals non-symmetric when it cannot). */
void shmemi_data_expose(const char *routine);
/* Publish own segment names, map every node-local peer's. Collective. */
void shmemi_segments_exchange(const struct shmemi_boot_info *bi, const char *routine);
/* After every PE has mapped (a barrier): names are no longer needed. */
void shmemi_segments_unlink(void);
/* Unmap peers and the heap; own data stays mapped (it holds the globals). */
void shmemi_segments_release(void);

#endif /* SHMEMI_HEAP_H */
