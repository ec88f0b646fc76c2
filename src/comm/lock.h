/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/lock.h — the one ticket lock behind shmem_set_lock & co. (C: a
 * long, 8 bytes) and SHMEM_SET_LOCK & co. (Fortran: a default INTEGER,
 * 4 bytes; an INTEGER*8 lock uses its first 4).
 */
#ifndef SHMEMI_COMM_LOCK_H
#define SHMEMI_COMM_LOCK_H

#include <stddef.h>

/* `size` is the lock word's width, 4 or 8 bytes. */
void shmemi_ticket_set(void *lock, size_t size, const char *routine);
void shmemi_ticket_clear(void *lock, size_t size, const char *routine);
/* 0 when the lock was taken, 1 when it is held by someone. */
int shmemi_ticket_test(void *lock, size_t size, const char *routine);

#endif /* SHMEMI_COMM_LOCK_H */
