/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/backend.h — what bootstrap.c (the choice, and the API of
 * bootstrap.h) needs of each launcher protocol: PMIx natively (blobs,
 * scopes, local peers), PMI-1 and PMI-2 through one text key/value
 * store (pmi.c adds blobs, node-local ranks and host names on top).
 */
#ifndef SHMEMI_BOOT_BACKEND_H
#define SHMEMI_BOOT_BACKEND_H

#include <stddef.h>

#include "bootstrap/bootstrap.h"

/* ---- PMIx (pmix.c) ---- */
/* 0, or -1 if no PMIx server answers. */
int shmemi_pmix_init(struct shmemi_boot_info *bi, const char *routine);
void shmemi_pmix_fini(void);
void shmemi_pmix_put(int node_only, const char *key, const void *data, size_t len, const char *routine);
void shmemi_pmix_exchange(const char *routine);
size_t shmemi_pmix_get_var(int pe, const char *key, void *data, size_t max, const char *routine);
void shmemi_pmix_hostname(int pe, char *out, size_t len);

/* ---- PMI-1 and PMI-2: a key/value store of text values ---- */
struct shmemi_pmi_ops {
    const char *name;  /* for SHMEM_INFO: "PMI-2 (libpmi2.so.0)" */
    size_t vallen;     /* longest value put may store */
    size_t keylen;     /* longest key */
    void (*put)(const char *key, const char *value, const char *routine);
    void (*fence)(const char *routine); /* every put before it is readable after */
    /* 0, or -1 if the key is not there. */
    int (*get)(int pe, const char *key, char *value, size_t max, const char *routine);
    void (*abort)(int status, const char *msg); /* returns if it cannot */
    void (*fini)(void);
};

/* Each connects to the launcher and sets *rank and *size; NULL when it
 * cannot start (why, in `why`), fatal when the launcher fails it. */
const struct shmemi_pmi_ops *shmemi_pmi2_open(int *rank, int *size, char *why, size_t why_len,
                                              const char *routine);
const struct shmemi_pmi_ops *shmemi_pmi1_open(int *rank, int *size, char *why, size_t why_len,
                                              const char *routine);

/* pmi.c: the bootstrap over such a store. */
void shmemi_pmi_init(const struct shmemi_pmi_ops *ops, struct shmemi_boot_info *bi, const char *routine);
void shmemi_pmi_fini(void);
void shmemi_pmi_put(const char *key, const void *data, size_t len, const char *routine);
void shmemi_pmi_exchange(const char *routine);
size_t shmemi_pmi_get_var(int pe, const char *key, void *data, size_t max, const char *routine);
void shmemi_pmi_hostname(int pe, char *out, size_t len);

#endif /* SHMEMI_BOOT_BACKEND_H */
