/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memory/describe.h — a symmetric address as the program names it, for
 * reports: "never_set", "counts+8", "offset 16 of a 4096-byte heap
 * allocation (heap offset 8192)", or the bare address.
 */
#ifndef SHMEMI_DESCRIBE_H
#define SHMEMI_DESCRIBE_H

#include <stddef.h>

void shmemi_describe_addr(const void *addr, char *buf, size_t len);

#endif /* SHMEMI_DESCRIBE_H */
