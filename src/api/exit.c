/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/exit.c — shmem_global_exit: any one PE ends the whole job with
 * `status`. Under a launcher, PMIx_Abort asks it to kill every PE and
 * report the status; a singleton simply exits.
 */
#include "base/abort.h"
#include "shmemi.h"

void shmemi_global_exit(int status)
{
    shmemi_abort_job(status, "shmem_global_exit");
}
