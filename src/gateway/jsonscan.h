/*
 * jsonscan.h - the little JSON the gateway itself reads: a syntax check of a request body that
 * must be a JSON object (batch sub-requests), and the string value of one top-level member
 * (PartitionKey/RowKey of an inserted entity, for Location headers). Everything else about
 * entities is the extension's job.
 */
#ifndef GW_JSONSCAN_H
#define GW_JSONSCAN_H

#include "util.h"

#define JSON_MAX_DEPTH 64

/* true when s[0..n) is one JSON object (RFC 8259, UTF-8 validated, nesting <= JSON_MAX_DEPTH) */
extern bool json_is_object(const char *s, size_t n);

/*
 * The decoded string value of the top-level member `name` of a valid JSON object; false when it
 * is absent, not a string, holds \u0000, or the text is not a valid object.
 */
extern bool json_top_string(Arena *a, const char *s, size_t n, const char *name, char **out, size_t *outlen);

#endif
