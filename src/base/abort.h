/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/abort.h — ending the whole job (fatal errors, global_exit).
 */
#ifndef SHMEMI_ABORT_H
#define SHMEMI_ABORT_H

#include "shmemi.h"

/* Unlink leftover segments, ask the launcher to end every PE with
 * `status` (through the hook), and exit this process with it. */
SHMEMI_NORETURN void shmemi_abort_job(int status, const char *msg);

/* The status the job is being ended with, or -1 if it is not. */
int shmemi_abort_status(void);

/* Who ends the other PEs: the bootstrap registers its launcher call here
 * once it has one, and NULL when it is gone, so this layer needs no
 * bootstrap. The hook returns when it cannot reach the launcher. */
typedef void (*shmemi_abort_hook)(int status, const char *msg);
void shmemi_abort_hook_set(shmemi_abort_hook hook);

#endif /* SHMEMI_ABORT_H */
