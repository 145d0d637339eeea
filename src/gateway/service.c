/*
 * service.c - the XML service resources, answered minimally:
 *   GET  ?restype=service&comp=properties  a valid StorageServiceProperties document (logging,
 *        metrics and CORS all off); PUT is accepted (202) and not stored.
 *   GET  ?restype=service&comp=stats       geo-replication "live" (there is no secondary).
 */
#include "gateway.h"

#include <string.h>

static void
xml(Req *r, int status, const char *doc)
{
	r->resp.status = status;
	buf_free(&r->resp.body);
	buf_puts(&r->resp.body, doc);
	r->resp.content_type = "application/xml";
}

static const char properties_doc[] =
"<?xml version=\"1.0\" encoding=\"utf-8\"?><StorageServiceProperties>"
"<Logging><Version>1.0</Version><Delete>false</Delete><Read>false</Read><Write>false</Write>"
"<RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></Logging>"
"<HourMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics>"
"<MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics>"
"<Cors /></StorageServiceProperties>";

void
service_handle(Req *r)
{
	const char *restype = query_get(&r->target.query, "restype");
	const char *comp = query_get(&r->target.query, "comp");
	bool		get = strcmp(r->verb, "GET") == 0;
	bool		put = strcmp(r->verb, "PUT") == 0;

	if (restype && strcmp(restype, "service") == 0 && comp && strcmp(comp, "properties") == 0)
	{
		if (get)
			xml(r, 200, properties_doc);
		else if (put)
			resp_empty(r, 202);
		else
			resp_error(r, "UnsupportedHttpVerb", "The resource doesn't support the specified HTTP verb.");
		return;
	}
	if (restype && strcmp(restype, "service") == 0 && comp && strcmp(comp, "stats") == 0 && get)
	{
		char		t[64];

		http_date(t, time(NULL));
		xml(r, 200, arena_printf(&r->arena,
								 "<?xml version=\"1.0\" encoding=\"utf-8\"?><StorageServiceStats><GeoReplication>"
								 "<Status>live</Status><LastSyncTime>%s</LastSyncTime></GeoReplication></StorageServiceStats>", t));
		return;
	}
	resp_error(r, "InvalidQueryParameterValue", "The account root supports ?restype=service&comp=properties and comp=stats only.");
}
