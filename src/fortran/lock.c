/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fortran/lock.c — SHMEM_SET_LOCK, SHMEM_CLEAR_LOCK, SHMEM_TEST_LOCK for
 * Fortran. The spec makes a Fortran lock a default INTEGER (4 bytes with
 * gfortran's defaults), smaller than the C lock's long, so Fortran uses
 * the C ticket lock (comm/lock.c) on the first 4 bytes of the lock
 * variable; an INTEGER*8 lock works too. The word lives on PE 0.
 */
#include "comm/lock.h"
#include "shmemi_fortran.h"

#define FLOCK_SIZE 4

void shmemi_f_set_lock(void *lock)
{
    shmemi_ticket_set(lock, FLOCK_SIZE, "SHMEM_SET_LOCK");
}

void shmemi_f_clear_lock(void *lock)
{
    shmemi_ticket_clear(lock, FLOCK_SIZE, "SHMEM_CLEAR_LOCK");
}

shmemi_fint shmemi_f_test_lock(void *lock)
{
    return shmemi_ticket_test(lock, FLOCK_SIZE, "SHMEM_TEST_LOCK");
}
