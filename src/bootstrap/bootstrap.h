/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/bootstrap.h — start-up services from the launcher: who we
 * are, who shares our node, a key/value exchange, and job abort (a hook
 * it registers with base/abort.h while the launcher is reachable). The
 * only code that talks to PMIx, PMI-2 or PMI-1 lives behind this
 * interface (bootstrap.c chooses); without a launcher the job is a
 * singleton (one PE) served from a local table.
 */
#ifndef SHMEMI_BOOTSTRAP_H
#define SHMEMI_BOOTSTRAP_H

#include <stddef.h>

struct shmemi_boot_info {
    int rank;
    int size;
    int singleton;
    int n_local;      /* PEs on this node, this one included */
    int *local_pes;   /* [n_local] their world ranks, ascending (malloc'd) */
};

void shmemi_boot_init(struct shmemi_boot_info *bi, const char *routine);
void shmemi_boot_fini(struct shmemi_boot_info *bi);

/* Publish a blob under `key`, then exchange: after shmemi_boot_exchange()
 * returns, shmemi_boot_get() can read any PE's blob. Collective. */
void shmemi_boot_put(const char *key, const void *data, size_t len, const char *routine);
/* The same, readable by this node's PEs only (no copy in other nodes'
 * stores: for what only the node needs). */
void shmemi_boot_put_node(const char *key, const void *data, size_t len, const char *routine);
void shmemi_boot_exchange(const char *routine);
void shmemi_boot_get(int pe, const char *key, void *data, size_t len, const char *routine);
/* The same for a blob of at most `max` bytes: returns its length. */
size_t shmemi_boot_get_var(int pe, const char *key, void *data, size_t max, const char *routine);
/* The host PE `pe` runs on, as the launcher names it (one string per
 * node in the launcher's store, none of ours per PE); "?" if unknown.
 * For error messages: it costs a lookup. */
void shmemi_boot_hostname(int pe, char *out, size_t len);

/* The protocol this run uses, for SHMEM_INFO: "PMIx", "PMI-2 (libpmi2.so.0)",
 * "PMI-1", "singleton (no launcher)"; "none" before shmemi_boot_init. */
const char *shmemi_boot_name(void);
/* What shmemi_boot_init would choose here, by the environment alone
 * (shoal-info). */
const char *shmemi_boot_expected(void);

/* SHMEM_VIRTUAL_NODES: keep in local_pes only the PEs of this PE's
 * group among k contiguous groups (k <= 1: no change). */
void shmemi_boot_virtual_nodes(struct shmemi_boot_info *bi, long k);

#endif /* SHMEMI_BOOTSTRAP_H */
