/*
 * listener.h - the HTTP listener (libmicrohttpd): start, quiesce and stop it.
 */
#ifndef GW_LISTENER_H
#define GW_LISTENER_H

#include <stdbool.h>
#include <stddef.h>

#include "worker.h"

/* Listen on gw_config's address and port; false with err set. */
extern bool listener_start(char *err, size_t errlen);

/* What the database workers run for a request: the answer budget's admission, then the operation. */
extern WorkRun listener_work_run(void);

/* What the database workers call when a request's answer is ready (it resumes the connection). */
extern WorkDone listener_work_done(void);

/* Stop accepting connections (requests in flight go on). */
extern void listener_quiesce(void);

/* Stop (after every account's workers have stopped: no connection is suspended then). */
extern void listener_stop(void);

/* Bytes of request bodies held now (the body_memory budget in use), and of answers not yet sent. */
extern size_t listener_body_in_flight(void);
extern size_t listener_answers_in_flight(void);

#endif
