/*
 * ops.h - THE table of the REST operations the gateway serves: for each, the resource and verb
 * (and If-Match) that name it, its handler, its SQL statement, what a shared access signature
 * needs for it (an account SAS's resource type and permissions, whether a table's SAS may do it),
 * its name inside a changeset, whether it writes, whether it needs the database, and where its
 * PartitionKey is (for routing to a node). The router, the Allow header, the SAS check, the
 * changeset reader and the routing all read this one table (ops.c); nothing else decides which
 * verb is which operation.
 *
 * The table is an X-macro, so that files that only read its data (ops.c) expand it without the
 * handlers, and the router expands it with them (as core/base/ts_error.h does for the error table).
 */
#ifndef GW_OPS_H
#define GW_OPS_H

#include "sas.h"
#include "sqlapi.h"
#include "url.h"

/* The resources, as bits (an operation may be served on several forms of one resource). */
#define OPR_BITS 10				/* how many there are */
typedef enum OpResource
{
	OPR_NONE = 0,
	OPR_SERVICE_PROPERTIES = 1 << 0,	/* /?restype=service&comp=properties */
	OPR_SERVICE_STATS = 1 << 1, /* /?restype=service&comp=stats */
	OPR_TABLES = 1 << 2,		/* /Tables */
	OPR_TABLES_ONE = 1 << 3,	/* /Tables('t') */
	OPR_TABLE = 1 << 4,			/* /t */
	OPR_TABLE_PARENS = 1 << 5,	/* /t() */
	OPR_TABLE_ACL = 1 << 6,		/* /t?comp=acl */
	OPR_ENTITY = 1 << 7,		/* /t(PartitionKey='..',RowKey='..') */
	OPR_BATCH = 1 << 8,			/* /$batch */
	OPR_TABLE_INDEXING = 1 << 9,	/* /t?comp=indexingpolicy (tablestore's own) */
	OPR_ANY = (1 << OPR_BITS) - 1
} OpResource;

/* OPR_BITS counts them: the highest resource is its last bit */
_Static_assert(OPR_TABLE_INDEXING == 1 << (OPR_BITS - 1), "OPR_BITS is the number of resources");

/* What If-Match says about the operation. */
typedef enum OpIfMatch
{
	IFM_ANY,					/* not part of the choice */
	IFM_ABSENT,					/* this operation when the request has no If-Match */
	IFM_PRESENT,				/* this operation when it has one */
	IFM_REQUIRED				/* always this operation; 400 MissingRequiredHeader without one */
} OpIfMatch;

/* Flags */
#define OPF_WRITE	0x01		/* changes data: refused on the read-only -secondary endpoint */
#define OPF_DB		0x02		/* needs the database: runs on the account's database workers */
#define OPF_XML		0x04		/* an XML resource: XML error bodies, no metadata negotiation */
#define OPF_NO_AUTH 0x08		/* answered before authentication (CORS preflight) */
#define OPF_PART_ACCEPT 0x10	/* the request's Accept refuses nothing: each part's own Accept decides ($batch) */

/* Where the PartitionKey of the call is, for a distributed table's routing (route.c). */
typedef enum OpPk
{
	PK_NONE,
	PK_URL,						/* the entity's address */
	PK_BODY,					/* the entity in the body ("PartitionKey") */
	PK_FILTER,					/* PartitionKey eq '...' in $filter, when it names one partition */
	PK_CHANGESET				/* the changeset's one PartitionKey (changeset.c finds it) */
} OpPk;

struct Req;

/*
 * X(id, name, resources, verbs, if_match, handler, statement, account SAS resource type (SAS_T_*,
 *   0: never with an account SAS), permissions of which it needs any, permissions it needs all
 *   of, a table's SAS may do it, name in a changeset (NULL: not in one), flags, PartitionKey)
 * Verbs are separated by spaces. Permissions are SAS_P_* (sas.h); the rules are those of the
 * service's "Create an account SAS" and "Create a service SAS" pages (doc/gateway.md has them
 * as a table).
 */
