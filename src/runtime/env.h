/*
 * runtime/env.h — run-time settings read from the environment. Every
 * variable lives in one table (runtime/env.c) that the info tool and
 * SHMEM_INFO print, so documentation and behaviour cannot drift apart.
 */
#ifndef SHMEMI_ENV_H
#define SHMEMI_ENV_H

#include <stddef.h>
#include <stdio.h>

struct shmemi_settings {
    size_t symmetric_size; /* SHMEM_SYMMETRIC_SIZE, bytes */
    int debug;             /* SHMEM_DEBUG */
    int version;           /* SHMEM_VERSION */
    int info;              /* SHMEM_INFO */
    long spin;             /* SHMEM_SPIN_COUNT, -1 = auto */
};

extern struct shmemi_settings shmemi_settings;

/* Parse every variable; a malformed value is fatal, naming `routine`,
 * the variable and the accepted forms. */
void shmemi_env_load(const char *routine);
/* Print every variable: name, current value (and where it came from),
 * description. Works before init (reads the environment itself). */
void shmemi_env_print(FILE *out);
/* "1.5G" -> bytes; 0 on success, -1 if malformed or too large. */
int shmemi_parse_size(const char *text, size_t *bytes);

#endif /* SHMEMI_ENV_H */
