/*
 * ts_error.h - every error condition tablestore reports, in one table.
 *
 * Each condition has its own SQLSTATE (class "TS", which PostgreSQL does not use) and the Azure
 * Table service's error code name, which starts the message: "EntityTooLarge: ...". The table is
 * also visible in SQL as tablestore.error_codes().
 */
#ifndef TS_ERROR_H
#define TS_ERROR_H

#include "ts_core.h"

#include <stdarg.h>

/*				 enum						 SQLSTATE  service code					 what it means */
#define TS_ERROR_TABLE(X) \
	X(TSE_INVALID_INPUT,		"TSB00", "InvalidInput", "an argument is malformed") \
	X(TSE_INVALID_JSON,			"TSB01", "InvalidInput", "entity text is not a flat JSON object") \
	X(TSE_INVALID_KEY,			"TSB02", "InvalidInput", "a PartitionKey or RowKey is not a string or holds a forbidden character") \
	X(TSE_INVALID_TYPE,			"TSB03", "InvalidInput", "an odata.type annotation is unknown, misplaced or does not fit its value") \
	X(TSE_INVALID_VALUE,		"TSB04", "InvalidInput", "a value does not parse as its type") \
	X(TSE_INVALID_BINARY,		"TSB05", "InvalidInput", "binary entity data is malformed or not canonical") \
	X(TSE_OUT_OF_RANGE,			"TSB06", "OutOfRangeInput", "an Int32, Double or DateTime value is outside its type's range (an Int64 out of range is TSB04)") \
	X(TSE_NAME_INVALID,			"TSB07", "PropertyNameInvalid", "a property name breaks the identifier rules or is reserved") \
	X(TSE_NAME_TOO_LONG,		"TSB08", "PropertyNameTooLong", "a property name is longer than 255 characters") \
	X(TSE_DUPLICATE_PROPERTY,	"TSB09", "DuplicatePropertiesSpecified", "a property is given twice") \
	X(TSE_TOO_MANY_PROPERTIES,	"TSB10", "TooManyProperties", "more than 252 custom properties") \
	X(TSE_ENTITY_TOO_LARGE,		"TSB11", "EntityTooLarge", "the entity is over 1 MiB by the service's size formula") \
	X(TSE_VALUE_TOO_LARGE,		"TSB12", "PropertyValueTooLarge", "a String is over 32768 UTF-16 code units or a Binary over 65536 bytes") \
	X(TSE_KEY_TOO_LARGE,		"TSB13", "KeyValueTooLarge", "a PartitionKey or RowKey is over 512 UTF-16 code units") \
	X(TSE_RESOURCE_NAME,		"TSB14", "InvalidResourceName", "a table name breaks the naming rules") \
	X(TSE_INVALID_ETAG,			"TSB15", "InvalidInput", "an If-Match value is neither * nor an ETag") \
	X(TSE_BATCH_PARTITIONS,		"TSB16", "CommandsInBatchActOnDifferentPartitions", "a batch names more than one PartitionKey") \
	X(TSE_BATCH_TOO_MANY,		"TSB17", "InvalidInput", "a batch has more than 100 operations") \
	X(TSE_BATCH_TOO_LARGE,		"TSB18", "RequestBodyTooLarge", "a batch document is over 4 MiB") \
	X(TSE_BATCH_DUPLICATE,		"TSB19", "InvalidDuplicateRow", "a batch names one entity twice") \
	X(TSE_BATCH_MALFORMED,		"TSB20", "InvalidInput", "a batch document or operation is malformed") \
	X(TSE_MISSING_KEY,			"TSB21", "PropertiesNeedValue", "an entity written to a table (or named by a batch operation) has no PartitionKey or RowKey") \
	X(TSE_KEY_CHANGED,			"TSB22", "InvalidInput", "an UPDATE tried to change an entity's keys") \
	X(TSE_FILTER_SYNTAX,		"TSF01", "InvalidInput", "a $filter is malformed") \
	X(TSE_FILTER_TOO_COMPLEX,	"TSF02", "InvalidInput", "a $filter has more comparisons than tablestore.max_filter_comparisons, or nests and/or more than 100 levels deep") \
	X(TSE_FILTER_UNSUPPORTED,	"TSF03", "InvalidInput", "a $filter compares two properties or two literals") \
	X(TSE_QUERY_ARG,			"TSQ01", "InvalidInput", "$select, $top or a continuation is invalid") \
	X(TSE_RESOURCE_NOT_FOUND,	"TSN01", "ResourceNotFound", "the entity does not exist (or, for drop_table, the table)") \
	X(TSE_TABLE_NOT_FOUND,		"TSN02", "TableNotFound", "the table does not exist") \
	X(TSE_ENTITY_EXISTS,		"TSC01", "EntityAlreadyExists", "an entity with these keys exists") \
	X(TSE_TABLE_EXISTS,			"TSC02", "TableAlreadyExists", "a table of this name (ignoring case) exists") \
	X(TSE_CONDITION_FAILED,		"TSP01", "UpdateConditionNotSatisfied", "the If-Match ETag is not the entity's current ETag") \
	X(TSE_NOT_UTF8,				"TSX01", "NotSupported", "the database encoding is not UTF8") \
	X(TSE_TABLE_LAYOUT,			"TSX02", "InternalError", "a relation in tablestore_data does not have a tablestore table's layout (see the detail)") \
	X(TSE_KEY_SCOPE,			"TSA01", "AuthorizationFailure", "a key is outside the key range the call is scoped to (a shared access signature's spk/srk/epk/erk)") \
	X(TSE_ACCOUNT_MISMATCH,		"TSA02", "AuthorizationFailure", "the database serves another account of tablestore-gateway (tablestore.claim_account)") \
	X(TSE_SHARD_NOT_HERE,		"TSX03", "InternalError", "a distributed table's partition for the key is not on this node, or its copy here is fenced by a move (a misrouted call or row, or a shard map read before a move)") \
	X(TSE_TWO_NODES,			"TSX04", "NotSupported", "a transaction would write to a second node of a distributed table (no two-phase commit; tablestore.allow_multi_node_writes)") \
	X(TSE_DISTRIBUTION,			"TSX05", "InvalidInput", "distribute_table, undistribute_table, create_shards, move_shard or move_shard_cleanup cannot do what was asked (see the detail)") \
	X(TSE_INDEX_POLICY,			"TSI01", "InvalidInput", "an indexing policy is malformed or asks for what tablestore does not do") \
	X(TSE_INDEX_WORKER,			"TSI02", "ServerBusy", "the indexing policy could not be applied after its attempts (tablestore.index_builds), or the extension is older than its library") \
	X(TSE_INDEX_BUSY,			"TSI03", "ServerBusy", "not raised since 0.4.0 (a change during a build is queued)")

