/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/env.h — run-time settings read from the environment. Every
 * variable lives in one table (base/env.c) that the info tool and
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
    int transport;         /* SHMEM_TRANSPORT: SHMEMI_PATH_* */
    char ofi_provider[64]; /* SHMEM_OFI_PROVIDER, "" = auto */
    long virtual_nodes;    /* SHMEM_VIRTUAL_NODES, 0/1 = off */
    int progress_thread;   /* SHMEM_PROGRESS_THREAD: -1 auto, 0 off, 1 on */
    long progress_interval_us; /* SHMEM_PROGRESS_INTERVAL: the thread's polls while the PE computes */
    int ofi_soft_amo;      /* SHMEM_OFI_ATOMICS=software */
    size_t ofi_bounce_size; /* SHMEM_OFI_BOUNCE_SIZE, bytes: largest put copied */
    int ofi_gather;        /* SHMEM_OFI_GATHER: -1 auto, 0 off, 1 on */
    size_t ofi_gather_put; /* SHMEM_OFI_GATHER_PUT, bytes: largest put gathered */
    long ofi_timeout;      /* SHMEM_OFI_TIMEOUT, seconds; 0 = wait forever */
    unsigned ofi_force;    /* SHMEM_OFI_FORCE: SHMEMI_OFI_FORCE_* bits */
    size_t team_pool_size; /* SHMEM_TEAM_POOL_SIZE, bytes */
    /* Collective algorithms (coll/algo.h: SHMEMI_ALG_*; 0 = auto). */
    int barrier_alg;       /* SHMEM_BARRIER_ALGORITHM */
    int bcast_alg;         /* SHMEM_BCAST_ALGORITHM */
    int collect_alg;       /* SHMEM_COLLECT_ALGORITHM */
    int alltoall_alg;      /* SHMEM_ALLTOALL_ALGORITHM */
    int reduce_alg;        /* SHMEM_REDUCE_ALGORITHM */
    int scan_alg;          /* SHMEM_SCAN_ALGORITHM */
    int init_timing;       /* SHMEM_INIT_TIMING: 0 off, 1 PE 0, 2 every PE */
    double hang_report_s;  /* SHMEM_HANG_REPORT: seconds one wait lasts before it reports; 0 off */
    struct shmemi_profile_setting {
        int mode;          /* SHMEM_PROFILE: SHMEMI_PROF_* (base/profile.h) */
        char file[4096];   /* ... the CSV file (mode SHMEMI_PROF_CSV) */
    } profile;
};

/* SHMEM_OFI_FORCE: act as if the provider required each of these. */
enum {
    SHMEMI_OFI_FORCE_MR_LOCAL = 1,          /* FI_MR_LOCAL: registered local buffers */
    SHMEMI_OFI_FORCE_CONTEXT = 2,           /* FI_CONTEXT / FI_CONTEXT2 */
    SHMEMI_OFI_FORCE_TRANSMIT_COMPLETE = 4, /* no FI_DELIVERY_COMPLETE */
    SHMEMI_OFI_FORCE_THREAD_SAFE = 8,       /* FI_THREAD_SAFE at every thread level */
};

/* SHMEM_TRANSPORT: which path reaches which peer. */
enum { SHMEMI_PATH_AUTO, SHMEMI_PATH_SHM, SHMEMI_PATH_OFI };

extern struct shmemi_settings shmemi_settings;

/* Parse every variable; a malformed value is fatal, naming `routine`,
 * the variable and the accepted forms. */
void shmemi_env_load(const char *routine);
/* Print every variable: name, current value (and where it came from),
 * description. Works before init (reads the environment itself). */
void shmemi_env_print(FILE *out);
/* Row i of the table as documentation (shoal-info --env-roff writes the
 * man pages' list from it): 1, or 0 past the last row. */
struct shmemi_env_doc {
    const char *name;
    const char *alias;    /* deprecated spelling, or NULL */
    const char *fallback; /* default, as text ("" when empty) */
    const char *forms;    /* accepted values */
    const char *desc;
};
int shmemi_env_doc(size_t i, struct shmemi_env_doc *doc);
/* SHMEM_INIT_TIMING read straight from the environment (0, 1 or 2 as in
 * shmemi_settings; malformed reads as 0, and shmemi_env_load then stops
 * the program): shmem_init's clock starts before the variables are loaded. */
int shmemi_env_init_timing(void);
/* "1.5G" -> bytes; 0 on success, -1 if malformed or too large. */
int shmemi_parse_size(const char *text, size_t *bytes);

#endif /* SHMEMI_ENV_H */
