/*
 * settings.c - the table of the gateway's settings (settings.h) and the one reader of it: the
 * defaults, a value by config-file key or by flag, --help, the command line.
 */
#include "settings.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)

static const char *const log_levels[] = {"quiet", "requests", "debug", NULL};	/* LogLevel's order */
static const char *const on_off[] = {"off", "on", NULL};
static const char *const oauth_modes[] = {"off", "basic", NULL};

_Static_assert(sizeof(LogLevel) == sizeof(int), "a SET_CHOICE field is int-sized");
_Static_assert(LOG_QUIET == 0 && LOG_REQUESTS == 1 && LOG_DEBUG == 2, "log_levels follows LogLevel");

#define F(field) offsetof(Config, field)

/* key, flag, arg, type, field, default, lo, hi, choices, help, note */
const Setting gw_settings[] = {
	{"dsn", "dsn", "CONNINFO", SET_STRING, F(default_dsn), NULL, 0, 0, NULL,
	"libpq connection string for accounts without their own", NULL},
	{"node", "node", "NAME=CONNINFO", SET_NODE, F(nodes), NULL, 0, 0, NULL,
	"a node of distributed tables, by the coordinator's server name: one-partition calls go straight to it (repeat per node)", NULL},
	{"listen", "listen", "ADDR", SET_STRING, F(listen_addr), "127.0.0.1", 0, 0, NULL,
	"address to listen on", NULL},
	{"port", "port", "N", SET_INT, F(port), "10002", 0, 65535, NULL,
	"port", NULL},
	{"threads", "threads", "N", SET_INT, F(threads), "4", 0, 256, NULL,
	"HTTP worker threads", "0 = a thread per connection"},
	{"pool_size", "pool", "N", SET_INT, F(pool_size), "4", 1, 256, NULL,
	"PostgreSQL connections (and database workers) per account", NULL},
	{"queue_max", "queue", "N", SET_INT, F(queue_max), "256", 0, 100000, NULL,
	"requests that may wait for a connection before 503", NULL},
	{"queue_timeout_ms", "queue-timeout", "MS", SET_INT, F(queue_timeout_ms), "10000", 1, 600000, NULL,
	"longest wait for a connection before 503", NULL},
	{"connection_timeout_s", "timeout", "S", SET_INT, F(conn_timeout_s), "30", 1, 3600, NULL,
	"idle client connection timeout in seconds", NULL},
	{"request_timeout_s", "request-timeout", "S", SET_INT, F(request_timeout_s), "60", 1, 3600, NULL,
	"longest time to receive one request body", NULL},
	{"statement_timeout_ms", "statement-timeout", "MS", SET_INT, F(statement_timeout_ms), "30000", 0, 3600000, NULL,
	"per SQL call", "0 = none"},
	{"max_connections", "max-connections", "N", SET_INT, F(max_connections), "1000", 1, 100000, NULL,
	"client connections", NULL},
	/* libmicrohttpd clears this much per request: keep it small */
	{"header_limit", "header-limit", "BYTES", SET_BYTES, F(header_limit), "32768", 4096, 16 * MIB, NULL,
	"request line + headers per connection", NULL},
	{"body_memory_mb", "body-memory", "MB", SET_MB, F(body_memory), "64", 4, 65536, NULL,
	"request bodies held at once, all connections", NULL},
	{"response_memory_mb", "response-memory", "MB", SET_MB, F(response_memory), "256", 16, 65536, NULL,
	"answers not yet sent, all connections", NULL},
	{"account_share_pct", "account-share", "PCT", SET_INT, F(account_share_pct), "10", 1, 100, NULL,
	"of each of the two, the room kept for each account", NULL},
	{"credential_share_pct", "credential-share", "PCT", SET_INT, F(credential_share_pct), "50", 1, 100, NULL,
	"of an account's kept room, the part its SASes and tokens leave to its key", NULL},
	{"send_timeout_s", "send-timeout", "S", SET_INT, F(send_timeout_s), "10", 1, 3600, NULL,
	"an answer the client reads nothing of for S seconds is dropped", NULL},
	{"per_ip_connections", "per-ip-connections", "N", SET_INT, F(per_ip_connections), "128", 0, 100000, NULL,
	"client connections from one address", "0 = no limit"},
	{"log", "log", "quiet|requests|debug", SET_CHOICE, F(log_level), "requests", 0, 0, log_levels,
	"on stderr: errors only, one line per request, or more", NULL},
	{"tls_cert", "cert", "FILE", SET_STRING, F(tls_cert), NULL, 0, 0, NULL,
	"serve HTTPS with this PEM certificate (chain); needs --key", NULL},
	{"tls_key", "key", "FILE", SET_STRING, F(tls_key), NULL, 0, 0, NULL,
	"the private key of --cert (PEM)", NULL},
	{"oauth", "oauth", "basic", SET_SWITCH, F(oauth), "off", 0, 0, oauth_modes,
	"accept bearer tokens (HTTPS only): aud, iss, nbf, exp checked", NULL},
	{"oauth_keys", "oauth-keys", "FILE", SET_STRING, F(oauth_keys), NULL, 0, 0, NULL,
	"with --oauth: RS256 signatures verified with these PEM public keys", NULL},
	{"oauth_issuers", "oauth-issuers", "LIST", SET_STRING, F(oauth_issuers), NULL, 0, 0, NULL,
	"with --oauth-keys: the issuers (tenants) trusted, comma-separated", NULL},
	{"allow_dev_account", "allow-dev-account", NULL, SET_SWITCH, F(allow_dev_account), "off", 0, 0, on_off,
	"allow the public development key with a non-loopback --listen, --cert or --oauth (anyone can sign requests with it)", NULL},
};

