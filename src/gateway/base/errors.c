/*
 * errors.c - the service's error codes as the gateway answers them: each code's HTTP status and
 * the service's own message text (what the live service and its emulator write; clients match on
 * it), and which code a PostgreSQL error is.
 *
 * A tablestore error's code comes from its SQLSTATE through the extension's one error table
 * (src/core/base/ts_error.h, built into the gateway); only PostgreSQL's own conditions (privileges,
 * serialization failures, lost connections, timeouts, bad data) are mapped here by hand. The
 * unit tests (test/gateway/unit) check that every code of that table has a status and a text.
 */
#include "gateway.h"
#include "ts_error.h"

#include <string.h>

typedef struct CodeInfo
{
	const char *code;
	int			status;
	const char *text;			/* the service's message */
} CodeInfo;

static const CodeInfo codes[] = {
	{"InvalidInput", 400, "One of the request inputs is not valid."},
	{"OutOfRangeInput", 400, "One of the request inputs is out of range."},
	{"PropertyNameInvalid", 400, "The property name is invalid."},
	{"PropertyNameTooLong", 400, "The property name exceeds the maximum allowed length (255)."},
	{"DuplicatePropertiesSpecified", 400, "A property is specified more than once."},
	{"TooManyProperties", 400, "The entity contains more properties than allowed. Each entity can include up to 252 properties to store data. Each entity also has 3 system properties."},
	{"EntityTooLarge", 400, "The entity is larger than the maximum allowed size (1MB)."},
	{"PropertyValueTooLarge", 400, "The property value exceeds the maximum allowed size (64KB). If the property value is a string, it is UTF-16 encoded and the maximum number of characters should be 32K or less."},
	{"KeyValueTooLarge", 400, "The 'PartitionKey' property exceeds the maximum allowed key size (2KB). It is a UTF-16 encoded string and the maximum number of characters should be 1K or less."},
	{"PropertiesNeedValue", 400, "The values are not specified for all properties in the entity."},
	{"InvalidResourceName", 400, "The specifed resource name contains invalid characters."},
	{"CommandsInBatchActOnDifferentPartitions", 400, "All commands in a batch must operate on same entity group."},
	{"InvalidDuplicateRow", 400, "The batch request contains multiple changes with same row key. An entity can appear only once in a batch request."},
	{"InvalidUri", 400, "The requested URI does not represent any resource on the server."},
	{"InvalidHeaderValue", 400, "The value for one of the HTTP headers is not in the correct format."},
	{"InvalidQueryParameterValue", 400, "Value for one of the query parameters specified in the request URI is invalid."},
	{"MissingRequiredHeader", 400, "An HTTP header that's mandatory for this request is not specified."},
	{"InvalidXmlDocument", 400, "XML specified is not syntactically valid."},
	{"XHttpVerbNotSupported", 400, "The specified X-HTTP-Method is invalid."},
	{"Md5Mismatch", 400, "The MD5 value specified in the request did not match with the MD5 value calculated by the server."},
	{"InvalidMd5", 400, "The MD5 value specified in the request is invalid. MD5 value must be 128 bits and base64 encoded."},
	{"Crc64Mismatch", 400, "The CRC64 value specified in the request did not match with the CRC64 value calculated by the server."},
	{"InvalidCrc64", 400, "The CRC64 value specified in the request is invalid. CRC64 value must be 64 bits and base64 encoded."},
	{"BothCrc64AndMd5HeaderPresent", 400, "Both x-ms-content-crc64 header and Content-MD5 header are present."},
	{"NotSupported", 400, "The requested operation is not supported."},
	{"InvalidAuthenticationInfo", 401, "Authentication information is not given in the correct format. Check the value of Authorization header."},
	{"AuthenticationFailed", 403, "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature."},
	{"AuthorizationFailure", 403, "This request is not authorized to perform this operation."},
	{"AuthorizationPermissionMismatch", 403, "This request is not authorized to perform this operation using this permission."},
	{"AuthorizationResourceTypeMismatch", 403, "This request is not authorized to perform this operation using this resource type."},
	{"AuthorizationServiceMismatch", 403, "This request is not authorized to perform this operation using this service."},
	{"AuthorizationSourceIPMismatch", 403, "This request is not authorized to perform this operation using this source IP."},
	{"AuthorizationProtocolMismatch", 403, "This request is not authorized to perform this operation using this protocol."},
	{"CorsPreflightFailure", 403, "CORS not enabled or no matching rule found for this request."},
	{"InsufficientAccountPermissions", 403, "Write operations are not allowed."},
	{"ResourceNotFound", 404, "The specified resource does not exist."},
	{"TableNotFound", 404, "The table specified does not exist."},
	{"UnsupportedHttpVerb", 405, "The resource doesn't support specified Http Verb."},
	{"EntityAlreadyExists", 409, "The specified entity already exists."},
	{"TableAlreadyExists", 409, "The table specified already exists."},
	{"TableBeingDeleted", 409, "The specified table is being deleted. Try operation later."},
	{"UpdateConditionNotSatisfied", 412, "The update condition specified in the request was not satisfied."},
	{"RequestBodyTooLarge", 413, "The request body is too large and exceeds the maximum permissible limit."},
	{"AtomFormatNotSupported", 415, "Atom format is not supported."},
	{"JsonFormatNotSupported", 415, "JSON format is not supported."},
	{"JsonVerboseFormatNotSupported", 415, "Verbose JSON format is not supported."},
	{"MediaTypeNotSupported", 415, "None of the provided media types are supported"},
	{"RequestHeaderFieldsTooLarge", 431, "The request headers are too large."},
	{"InternalError", 500, "Server encountered an internal error. Please try again after some time."},
	{"OperationTimedOut", 500, "Operation could not be completed within the specified time."},
	{"NotImplemented", 501, "The requested operation is not implemented on the specified resource."},
	{"ServerBusy", 503, "The server is busy."},
};

