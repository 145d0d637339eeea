/*
 * sas.h - shared access signatures: a service SAS for one table (sv tn sp st se sip spr si spk
 * srk epk erk sig) and an account SAS (sv ss srt sp st se sip spr ses sig), verified with the
 * account's keys over the service's string to sign, with their times, IP range and protocol, and
 * a stored access policy's permissions and times when the SAS names one.
 * What a verified SAS may do is sas_allows, from what each operation needs (ops.h's table: an
 * account SAS's resource type and permissions, whether a table's SAS may do it); its key range
 * is applied by the database (the REST functions' key_scope), on every path.
 * Pure: no libmicrohttpd, no libpq.
 */
#ifndef GW_SAS_H
#define GW_SAS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "auth.h"
#include "url.h"

/* permission letters, as bits */
#define SAS_P_READ		(1u << 0)	/* r */
#define SAS_P_ADD		(1u << 1)	/* a */
#define SAS_P_UPDATE	(1u << 2)	/* u */
#define SAS_P_DELETE	(1u << 3)	/* d */
#define SAS_P_WRITE		(1u << 4)	/* w (account) */
#define SAS_P_LIST		(1u << 5)	/* l (account) */
#define SAS_P_CREATE	(1u << 6)	/* c (account) */
#define SAS_P_PROCESS	(1u << 7)	/* p (account; queues) */

/* account SAS resource types */
#define SAS_T_SERVICE	(1u << 0)	/* s */
#define SAS_T_CONTAINER (1u << 1)	/* c: tables */
#define SAS_T_OBJECT	(1u << 2)	/* o: entities */

typedef enum SasKind
{
	SAS_SERVICE,				/* a table's: tn */
	SAS_ACCOUNT					/* ss, srt */
} SasKind;

typedef struct Sas
{
	SasKind		kind;
	unsigned	perms;
	unsigned	types;			/* account */
	const char *table;			/* service: tn */
	const char *spk;			/* service: the key range; NULL = open */
	const char *srk;
	const char *epk;
	const char *erk;
} Sas;

/* What an operation needs of a shared access signature (ops.h's table gives it per operation). */
typedef struct SasNeed
{
	unsigned	types;			/* an account SAS's resource type (SAS_T_*); 0: never with an account SAS */
	unsigned	any;			/* permissions (SAS_P_*) of which it needs one; 0: none */
	unsigned	all;			/* permissions it needs every one of */
	bool		table_sas;		/* a table's SAS may do it, on its own table */
} SasNeed;

typedef struct SasInput
{
	const Query *query;			/* the request's decoded query parameters */
	const char *account;
	const char *client_ip;		/* textual address, or NULL */
	bool		https;
	time_t		now;
} SasInput;

typedef enum SasResult
{
	SAS_OK,
	SAS_MISSING,				/* sv, sp, se or sig (or ss/srt, tn) absent */
	SAS_MALFORMED,				/* a field does not parse (times, permissions, sig, ranges) or is given twice */
	SAS_NOT_YET_VALID,
	SAS_EXPIRED,
	SAS_BAD_SIGNATURE,
	SAS_POLICY_NEEDED,			/* si: the signature is right; call again with the policy */
	SAS_POLICY_NOT_FOUND,		/* si names no policy of the table (the caller's verdict) */
	SAS_POLICY_CONFLICT,		/* sp, st or se both in the token and in the policy */
	SAS_IP,						/* the client is outside sip */
	SAS_PROTOCOL,				/* spr allows https only */
	SAS_SERVICE_MISMATCH		/* an account SAS without t in ss */
} SasResult;

/* A stored access policy's fields (NULL when the policy leaves them out). */
typedef struct SasPolicy
{
	const char *start;
	const char *expiry;
	const char *permission;
} SasPolicy;

/*
 * Verify the SAS in in->query with either key; on SAS_OK *out holds what it grants. A SAS that
 * names a stored access policy (si) answers SAS_POLICY_NEEDED once its signature is checked when
 * policy is NULL; the caller looks the policy up and calls again with it.
 */
extern SasResult sas_verify(const SasInput *in, const AccountKeys *keys, const SasPolicy *policy, Sas *out);

/* The service's error code and an explanation for a failed verification. */
extern const char *sas_result_code(SasResult r);
extern const char *sas_result_text(SasResult r);

/*
 * NULL when sas may do an operation that needs need on table (NULL: no table, or one not known
 * yet, such as a changeset's, whose operations are checked one by one); otherwise the service's
 * error code (AuthorizationPermissionMismatch, AuthorizationResourceTypeMismatch,
 * AuthorizationFailure), with *why set to a sentence.
 */
extern const char *sas_allows(const Sas *sas, const SasNeed *need, const char *table, const char **why);

/* A table SAS's (or stored policy's) permission letters, each of r a u d at most once, as SAS_P_* bits. */
extern bool sas_table_permissions(const char *letters, unsigned *out);

/* The string to sign of the SAS in in->query (malloc'd; NULL when a field is missing). For tests. */
extern char *sas_string_to_sign(const SasInput *in, SasKind kind);

/* An ISO 8601 UTC time as SAS fields write it ("2024-01-02", "2024-01-02T03:04Z",
 * "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.1234567Z") to seconds since 1970. */
extern bool sas_parse_time(const char *s, time_t *out);

#endif