const int	gw_nsettings = sizeof(gw_settings) / sizeof(gw_settings[0]);

#undef F

const Setting *
setting_by_key(const char *key)
{
	for (int i = 0; i < gw_nsettings; i++)
		if (strcmp(gw_settings[i].key, key) == 0)
			return &gw_settings[i];
	return NULL;
}

const Setting *
setting_by_flag(const char *flag)
{
	for (int i = 0; i < gw_nsettings; i++)
		if (strcmp(gw_settings[i].flag, flag) == 0)
			return &gw_settings[i];
	return NULL;
}

static bool
parse_int(const char *v, int lo, int hi, int *out)
{
	char	   *end;
	long		x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end != '\0' || x < lo || x > hi)
		return false;
	*out = (int) x;
	return true;
}

/* "NAME=CONNINFO": a node of distributed tables, by the coordinator's server name. */
bool
setting_add_node(Node *nodes, int *nnodes, const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	size_t		n = eq ? (size_t) (eq - v) : 0;

	if (n == 0 || n >= sizeof(nodes[0].name) || eq[1] == '\0')
	{
		snprintf(err, errlen, "expected NAME=CONNINFO (the coordinator's server name and a libpq connection string)");
		return false;
	}
	if (*nnodes == GW_MAX_NODES)
	{
		snprintf(err, errlen, "at most %d nodes", GW_MAX_NODES);
		return false;
	}
	memcpy(nodes[*nnodes].name, v, n);
	nodes[*nnodes].name[n] = '\0';
	nodes[*nnodes].dsn = strdup(eq + 1);
	(*nnodes)++;
	return true;
}