typedef enum TsErrorCode
{
	TSE_NONE = 0,
#define TS_ERROR_ENUM(e, s, c, d) e,
	TS_ERROR_TABLE(TS_ERROR_ENUM)
#undef TS_ERROR_ENUM
	TSE__COUNT
} TsErrorCode;

#define TS_ERROR_TEXT_MAX 512

/* An error found by code that does not throw; pos is a 1-based character position or 0. */
typedef struct TsError
{
	TsErrorCode code;
	int			pos;
	char		msg[TS_ERROR_TEXT_MAX];
	char		detail[TS_ERROR_TEXT_MAX];
} TsError;

extern const char *ts_error_sqlstate(TsErrorCode code);
extern const char *ts_error_service_code(TsErrorCode code);
extern const char *ts_error_description(TsErrorCode code);
/* The condition of a SQLSTATE of the table, or TSE_NONE (what a client of the SQL interface reads). */
extern TsErrorCode ts_error_of_sqlstate(const char *sqlstate);

/*
 * An error about one operation of a batch starts "operation N: " (0-based N) before the service
 * code; the gateway reads N from it to name the failing part.
 */
#define TS_OPERATION_PREFIX "operation "

/*
 * vsnprintf into buf; text that does not fit is cut on a character boundary (never inside a
 * UTF-8 sequence) and ends with "...".
 */
extern void ts_vformat(char *buf, size_t size, const char *fmt, va_list ap);

/* Record an error (the first one wins); always returns false so callers can "return ts_fail(...)". */
extern bool ts_fail(TsError *err, TsErrorCode code, const char *fmt,...) pg_attribute_printf(3, 4);
extern void ts_fail_detail(TsError *err, const char *fmt,...) pg_attribute_printf(2, 3);

/*
 * Write a bounded, printable rendering of user text into buf (at most 40 characters, control
 * characters shown as '?', "..." when cut): messages never echo unbounded input.
 */
extern const char *ts_excerpt(char *buf, size_t bufsize, const char *s, size_t len);

#define TS_EXCERPT_BUF 200

/* The 1-based character position of byte offset off in the UTF-8 text s (for messages). */
extern int	ts_char_pos(const char *s, size_t off);


#endif							/* TS_ERROR_H */
