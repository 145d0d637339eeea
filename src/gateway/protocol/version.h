/*
 * version.h - which x-ms-version values the gateway accepts (version.c).
 *
 * The rule (doc/gateway.md, "Versions"): a version is a date written YYYY-MM-DD. It is accepted
 * when it is one the Storage services have published (the list in version.c, from 2009-04-14 on),
 * or when it is a real calendar date later than the newest published one (a version newer than
 * this gateway knows, which the service may have published since: contract §12 requires those
 * to pass). Anything else - not a date, an impossible date, a date between published versions,
 * one before the first - is refused, as the service refuses it (400 InvalidHeaderValue, the
 * header named in the error's details).
 * Pure: no libmicrohttpd, no libpq (unit-tested in test/gateway/unit, fuzzed in gw_auth).
 */
#ifndef GW_VERSION_H
#define GW_VERSION_H

#include <stdbool.h>
#include <stddef.h>

/* The newest version the list holds (what the gateway's documentation names). */
extern const char *version_newest(void);

/* Is v[0..len) a version the gateway accepts? */
extern bool version_accepted(const char *v, size_t len);

#endif