/* "a, b or c" */
static void
choice_list(const char *const *choices, char *buf, size_t len)
{
	size_t		n = 0;

	buf[0] = '\0';
	for (int i = 0; choices[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : choices[i + 1] ? ", " : " or ", choices[i]);
}

bool
setting_set(Config *c, const Setting *s, const char *v, char *err, size_t errlen)
{
	char	   *field = (char *) c + s->offset;
	int			x;

	switch (s->type)
	{
		case SET_INT:
		case SET_BYTES:
		case SET_MB:
			if (!parse_int(v, s->lo, s->hi, &x))
			{
				snprintf(err, errlen, "%s must be an integer from %d to %d", s->key, s->lo, s->hi);
				return false;
			}
			if (s->type == SET_INT)
				*(int *) field = x;
			else
				*(size_t *) field = (size_t) x * (s->type == SET_MB ? MIB : 1);
			return true;
		case SET_STRING:
			{
				char	   *copy = strdup(v);

				if (copy == NULL)
				{
					snprintf(err, errlen, "out of memory");
					return false;
				}
				free(*(char **) field);
				*(char **) field = copy;
				return true;
			}
		case SET_CHOICE:
		case SET_SWITCH:
			for (int i = 0; s->choices[i]; i++)
				if (strcmp(v, s->choices[i]) == 0)
				{
					if (s->type == SET_SWITCH)
						*(bool *) field = i == 1;
					else
						*(int *) field = i;
					return true;
				}
			{
				char		list[128];

				choice_list(s->choices, list, sizeof(list));
				snprintf(err, errlen, "%s must be %s", s->key, list);
			}
			return false;
		case SET_NODE:
			return setting_add_node(c->nodes, &c->nnodes, v, err, errlen);
	}
	snprintf(err, errlen, "%s: unknown type of setting", s->key);
	return false;
}

void
setting_format(const Config *c, const Setting *s, char *buf, size_t len)
{
	const char *field = (const char *) c + s->offset;
	size_t		n = 0;

	buf[0] = '\0';
	switch (s->type)
	{
		case SET_INT:
			snprintf(buf, len, "%d", *(const int *) field);
			break;
		case SET_BYTES:
			snprintf(buf, len, "%zu", *(const size_t *) field);
			break;
		case SET_MB:
			snprintf(buf, len, "%zu", *(const size_t *) field / MIB);
			break;
		case SET_STRING:
			snprintf(buf, len, "%s", *(char *const *) field ? *(char *const *) field : "");
			break;
		case SET_CHOICE:
			snprintf(buf, len, "%s", s->choices[*(const int *) field]);
			break;
		case SET_SWITCH:
			snprintf(buf, len, "%s", s->choices[*(const bool *) field ? 1 : 0]);
			break;
		case SET_NODE:
			for (int i = 0; i < c->nnodes && n < len; i++)
				n += snprintf(buf + n, len - n, "%s%s=%s", i ? "; " : "", c->nodes[i].name, c->nodes[i].dsn);
			break;
	}
}

bool
settings_defaults(Config *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < gw_nsettings; i++)
	{
		char		e[200];

		if (gw_settings[i].def != NULL && !setting_set(c, &gw_settings[i], gw_settings[i].def, e, sizeof(e)))
		{
			snprintf(err, errlen, "the default of %s: %s", gw_settings[i].key, e);
			return false;
		}
	}
	return true;
}

/* getopt_long's codes: a setting's index + SETTING_OPT; the flags that act are letters */
#define SETTING_OPT 256