#define GW_OPERATIONS(X) \
	X(OP_GET_SERVICE_PROPERTIES, "Get Table Service Properties", OPR_SERVICE_PROPERTIES, "GET", IFM_ANY, \
	  service_get_properties, SQL_GET_PROPS, SAS_T_SERVICE, SAS_P_READ, 0, false, NULL, OPF_DB | OPF_XML, PK_NONE) \
	X(OP_SET_SERVICE_PROPERTIES, "Set Table Service Properties", OPR_SERVICE_PROPERTIES, "PUT", IFM_ANY, \
	  service_set_properties, SQL_SET_PROPS, SAS_T_SERVICE, SAS_P_WRITE, 0, false, NULL, OPF_DB | OPF_XML | OPF_WRITE, PK_NONE) \
	X(OP_GET_SERVICE_STATS, "Get Table Service Stats", OPR_SERVICE_STATS, "GET", IFM_ANY, \
	  service_get_stats, SQL_NONE, SAS_T_SERVICE, SAS_P_READ, 0, false, NULL, OPF_XML, PK_NONE) \
	X(OP_QUERY_TABLES, "Query Tables", OPR_TABLES, "GET", IFM_ANY, \
	  tables_query, SQL_QUERY_TABLES, SAS_T_CONTAINER, SAS_P_LIST, 0, false, NULL, OPF_DB, PK_NONE) \
	X(OP_CREATE_TABLE, "Create Table", OPR_TABLES, "POST", IFM_ANY, \
	  tables_create, SQL_CREATE_TABLE, SAS_T_CONTAINER, SAS_P_CREATE | SAS_P_WRITE, 0, false, NULL, OPF_DB | OPF_WRITE, PK_NONE) \
	X(OP_GET_TABLE, "Query Tables (one table)", OPR_TABLES_ONE, "GET", IFM_ANY, \
	  tables_get, SQL_GET_TABLE, SAS_T_CONTAINER, SAS_P_LIST, 0, false, NULL, OPF_DB, PK_NONE) \
	X(OP_DELETE_TABLE, "Delete Table", OPR_TABLES_ONE, "DELETE", IFM_ANY, \
	  tables_delete, SQL_DROP_TABLE, SAS_T_CONTAINER, SAS_P_DELETE, 0, false, NULL, OPF_DB | OPF_WRITE, PK_NONE) \
	X(OP_GET_TABLE_ACL, "Get Table ACL", OPR_TABLE_ACL, "GET", IFM_ANY, \
	  acl_get, SQL_GET_ACL, 0, 0, 0, false, NULL, OPF_DB | OPF_XML, PK_NONE) \
	X(OP_SET_TABLE_ACL, "Set Table ACL", OPR_TABLE_ACL, "PUT", IFM_ANY, \
	  acl_set, SQL_SET_ACL, 0, 0, 0, false, NULL, OPF_DB | OPF_XML | OPF_WRITE, PK_NONE) \
	X(OP_GET_INDEXING_POLICY, "Get Table Indexing Policy (tablestore)", OPR_TABLE_INDEXING, "GET", IFM_ANY, \
	  indexing_get, SQL_GET_INDEXING, 0, 0, 0, false, NULL, OPF_DB, PK_NONE) \
	X(OP_SET_INDEXING_POLICY, "Set Table Indexing Policy (tablestore)", OPR_TABLE_INDEXING, "PUT", IFM_ANY, \
	  indexing_set, SQL_SET_INDEXING, 0, 0, 0, false, NULL, OPF_DB | OPF_WRITE, PK_NONE) \
	X(OP_QUERY_ENTITIES, "Query Entities", OPR_TABLE | OPR_TABLE_PARENS, "GET", IFM_ANY, \
	  entities_query, SQL_QUERY_ENTITIES, SAS_T_OBJECT, SAS_P_READ, 0, true, NULL, OPF_DB, PK_FILTER) \
	X(OP_INSERT_ENTITY, "Insert Entity", OPR_TABLE | OPR_TABLE_PARENS, "POST", IFM_ANY, \
	  entities_insert, SQL_INSERT_ENTITY, SAS_T_OBJECT, SAS_P_ADD, 0, true, "insert", OPF_DB | OPF_WRITE, PK_BODY) \
	X(OP_GET_ENTITY, "Query Entities (one entity)", OPR_ENTITY, "GET", IFM_ANY, \
	  entities_get, SQL_GET_ENTITY, SAS_T_OBJECT, SAS_P_READ, 0, true, NULL, OPF_DB, PK_URL) \
	X(OP_UPDATE_ENTITY, "Update Entity", OPR_ENTITY, "PUT", IFM_PRESENT, \
	  entities_write, SQL_WRITE_ENTITY, SAS_T_OBJECT, SAS_P_UPDATE, 0, true, "update", OPF_DB | OPF_WRITE, PK_URL) \
	X(OP_INSERT_OR_REPLACE, "Insert Or Replace Entity", OPR_ENTITY, "PUT", IFM_ABSENT, \
	  entities_write, SQL_WRITE_ENTITY, SAS_T_OBJECT, 0, SAS_P_ADD | SAS_P_UPDATE, true, "upsert_replace", OPF_DB | OPF_WRITE, PK_URL) \
	X(OP_MERGE_ENTITY, "Merge Entity", OPR_ENTITY, "MERGE PATCH", IFM_PRESENT, \
	  entities_write, SQL_WRITE_ENTITY, SAS_T_OBJECT, SAS_P_UPDATE, 0, true, "merge", OPF_DB | OPF_WRITE, PK_URL) \
	X(OP_INSERT_OR_MERGE, "Insert Or Merge Entity", OPR_ENTITY, "MERGE PATCH", IFM_ABSENT, \
	  entities_write, SQL_WRITE_ENTITY, SAS_T_OBJECT, 0, SAS_P_ADD | SAS_P_UPDATE, true, "upsert_merge", OPF_DB | OPF_WRITE, PK_URL) \
	X(OP_DELETE_ENTITY, "Delete Entity", OPR_ENTITY, "DELETE", IFM_REQUIRED, \
	  entities_delete, SQL_DELETE_ENTITY, SAS_T_OBJECT, SAS_P_DELETE, 0, true, "delete", OPF_DB | OPF_WRITE, PK_URL) \
	X(OP_BATCH, "Entity Group Transaction", OPR_BATCH, "POST", IFM_ANY, \
	  changeset_handle, SQL_BATCH, SAS_T_OBJECT, SAS_P_READ | SAS_P_ADD | SAS_P_UPDATE | SAS_P_DELETE, 0, true, NULL, OPF_DB | OPF_WRITE | OPF_PART_ACCEPT, PK_CHANGESET) \
	X(OP_PREFLIGHT, "Preflight Table Request", OPR_ANY, "OPTIONS", IFM_ANY, \
	  cors_preflight, SQL_NONE, 0, 0, 0, false, NULL, OPF_NO_AUTH, PK_NONE)

