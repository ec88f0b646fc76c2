/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/kvs_text.c — blobs as hex text split over keys (kvs_text.h).
 */
#include <stdio.h>
#include <string.h>

#include "bootstrap/kvs_text.h"

static const char hex_digits[] = "0123456789abcdef";

size_t shmemi_kvs_per_chunk(size_t vallen)
{
    return vallen >= SHMEMI_KVS_HEAD + 2 ? (vallen - SHMEMI_KVS_HEAD) / 2 : 0;
}

size_t shmemi_kvs_chunks(size_t len, size_t per)
{
    return len == 0 ? 1 : (len + per - 1) / per;
}

int shmemi_kvs_key(char *out, size_t max, const char *key, int pe, size_t i)
{
    int n = i ? snprintf(out, max, "%s.%d.%zu", key, pe, i) : snprintf(out, max, "%s.%d", key, pe);
    return n < 0 || (size_t)n >= max ? -1 : 0;
}

/* Bytes of chunk i of a `len`-byte blob. */
static size_t chunk_bytes(size_t len, size_t per, size_t i)
{
    size_t start = i * per;
    return start >= len ? 0 : (len - start < per ? len - start : per);
}

void shmemi_kvs_encode(char *out, const void *data, size_t len, size_t per, size_t i)
{
    const unsigned char *p = (const unsigned char *)data + i * per;
    size_t n = chunk_bytes(len, per, i);

    if (i == 0)
        out += sprintf(out, "%zu:", len);
    for (size_t k = 0; k < n; k++) {
        *out++ = hex_digits[p[k] >> 4];
        *out++ = hex_digits[p[k] & 15];
    }
    *out = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Exactly n bytes of hex, then the end of the text. */
static int unhex(const char *text, unsigned char *out, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int hi = nibble(text[2 * k]), lo = hi < 0 ? -1 : nibble(text[2 * k + 1]);
        if (lo < 0)
            return -1;
        out[k] = (unsigned char)(hi << 4 | lo);
    }
    return text[2 * n] == '\0' ? 0 : -1;
}

int shmemi_kvs_decode_head(const char *text, void *data, size_t max, size_t per, size_t *len)
{
    size_t n = 0;
    const char *p = text;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (max + 9) / 10) /* longer than max: stop before it overflows */
            return -1;
        n = n * 10 + (size_t)(*p - '0');
    }
    if (*p++ != ':' || n > max)
        return -1;
    *len = n;
    return unhex(p, data, chunk_bytes(n, per, 0));
}

int shmemi_kvs_decode(const char *text, void *data, size_t len, size_t per, size_t i)
{
    if (i == 0 || i >= shmemi_kvs_chunks(len, per))
        return -1;
    return unhex(text, (unsigned char *)data + i * per, chunk_bytes(len, per, i));
}
