/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/alloc.h — the symmetric heap allocator. Deterministic: the same
 * sequence of calls gives the same offsets on every PE, which is what
 * makes allocations symmetric without communication. Its metadata is
 * private (ordinary malloc), never in the heap, so a stray remote write
 * cannot corrupt it.
 */
#ifndef SHMEMI_ALLOC_H
#define SHMEMI_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define SHMEMI_ALLOC_FAILED SIZE_MAX
#define SHMEMI_ALLOC_MIN_ALIGN 16 /* max_align_t on the platforms we build for */

int shmemi_alloc_init(size_t heap_size);
void shmemi_alloc_fini(void);
/* Offset of a new block, or SHMEMI_ALLOC_FAILED. align: power of two. */
size_t shmemi_alloc(size_t size, size_t align);
/* Size of the live block starting at off, or 0 if there is none. */
size_t shmemi_alloc_size(size_t off);
/* The live block holding off: its size (0 if none) and *start. */
size_t shmemi_alloc_block_of(size_t off, size_t *start);
/* Free the live block at off; -1 if off is not one. */
int shmemi_alloc_free(size_t off);
/* Resize in place (shrink, or grow into a free successor); 0 on success. */
int shmemi_alloc_resize(size_t off, size_t size);
/* Largest free block, for error messages. */
size_t shmemi_alloc_largest_free(void);

#endif /* SHMEMI_ALLOC_H */