bool
settings_parse_args(int argc, char **argv, GwArgs *out, char *err, size_t errlen)
{
	struct option opts[sizeof(gw_settings) / sizeof(gw_settings[0]) + 5];
	int			n = 0,
				c;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	for (int i = 0; i < gw_nsettings; i++)
		opts[n++] = (struct option) {gw_settings[i].flag, gw_settings[i].arg ? required_argument : no_argument, NULL, SETTING_OPT + i};
	opts[n++] = (struct option) {"config", required_argument, NULL, 'c'};
	opts[n++] = (struct option) {"print-sql", no_argument, NULL, 'x'};
	opts[n++] = (struct option) {"help", no_argument, NULL, 'h'};
	opts[n++] = (struct option) {"version", no_argument, NULL, 'v'};
	opts[n] = (struct option) {NULL, 0, NULL, 0};

	optind = 0;					/* a fresh scan (GNU getopt), also when called again */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
	{
		if (c >= SETTING_OPT && c < SETTING_OPT + gw_nsettings)
		{
			const Setting *s = &gw_settings[c - SETTING_OPT];

			if (out->n == GW_MAX_FLAGS)
			{
				snprintf(err, errlen, "more than %d flags", GW_MAX_FLAGS);
				return false;
			}
			out->set[out->n] = s;
			out->value[out->n] = s->arg ? optarg : s->choices[1];
			out->n++;
			continue;
		}
		switch (c)
		{
			case 'c':
				out->config_file = optarg;
				break;
			case 'x':
				out->print_sql = true;
				break;
			case 'h':
				out->help = true;
				break;
			case 'v':
				out->version = true;
				break;
			default:
				return false;	/* getopt_long said why */
		}
	}
	if (optind < argc)
	{
		snprintf(err, errlen, "unexpected argument \"%.80s\"", argv[optind]);
		return false;
	}
	return true;
}

bool
settings_apply_args(Config *c, const GwArgs *a, char *err, size_t errlen)
{
	for (int i = 0; i < a->n; i++)
	{
		char		e[300];

		if (!setting_set(c, a->set[i], a->value[i], e, sizeof(e)))
		{
			snprintf(err, errlen, "--%s: %s", a->set[i]->flag, e);
			return false;
		}
	}
	return true;
}

/* "  --flag ARG   text", the text from column USAGE_INDENT, wrapped before column USAGE_WIDTH */
#define USAGE_INDENT 28
#define USAGE_WIDTH 104

static void
usage_line(FILE *f, const char *flag, const char *arg, const char *text)
{
	int			col = fprintf(f, "  --%s%s%s", flag, arg ? " " : "", arg ? arg : "");
	bool		line_start = true;

	if (col < USAGE_INDENT)
		col += fprintf(f, "%*s", USAGE_INDENT - col, "");
	else
		col += fprintf(f, "  ");
	for (const char *p = text; *p;)
	{
		int			word = (int) strcspn(p, " ");

		if (!line_start && col + 1 + word > USAGE_WIDTH)
		{
			col = fprintf(f, "\n%*s", USAGE_INDENT, "") - 1;
			line_start = true;
		}
		col += fprintf(f, "%s%.*s", line_start ? "" : " ", word, p);
		line_start = false;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void
settings_usage(FILE *f)
{
	fprintf(f, "tablestore-gateway %s - the Azure Table service REST protocol over PostgreSQL (tablestore)\n"
			"\n"
			"usage: tablestore-gateway [options]\n"
			"\n", TS_VERSION);
	for (int i = 0; i < gw_nsettings; i++)
	{
		const Setting *s = &gw_settings[i];
		char		text[400];
		int			n;

		n = snprintf(text, sizeof(text), "%s", s->help);
		if (s->def)
			n += snprintf(text + n, sizeof(text) - n, " (default %s%s%s)", s->def, s->note ? "; " : "", s->note ? s->note : "");
		else if (s->note)
			snprintf(text + n, sizeof(text) - n, " (%s)", s->note);
		usage_line(f, s->flag, s->arg, text);
	}
	usage_line(f, "config", "FILE", "the config file: the settings' keys (key = value) and [account NAME] sections "
			   "(see README); flags win over it");
	usage_line(f, "print-sql", NULL, "print the prepared statements and exit");
	usage_line(f, "help", NULL, "this text; --version: the version");
	fprintf(f,
			"\n"
			"Accounts: AZURITE_ACCOUNTS=\"name:key1[:key2];...\" and [account NAME] sections; without\n"
			"any, devstoreaccount1 with the well-known development key. Each account has a database of\n"
			"its own: its dsn, else --dsn's database for the first account, <database>_<account> for the\n"
			"others (created when missing).\n");
}
