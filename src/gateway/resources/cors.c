/*
 * cors.c - cross-origin requests by the account's CORS rules (Set Table Service Properties):
 *
 *   preflight: OPTIONS with Origin and Access-Control-Request-Method (and -Headers), answered
 *     before authentication: 200 with Access-Control-Allow-Origin/-Methods/-Headers/-Max-Age when
 *     a rule allows the origin, the method and every requested header; 403 CorsPreflightFailure
 *     otherwise (also when no rule is set); 400 InvalidHeaderValue without the two headers.
 *   actual requests with Origin: the answer (whatever its status) carries
 *     Access-Control-Allow-Origin and -Expose-Headers when a rule allows the origin and the
 *     method (methods compare case-sensitively, as HTTP's do); otherwise no CORS header but
 *     Vary: Origin when the account has rules, and the request is served as any other.
 *     Which origins a rule allows (wildcards included): props.h. Exposed headers name concrete headers: a rule's "x-ms-*"
 *     becomes the answer's x-ms-* headers (continuations included), since browsers take no
 *     wildcard there.
 *
 * An origin rule "*" answers "*"; otherwise the origin is echoed with
 * Access-Control-Allow-Credentials: true and Vary: Origin.
 */
#include "gateway.h"
#include "props.h"

#include <string.h>

static void
allow_origin(Req *r, const CorsRule *rule)
{
	if (rule->origins && strcmp(rule->origins, "*") == 0)
		resp_header(r, "Access-Control-Allow-Origin", "*");
	else
	{
		resp_header(r, "Access-Control-Allow-Origin", r->origin);
		resp_header(r, "Access-Control-Allow-Credentials", "true");
		resp_header(r, "Vary", "Origin");
	}
}

/* a header value we echo: printable ASCII, bounded */
static bool
echoable(const char *v)
{
	size_t		n = strlen(v);

	if (n > 4096)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] >= 0x7f)
			return false;
	return true;
}

void
cors_preflight(Req *r)
{
	ServiceProps p;
	const CorsRule *rule;

	if (r->origin == NULL || r->ac_request_method == NULL || !echoable(r->origin) ||
		!echoable(r->ac_request_method) || (r->ac_request_headers && !echoable(r->ac_request_headers)))
	{
		/* the service's code and text for a preflight without them */
		resp_error_fields(r, "InvalidHeaderValue", "A required CORS header is not present.", NULL, 0);
		return;
	}
	if (r->props_reload)
	{
		service_props_reload(r);	/* on a database worker: this preflight claimed it */
		r->props_reload = false;
	}
	if (!service_props_current(r, &p, false) ||
		(rule = props_cors_match(&p, r->origin, r->ac_request_method, r->ac_request_headers)) == NULL)
	{
		resp_error(r, "CorsPreflightFailure", NULL);
		return;
	}
	resp_empty(r, 200);
	allow_origin(r, rule);
	resp_header(r, "Access-Control-Allow-Methods", r->ac_request_method);
	if (r->ac_request_headers)
		resp_header(r, "Access-Control-Allow-Headers", r->ac_request_headers);
	resp_header(r, "Access-Control-Max-Age", arena_printf(&r->arena, "%d", rule->max_age));
}

void
cors_actual(Req *r, bool may_load)
{
	ServiceProps p;
	const CorsRule *rule;
	const char *names[RESP_MAX_HEADERS + 3];
	int			n = 0;
	Buf			expose;

	if (r->origin == NULL || !echoable(r->origin) || !service_props_current(r, &p, may_load))
		return;
	rule = props_cors_match(&p, r->origin, r->method, NULL);
	if (rule == NULL)
	{
		/* the answer depends on the Origin (another one may be allowed): caches must know */
		if (p.ncors > 0)
			resp_header(r, "Vary", "Origin");
		return;
	}
	allow_origin(r, rule);
	if (rule->exposed_headers == NULL)
		return;
	/* the headers this answer carries: the listener's own (listener.c) and the handler's */
	names[n++] = "x-ms-request-id";
	names[n++] = "x-ms-version";
	if (r->client_request_id)
		names[n++] = "x-ms-client-request-id";
	for (int i = 0; i < r->resp.nheaders; i++)
		names[n++] = r->resp.headers[i].name;
	buf_init(&expose);
	props_cors_expose(rule, names, n, &expose);
	if (!expose.failed && expose.len > 0)
		resp_header(r, "Access-Control-Expose-Headers", arena_strndup(&r->arena, expose.data, expose.len));
	buf_free(&expose);
}
