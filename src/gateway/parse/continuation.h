/*
 * continuation.h - opaque continuation tokens (NextPartitionKey, NextRowKey, NextTableName).
 *
 * Only the gateway writes and reads them. Form, like the service's: "1!<n>!<payload>" where the
 * payload is n characters of base64 of the key's UTF-8 bytes, in a URL-safe alphabet
 * (A-Z a-z 0-9 '.' '_', padding '=' written as '-'), so a token needs no escaping in a URL.
 * Decoding is strict (version, length, alphabet, canonical padding, UTF-8, no NUL): anything else
 * is a tampered token and the caller answers 400 InvalidInput.
 */
#ifndef GW_CONTINUATION_H
#define GW_CONTINUATION_H

#include "util.h"

#define CONT_MAX_KEY 4096		/* decoded bytes */

extern char *cont_encode(Arena *a, const char *key, size_t n);
extern bool cont_decode(Arena *a, const char *tok, size_t n, char **key, size_t *keylen);

#endif
