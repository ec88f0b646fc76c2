/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/kvs_text.h — blobs in a PMI-1/PMI-2 key/value store, whose
 * values are text of limited length: hex, split over numbered keys.
 * PE p's blob `key` is "key.p" (chunk 0: "<bytes>:<hex>") and, when it
 * does not fit, "key.p.1", "key.p.2", ... (hex only). Pure functions,
 * unit-tested (tests/unit/kvs_text_test.c).
 */
#ifndef SHMEMI_KVS_TEXT_H
#define SHMEMI_KVS_TEXT_H

#include <stddef.h>

/* Room chunk 0 keeps for "<bytes>:" (any size_t in decimal). */
#define SHMEMI_KVS_HEAD 21

/* Blob bytes per chunk for values of at most `vallen` characters
 * (0 if vallen is too small to carry any). */
size_t shmemi_kvs_per_chunk(size_t vallen);
/* Chunks a blob of `len` bytes takes (at least 1). */
size_t shmemi_kvs_chunks(size_t len, size_t per);
/* The key of chunk `i` of PE `pe`'s blob `key`; -1 if it exceeds `max`
 * characters (terminator included). */
int shmemi_kvs_key(char *out, size_t max, const char *key, int pe, size_t i);
/* The text of chunk `i` into `out` (room for per * 2 + SHMEMI_KVS_HEAD + 1). */
void shmemi_kvs_encode(char *out, const void *data, size_t len, size_t per, size_t i);
/* Chunk 0's text: the blob's length into *len, its first bytes into
 * `data` (room for `max`). -1 if malformed or longer than `max`. */
int shmemi_kvs_decode_head(const char *text, void *data, size_t max, size_t per, size_t *len);
/* Chunk i > 0 of a blob of `len` bytes into `data`; -1 if malformed. */
int shmemi_kvs_decode(const char *text, void *data, size_t len, size_t per, size_t i);

#endif /* SHMEMI_KVS_TEXT_H */