typedef enum OpId
{
#define GW_OP_ENUM(id, name, res, verbs, ifm, handler, st, srt, any, all, tsas, batch, flags, pk) id,
	GW_OPERATIONS(GW_OP_ENUM)
#undef GW_OP_ENUM
	OP__COUNT
} OpId;

typedef struct OpDef
{
	OpId		id;
	const char *name;
	unsigned	resources;		/* OPR_* bits */
	const char *verbs;
	OpIfMatch	if_match;
	SqlStmt		statement;
	SasNeed		sas;			/* what a shared access signature needs */
	const char *batch_op;		/* the operation's name in tablestore.rest_batch's document */
	unsigned	flags;			/* OPF_* */
	OpPk		pk;
} OpDef;

extern const OpDef *ops_def(OpId id);

/*
 * The resource a target addresses, with its ?restype= and ?comp=; OPR_NONE when the query names
 * a sub-resource this resource does not have (*why says what).
 */
extern OpResource ops_resource(const Target *t, const char *restype, const char *comp, const char **why);

/*
 * The verb a request (or a changeset's sub-request) means: its own, or for a POST with an
 * X-HTTP-Method header the verb that header tunnels, which must be MERGE, PATCH, PUT or DELETE.
 * NULL when a POST tunnels any other (400 XHttpVerbNotSupported). The header is ignored on other
 * verbs. Returns method or x_http_method itself.
 */
extern const char *ops_verb(const char *method, const char *x_http_method);

/*
 * The operation a verb names on a resource (with or without If-Match), or NULL: then *allowed is
 * the Allow list of the resource ("GET, POST"), or NULL when no operation serves it at all.
 */
extern const OpDef *ops_find(OpResource res, const char *verb, bool has_if_match, const char **allowed);

#endif
