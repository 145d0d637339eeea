/*
 * slots.h - client connections by address, and the reserve kept near the connection limit.
 *
 * libmicrohttpd bounds the connections (max_connections) and those of one address
 * (per_ip_connections); but a few addresses, each under its own limit, can still hold every
 * connection - sending nothing - and everyone else waits in the listen backlog. So the last
 * slots_reserve() connections below the limit go only to addresses that hold fewer than
 * SLOTS_LIGHT connections: a client with a connection or two still gets one while a few
 * addresses hold hundreds. (Connections that send nothing are also closed sooner: listener.c's
 * first-header timeout.)
 */
#ifndef GW_SLOTS_H
#define GW_SLOTS_H

#include <stdbool.h>
#include <sys/socket.h>

#define SLOTS_LIGHT 4			/* an address holding fewer still gets a connection near the limit */

/* The number of slots kept near the limit: a tenth of it (at least 16; half of a very small limit). */
extern int	slots_reserve(int max_connections);

/* The rule, on counts: may an address holding address_now get one more when total_now are open? */
extern bool slots_admit_counts(int total_now, int address_now, int max_connections);

extern void slots_init(int max_connections);

/* The address as 16 bytes (IPv4 mapped); false (zeros) for another family. */
extern bool slots_key(const struct sockaddr *sa, unsigned char key[16]);

/* Accept a new connection from sa now? (libmicrohttpd's accept policy) */
extern bool slots_admit(const struct sockaddr *sa);

/* A connection of the address opened, or closed. */
extern void slots_opened(const unsigned char key[16]);
extern void slots_closed(const unsigned char key[16]);

#endif
