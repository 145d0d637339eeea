/*
 * ts_protocol.h - the numbers of the Table service protocol that both programs apply: the
 * extension (pages, batches) and tablestore-gateway (request bodies, $top, changesets), and the
 * version they are built as. One header, so that the two cannot disagree.
 */
#ifndef TS_PROTOCOL_H
#define TS_PROTOCOL_H

/* The extension's version (tablestore.control's default_version), given by the Makefile. */
#ifndef TS_VERSION
#error "TS_VERSION must be defined by the build (-DTS_VERSION=\"x.y.z\")"
#endif

/*
 * A page of a query holds at most this many entities; $top is 0 to this (0, which Storage
 * Explorer sends, asks for an empty page, as the service answers it).
 */
#define TS_PAGE_MAX 1000

/* A batch (changeset) holds at most this many operations. */
#define TS_BATCH_MAX_OPERATIONS 100

/* A request body, and so a batch, is at most 4 MiB (RequestBodyTooLarge past it). */
#define TS_BODY_MAX_BYTES (4 * 1024 * 1024)

/*
 * The operations document the gateway passes to tablestore.rest_batch: the 4 MiB request with
 * each sub-request's body as a JSON string (entity_json), whose escaping at most doubles it.
 */
#define TS_REST_BATCH_MAX_BYTES (2 * TS_BODY_MAX_BYTES + 64 * 1024)

#endif							/* TS_PROTOCOL_H */
