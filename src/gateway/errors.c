/*
 * errors.c - the service's error codes and their HTTP statuses; SQLSTATE fallbacks for errors that
 * do not carry a service code (privileges, serialization failures, timeouts, lost connections).
 */
#include "gateway.h"

#include <string.h>

typedef struct CodeStatus
{
	const char *code;
	int			status;
} CodeStatus;

/* Every code the extension's error table (src/ts_error.h) names, plus the gateway's own. */
static const CodeStatus codes[] = {
	{"InvalidInput", 400},
	{"OutOfRangeInput", 400},
	{"PropertyNameInvalid", 400},
	{"PropertyNameTooLong", 400},
	{"DuplicatePropertiesSpecified", 400},
	{"TooManyProperties", 400},
	{"EntityTooLarge", 400},
	{"PropertyValueTooLarge", 400},
	{"KeyValueTooLarge", 400},
	{"InvalidResourceName", 400},
	{"CommandsInBatchActOnDifferentPartitions", 400},
	{"InvalidDuplicateRow", 400},
	{"InvalidUri", 400},
	{"InvalidHeaderValue", 400},
	{"InvalidQueryParameterValue", 400},
	{"MissingRequiredHeader", 400},
	{"InvalidXmlDocument", 400},
	{"XHttpVerbNotSupported", 400},
	{"NotSupported", 400},
	{"InvalidAuthenticationInfo", 401},
	{"AuthenticationFailed", 403},
	{"AuthorizationFailure", 403},
	{"AuthorizationPermissionMismatch", 403},
	{"AuthorizationResourceTypeMismatch", 403},
	{"AuthorizationServiceMismatch", 403},
	{"AuthorizationSourceIPMismatch", 403},
	{"AuthorizationProtocolMismatch", 403},
	{"CorsPreflightFailure", 403},
	{"InsufficientAccountPermissions", 403},
	{"ResourceNotFound", 404},
	{"TableNotFound", 404},
	{"UnsupportedHttpVerb", 405},
	{"EntityAlreadyExists", 409},
	{"TableAlreadyExists", 409},
	{"TableBeingDeleted", 409},
	{"UpdateConditionNotSatisfied", 412},
	{"RequestBodyTooLarge", 413},
	{"AtomFormatNotSupported", 415},
	{"JsonFormatNotSupported", 415},
	{"MediaTypeNotSupported", 415},
	{"RequestHeaderFieldsTooLarge", 431},
	{"InternalError", 500},
	{"OperationTimedOut", 500},
	{"NotImplemented", 501},
	{"ServerBusy", 503},
};

int
error_status(const char *code)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(codes[i].code, code) == 0)
			return codes[i].status;
	return 500;
}

const char *
error_code_lookup(const char *code, size_t n, int *status)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strlen(codes[i].code) == n && memcmp(codes[i].code, code, n) == 0)
		{
			*status = codes[i].status;
			return codes[i].code;
		}
	return NULL;
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

/*
 * A PostgreSQL error without a service code in its message: map by SQLSTATE.
 */
const char *
sqlstate_code(const char *sqlstate, int *status)
{
	const char *code = "InternalError";

	if (sqlstate == NULL || strlen(sqlstate) != 5)
		sqlstate = "XX000";
	if (strcmp(sqlstate, "42501") == 0)
		code = "AuthorizationFailure";
	else if (strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0 ||
			 strncmp(sqlstate, "53", 2) == 0 || strncmp(sqlstate, "08", 2) == 0 ||
			 strcmp(sqlstate, "57P01") == 0 || strcmp(sqlstate, "57P03") == 0 ||
			 strcmp(sqlstate, "55P03") == 0)
		code = "ServerBusy";
	else if (strcmp(sqlstate, "57014") == 0)
		code = "OperationTimedOut";
	else if (strncmp(sqlstate, "22", 2) == 0)
		code = "InvalidInput";	/* data exceptions: bad UTF-8, NUL in text, ... */
	else if (strncmp(sqlstate, "TSN", 3) == 0)
		code = strcmp(sqlstate, "TSN02") == 0 ? "TableNotFound" : "ResourceNotFound";
	else if (strncmp(sqlstate, "TSC", 3) == 0)
		code = strcmp(sqlstate, "TSC02") == 0 ? "TableAlreadyExists" : "EntityAlreadyExists";
	else if (strncmp(sqlstate, "TSP", 3) == 0)
		code = "UpdateConditionNotSatisfied";
	else if (strncmp(sqlstate, "TS", 2) == 0)
		code = "InvalidInput";
	*status = error_status(code);
	return code;
}
