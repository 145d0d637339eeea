/*
 * ts_core.h - base include for tablestore code that also builds outside the server.
 *
 * The parsers and codecs (entity JSON, entity binary form, EDM values, OData filters) never call
 * ereport: they return a TsError instead, so that the fuzz targets in test/fuzz can link them with
 * the frontend libpgcommon (-DTS_FRONTEND) and the backend glue decides how to report.
 */
#ifndef TS_CORE_H
#define TS_CORE_H

#ifdef TS_FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

/*
 * PostgreSQL 15 only: the one version Debian 12 ships, and the one the code and its tests are
 * written for (pg_class_ownercheck, postgres_fdw's internal prototypes in remote_call.c, no
 * soft-error API). The Makefile refuses another major version before compiling.
 */
#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "tablestore is built for PostgreSQL 15 only"
#endif

#ifdef TS_FRONTEND

/*
 * The frontend has no varlena macros (they live in postgres.h). The fuzz builds only ever make
 * and read plain varlenas with a 4-byte header, so these are enough there (little-endian only,
 * like the fuzz hosts).
 */
#define TS_VARLENA_LEN(p)	(*(const uint32 *) (p))
#define SET_VARSIZE(p, len)	(*(uint32 *) (p) = (uint32) (len) << 2)
#define VARSIZE(p)			((TS_VARLENA_LEN(p) >> 2) & 0x3FFFFFFF)
#define VARDATA(p)			(((char *) (p)) + VARHDRSZ)
#define VARSIZE_ANY_EXHDR(p) (VARSIZE(p) - VARHDRSZ)
#define VARDATA_ANY(p)		VARDATA(p)
#endif

#include "lib/stringinfo.h"

/*
 * Where the core writes text that each program keeps in buffers of its own (the extension's
 * StringInfo, the gateway's Buf, which never exits on a failed allocation): len bytes at s.
 */
typedef void (*TsPut) (void *sink, const char *s, size_t len);

/*
 * Guards for loops and recursion over user input: the backend's stack-depth and interrupt checks,
 * nothing in the frontend fuzz builds (which bound their inputs instead).
 */
#ifdef TS_FRONTEND
#define TS_CHECK_STACK() ((void) 0)
#define TS_CHECK_INTERRUPTS() ((void) 0)
#else
#include "miscadmin.h"
#define TS_CHECK_STACK() check_stack_depth()
#define TS_CHECK_INTERRUPTS() CHECK_FOR_INTERRUPTS()
#endif

/* Little-endian loads and stores: the stored entity format is the same on every platform. */
static inline uint16
ts_rd16(const uint8 *p)
{
	return (uint16) (p[0] | (p[1] << 8));
}

static inline uint32
ts_rd32(const uint8 *p)
{
	return (uint32) p[0] | ((uint32) p[1] << 8) | ((uint32) p[2] << 16) | ((uint32) p[3] << 24);
}

static inline uint64
ts_rd64(const uint8 *p)
{
	return (uint64) ts_rd32(p) | ((uint64) ts_rd32(p + 4) << 32);
}

static inline void
ts_wr16(uint8 *p, uint16 v)
{
	p[0] = (uint8) v;
	p[1] = (uint8) (v >> 8);
}

static inline void
ts_wr32(uint8 *p, uint32 v)
{
	p[0] = (uint8) v;
	p[1] = (uint8) (v >> 8);
	p[2] = (uint8) (v >> 16);
	p[3] = (uint8) (v >> 24);
}

static inline void
ts_wr64(uint8 *p, uint64 v)
{
	ts_wr32(p, (uint32) v);
	ts_wr32(p + 4, (uint32) (v >> 32));
}

#endif							/* TS_CORE_H */
