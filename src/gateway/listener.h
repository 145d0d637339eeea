/*
 * listener.h - the HTTP server (libmicrohttpd): start and stop.
 */
#ifndef GW_LISTENER_H
#define GW_LISTENER_H

#include <stdbool.h>
#include <stddef.h>

extern bool listener_start(char *err, size_t errlen);
extern void listener_stop(void);

#endif
