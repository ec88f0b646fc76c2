/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/alloc.c — first-fit over an address-ordered list of blocks that
 * tile the heap, coalescing free neighbours on free. Simple and exactly
 * reproducible; O(blocks) per call is fine for the collective,
 * barrier-bound calls that use it.
 */
#include <stdlib.h>

#include "memory/alloc.h"

struct block {
    size_t off, size;
    int used;
    struct block *prev, *next;
};

static struct block *head;

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) & ~(a - 1);
}

static struct block *new_block(size_t off, size_t size, int used)
{
    struct block *b = malloc(sizeof *b);
    if (b)
        *b = (struct block){.off = off, .size = size, .used = used};
    return b;
}

/* Insert `n` after `b`. */
static void link_after(struct block *b, struct block *n)
{
    n->prev = b;
    n->next = b->next;
    if (b->next)
        b->next->prev = n;
    b->next = n;
}

static void unlink_block(struct block *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    free(b);
}

/* Merge b with free neighbours; b must be free. */
static void coalesce(struct block *b)
{
    if (b->next && !b->next->used) {
        b->size += b->next->size;
        unlink_block(b->next);
    }
    if (b->prev && !b->prev->used) {
        b->prev->size += b->size;
        unlink_block(b);
    }
}

int shmemi_alloc_init(size_t heap_size)
{
    shmemi_alloc_fini();
    head = new_block(0, heap_size, 0);
    return head ? 0 : -1;
}

void shmemi_alloc_fini(void)
{
    while (head) {
        struct block *n = head->next;
        free(head);
        head = n;
    }
}

size_t shmemi_alloc(size_t size, size_t align)
{
    if (align < SHMEMI_ALLOC_MIN_ALIGN)
        align = SHMEMI_ALLOC_MIN_ALIGN;
    if (size > SIZE_MAX / 2)
        return SHMEMI_ALLOC_FAILED;
    size = round_up(size ? size : 1, SHMEMI_ALLOC_MIN_ALIGN);

    for (struct block *b = head; b; b = b->next) {
        size_t start, pad;

        if (b->used)
            continue;
        start = round_up(b->off, align);
        pad = start - b->off;
        if (start < b->off || b->size < pad || b->size - pad < size)
            continue;
        if (pad) { /* leave the alignment gap as a free block before us */
            struct block *gap = new_block(b->off, pad, 0);
            if (!gap)
                return SHMEMI_ALLOC_FAILED;
            if (b->prev)
                link_after(b->prev, gap);
            else {
                gap->next = head;
                head->prev = gap;
                head = gap;
            }
            b->off = start;
            b->size -= pad;
        }
        if (b->size > size) {
            struct block *rest = new_block(b->off + size, b->size - size, 0);
            if (!rest)
                return SHMEMI_ALLOC_FAILED;
            link_after(b, rest);
            b->size = size;
        }
        b->used = 1;
        return b->off;
    }
    return SHMEMI_ALLOC_FAILED;
}

static struct block *find_used(size_t off)
{
    for (struct block *b = head; b && b->off <= off; b = b->next)
        if (b->off == off && b->used)
            return b;
    return NULL;
}

size_t shmemi_alloc_block_of(size_t off, size_t *start)
{
    for (struct block *b = head; b; b = b->next)
        if (b->used && off - b->off < b->size) {
            *start = b->off;
            return b->size;
        }
    return 0;
}

size_t shmemi_alloc_size(size_t off)
{
    struct block *b = find_used(off);
    return b ? b->size : 0;
}

int shmemi_alloc_free(size_t off)
{
    struct block *b = find_used(off);

    if (!b)
        return -1;
    b->used = 0;
    coalesce(b);
    return 0;
}

int shmemi_alloc_resize(size_t off, size_t size)
{
    struct block *b = find_used(off), *n;

    if (!b || size > SIZE_MAX / 2)
        return -1;
    size = round_up(size ? size : 1, SHMEMI_ALLOC_MIN_ALIGN);
    n = b->next;
    if (size > b->size) { /* grow: take from a free successor */
        if (!n || n->used || b->size + n->size < size)
            return -1;
        n->size -= size - b->size;
        n->off += size - b->size;
        b->size = size;
        if (!n->size)
            unlink_block(n);
        return 0;
    }
    if (size < b->size) { /* shrink: hand the tail back */
        struct block *rest = new_block(b->off + size, b->size - size, 0);
        if (!rest)
            return -1;
        link_after(b, rest);
        b->size = size;
        coalesce(rest);
    }
    return 0;
}

size_t shmemi_alloc_largest_free(void)
{
    size_t m = 0;
    for (struct block *b = head; b; b = b->next)
        if (!b->used && b->size > m)
            m = b->size;
    return m;
}