#define NCODES (sizeof(codes) / sizeof(codes[0]))

static const CodeInfo *
info_of(const char *code)
{
	for (size_t i = 0; i < NCODES; i++)
		if (strcmp(codes[i].code, code) == 0)
			return &codes[i];
	return NULL;
}

int
error_status(const char *code)
{
	const CodeInfo *c = info_of(code);

	return c ? c->status : 500;
}

const char *
error_text(const char *code)
{
	const CodeInfo *c = info_of(code);

	return c ? c->text : info_of("InternalError")->text;
}

const char *
http_reason(int status)
{
	switch (status)
	{
		case 200:
			return "OK";
		case 201:
			return "Created";
		case 202:
			return "Accepted";
		case 204:
			return "No Content";
		case 400:
			return "Bad Request";
		case 401:
			return "Unauthorized";
		case 403:
			return "Forbidden";
		case 404:
			return "Not Found";
		case 405:
			return "Method Not Allowed";
		case 409:
			return "Conflict";
		case 412:
			return "Precondition Failed";
		case 413:
			return "Request Entity Too Large";
		case 415:
			return "Unsupported Media Type";
		case 431:
			return "Request Header Fields Too Large";
		case 500:
			return "Internal Server Error";
		case 501:
			return "Not Implemented";
		case 503:
			return "Service Unavailable";
	}
	return "Unknown";
}

/* PostgreSQL's own conditions, by SQLSTATE or its class (the first two characters). */
static const struct
{
	const char *state;			/* five characters, or a class of two */
	const char *code;
}			pg_states[] = {
	{"42501", "AuthorizationFailure"},	/* insufficient privilege */
	{"40001", "ServerBusy"},	/* serialization failure (retried once by sqlapi.c) */
	{"40P01", "ServerBusy"},	/* deadlock (retried once) */
	{"55P03", "ServerBusy"},	/* lock not available */
	{"57P01", "ServerBusy"},	/* admin shutdown */
	{"57P02", "ServerBusy"},	/* crash shutdown */
	{"57P03", "ServerBusy"},	/* cannot connect now */
	{"57014", "OperationTimedOut"},	/* statement timeout or cancel */
	{"53", "ServerBusy"},		/* insufficient resources */
	{"08", "ServerBusy"},		/* connection exceptions (a node of a distributed table, libpq) */
	{"22", "InvalidInput"},		/* data exceptions: bad UTF-8, NUL in text, ... */
};

const char *
sqlstate_code(const char *sqlstate)
{
	TsErrorCode tse;

	if (sqlstate == NULL || strlen(sqlstate) != 5)
		return "InternalError";
	if ((tse = ts_error_of_sqlstate(sqlstate)) != TSE_NONE)
		return ts_error_service_code(tse);
	for (size_t i = 0; i < sizeof(pg_states) / sizeof(pg_states[0]); i++)
		if (strncmp(sqlstate, pg_states[i].state, strlen(pg_states[i].state)) == 0)
			return pg_states[i].code;
	return "InternalError";
}

bool
error_code_known(const char *code)
{
	return info_of(code) != NULL;
}
