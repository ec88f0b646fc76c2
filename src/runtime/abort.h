/*
 * runtime/abort.h — ending the whole job (fatal errors, global_exit).
 */
#ifndef SHMEMI_ABORT_H
#define SHMEMI_ABORT_H

#include "shmemi.h"

/* Unlink leftover segments, ask the launcher to end every PE with
 * `status`, and exit this process with it. */
SHMEMI_NORETURN void shmemi_abort_job(int status, const char *msg);

#endif /* SHMEMI_ABORT_H */
