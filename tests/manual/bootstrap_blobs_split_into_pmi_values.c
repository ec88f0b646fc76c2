/* SPDX-License-Identifier: BSD-3-Clause */
/* The PMI-1/PMI-2 bootstrap stores blobs as hex text split over numbered
 * keys (src/bootstrap/kvs_text.c): exact texts and keys, round trips at
 * every length around a chunk boundary, and malformed or oversized
 * values refused. A unit test: it links kvs_text.c alone, no launcher. */
#include <stdio.h>
#include <string.h>

#include "bootstrap/kvs_text.h"

static int fails;
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fails++;                                                          \
            fprintf(stderr, "FAIL line %d: (%s): ", __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

/* Encode `len` bytes in values of at most `vallen` characters, decode
 * chunk by chunk; the blob must come back whole. */
static void round_trip(const unsigned char *blob, size_t len, size_t vallen)
{
    size_t per = shmemi_kvs_per_chunk(vallen), n = shmemi_kvs_chunks(len, per), got = 0;
    unsigned char back[4096];
    char text[2048];

    memset(back, 0xee, sizeof back);
    for (size_t i = 0; i < n; i++) {
        shmemi_kvs_encode(text, blob, len, per, i);
        CHECK(strlen(text) <= vallen, "len %zu chunk %zu: %zu characters, limit %zu", len, i, strlen(text), vallen);
        if (i == 0)
            CHECK(shmemi_kvs_decode_head(text, back, sizeof back, per, &got) == 0, "len %zu: head refused", len);
        else
            CHECK(shmemi_kvs_decode(text, back, len, per, i) == 0, "len %zu: chunk %zu refused", len, i);
    }
    CHECK(got == len, "decoded length %zu, want %zu", got, len);
    CHECK(memcmp(back, blob, len) == 0, "len %zu (vallen %zu): bytes differ", len, vallen);
    CHECK(back[len] == 0xee, "len %zu: wrote past the blob", len);
}

int main(void)
{
    unsigned char blob[4096];
    unsigned char out[64];
    char text[256], key[64];
    size_t len = 99;

    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (unsigned char)(i * 167 + 13);

    /* 1024-character values (Hydra, Slurm's libpmi2): (1024-21)/2 bytes each. */
    CHECK(shmemi_kvs_per_chunk(1024) == 501, "per_chunk(1024) = %zu", shmemi_kvs_per_chunk(1024));
    CHECK(shmemi_kvs_per_chunk(SHMEMI_KVS_HEAD + 1) == 0, "a value too short for one byte is not refused");
    CHECK(shmemi_kvs_per_chunk(SHMEMI_KVS_HEAD + 2) == 1, "per_chunk(HEAD + 2) = %zu", shmemi_kvs_per_chunk(SHMEMI_KVS_HEAD + 2));
    CHECK(shmemi_kvs_chunks(0, 501) == 1, "an empty blob takes %zu chunks", shmemi_kvs_chunks(0, 501));
    CHECK(shmemi_kvs_chunks(501, 501) == 1 && shmemi_kvs_chunks(502, 501) == 2 && shmemi_kvs_chunks(1503, 501) == 3,
          "chunk counts around 501");

    /* Exact texts and keys. */
    shmemi_kvs_encode(text, (const unsigned char[]){0x00, 0xff, 0x1a}, 3, 2, 0);
    CHECK(!strcmp(text, "3:00ff"), "chunk 0 of 00 ff 1a by 2 is \"%s\"", text);
    shmemi_kvs_encode(text, (const unsigned char[]){0x00, 0xff, 0x1a}, 3, 2, 1);
    CHECK(!strcmp(text, "1a"), "chunk 1 of 00 ff 1a by 2 is \"%s\"", text);
    shmemi_kvs_encode(text, "", 0, 2, 0);
    CHECK(!strcmp(text, "0:"), "an empty blob is \"%s\"", text);
    CHECK(shmemi_kvs_key(key, sizeof key, "shoal.ofi", 12, 0) == 0 && !strcmp(key, "shoal.ofi.12"), "key \"%s\"", key);
    CHECK(shmemi_kvs_key(key, sizeof key, "shoal.ofi", 12, 3) == 0 && !strcmp(key, "shoal.ofi.12.3"), "key \"%s\"", key);
    CHECK(shmemi_kvs_key(key, 12, "shoal.ofi", 12, 0) == -1, "a key longer than its room is not refused");

    /* Round trips at each length around the chunk boundaries. */
    for (size_t vallen = 23; vallen <= 1024; vallen = vallen * 3 + 1)
        for (size_t l = 0; l <= 3 * shmemi_kvs_per_chunk(vallen) + 2 && l <= 1600; l++)
            round_trip(blob, l, vallen);
    round_trip(blob, sizeof blob - 1, 1024);

    /* Refused: bad hex, odd or extra digits, missing colon, too long. */
    CHECK(shmemi_kvs_decode_head("2:0g11", out, sizeof out, 8, &len) == -1, "bad digit accepted");
    CHECK(shmemi_kvs_decode_head("2:0A11", out, sizeof out, 8, &len) == -1, "upper-case digit accepted");
    CHECK(shmemi_kvs_decode_head("2:001", out, sizeof out, 8, &len) == -1, "a short value accepted");
    CHECK(shmemi_kvs_decode_head("2:001122", out, sizeof out, 8, &len) == -1, "a long value accepted");
    CHECK(shmemi_kvs_decode_head("2 0011", out, sizeof out, 8, &len) == -1, "no colon accepted");
    CHECK(shmemi_kvs_decode_head(":0011", out, sizeof out, 8, &len) == -1, "no length accepted");
    CHECK(shmemi_kvs_decode_head("65:00", out, sizeof out, 8, &len) == -1, "65 bytes into 64 accepted");
    CHECK(shmemi_kvs_decode_head("99999999999999999999999999:00", out, sizeof out, 8, &len) == -1,
          "an overflowing length accepted");
    CHECK(shmemi_kvs_decode("0011", out, 10, 8, 2) == -1, "a chunk past the last accepted");
    CHECK(shmemi_kvs_decode("001122", out, 10, 8, 1) == -1, "chunk 1 of 10 bytes by 8 is 2 bytes, not 3");
    CHECK(shmemi_kvs_decode("00ff", out, 10, 8, 1) == 0 &&
              out[8] == 0x00 && out[9] == 0xff,
          "chunk 1 of a 10-byte blob lands at bytes 8-9");
    len = 0;
    CHECK(shmemi_kvs_decode_head("3:abcdef", out, sizeof out, 8, &len) == 0 && len == 3 && out[0] == 0xab &&
              out[1] == 0xcd && out[2] == 0xef,
          "3:abcdef decodes to ab cd ef (len %zu)", len);

    if (fails)
        return 1;
    printf("OK\n");
    return 0;
}
