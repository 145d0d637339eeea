/*
 * sign.h - the strings to sign of the Table service's credentials (sign.c), the one owner of their
 * layout: tablestore-gateway verifies requests against them (gateway/auth/auth.c, gateway/auth/sas.c) and
 * tablestore-copy signs its requests with them (copy/table_http.c). The HMAC-SHA256 over the
 * string is each program's own (OpenSSL); this file only lays out the bytes.
 *
 *   Shared Key:      VERB \n Content-MD5 \n Content-Type \n Date \n CanonicalizedResource
 *   Shared Key Lite: Date \n CanonicalizedResource
 * CanonicalizedResource is "/" account + the raw path as sent (so path-style URLs name the account
 * twice: /devstoreaccount1/devstoreaccount1/Tables) + "?comp=" value when the query has comp.
 *
 *   Service (table) SAS:  sp \n st \n se \n /table/<account>/<tn in lower case> \n si \n sip \n spr \n sv \n spk \n srk \n epk \n erk
 *   Account SAS:          <account> \n sp \n ss \n srt \n st \n se \n sip \n spr \n sv \n [ses \n]   (ses from sv 2020-12-06)
 *
 * Output goes through a sink callback, so that each program keeps its own buffers (the gateway's
 * never exit on a failed allocation). Backend-free and pure.
 */
#ifndef TS_SIGN_H
#define TS_SIGN_H

#include "ts_core.h"

typedef TsPut SignPut;

typedef enum SignScheme
{
	SIGN_SHARED_KEY,
	SIGN_SHARED_KEY_LITE
} SignScheme;

/* What a Shared Key string covers; NULL members are empty. */
typedef struct SignRequest
{
	const char *method;			/* the verb on the wire */
	const char *content_md5;
	const char *content_type;
	const char *date;			/* x-ms-date when the request has one, else Date */
	const char *account;
	const char *raw_path;		/* as sent, percent-encoding and all, without the query */
	const char *comp;			/* the decoded ?comp= value, or NULL */
} SignRequest;

extern void sign_shared_key(SignPut put, void *sink, SignScheme scheme, const SignRequest *r);

/* A SAS field by its query parameter name ("sp", "tn", ...): its decoded value, or NULL. */
typedef const char *(*SignField) (void *arg, const char *name);

/*
 * The string to sign of a service SAS (table_sas) or an account SAS whose fields field() gives.
 * False (nothing written) when sv is missing, or tn for a service SAS.
 */
extern bool sign_sas(SignPut put, void *sink, bool table_sas, const char *account, SignField field, void *arg);

#endif							/* TS_SIGN_H */
