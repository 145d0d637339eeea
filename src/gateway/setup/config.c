/*
 * config.c - the config file (key = value lines of settings.c's keys, [account NAME] sections),
 * AZURITE_ACCOUNTS ("name:key1[:key2];..."), the accounts' rules, and the account lookup used on
 * every request. The settings themselves, their defaults and checks, are settings.c's table.
 *
 * The accounts' rules (doc/gateway.md, "Accounts"):
 * - Configured accounts (AZURITE_ACCOUNTS, [account] sections) replace the development account
 *   devstoreaccount1, as in Azurite; it exists only when no account is configured.
 * - Each account's data lives in its own database: the account's dsn, else --dsn's database for
 *   the first account without one, and <that database>_<account> on the same server for each
 *   other (account_db.c creates it). The gateway refuses to start when two accounts would share
 *   a database, and each database remembers the account it serves (tablestore.claim_account).
 * - The public development key (any account's) is refused with a non-loopback --listen, with
 *   --cert or with --oauth, unless --allow-dev-account says so.
 */
#include "config.h"
#include "settings.h"

#include <libpq-fe.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Config		gw_config;

static Account *
add_account(Config *c, const char *name, size_t len, char *err, size_t errlen)
{
	Account    *a;

	for (int i = 0; i < c->naccounts; i++)
		if (strlen(c->accounts[i].name) == len && memcmp(c->accounts[i].name, name, len) == 0)
			return &c->accounts[i];
	if (len == 0 || len >= sizeof(a->name))
	{
		snprintf(err, errlen, "an account name must have 1 to 63 characters");
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
			  (name[i] >= 'A' && name[i] <= 'Z') || name[i] == '-'))
		{
			snprintf(err, errlen, "an account name may hold letters, digits and '-' only");
			return NULL;
		}
	if (c->naccounts >= GW_MAX_ACCOUNTS)
	{
		snprintf(err, errlen, "at most %d accounts", GW_MAX_ACCOUNTS);
		return NULL;
	}
	a = &c->accounts[c->naccounts++];
	memset(a, 0, sizeof(*a));
	memcpy(a->name, name, len);
	return a;
}

static bool
set_key(Account *a, int which, const char *b64, char *err, size_t errlen)
{
	if (!auth_decode_key(b64, a->keys.key[which], &a->keys.key_len[which]))
	{
		snprintf(err, errlen, "account %s: key%d is not valid base64 (at most %d bytes)", a->name, which + 1, AUTH_MAX_KEY);
		return false;
	}
	return true;
}

bool
config_defaults(Config *c, char *err, size_t errlen)
{
	return settings_defaults(c, err, errlen);
}

bool
config_add_accounts(Config *c, const char *spec, char *err, size_t errlen)
{
	char	   *copy = strdup(spec);
	char	   *save = NULL;
	bool		ok = true;

	for (char *item = strtok_r(copy, ";", &save); item && ok; item = strtok_r(NULL, ";", &save))
	{
		char	   *name = item,
				   *k1,
				   *k2;
		Account    *a;

		while (*name == ' ' || *name == '\n')
			name++;
		if (*name == '\0')
			continue;
		k1 = strchr(name, ':');
		if (k1 == NULL)
		{
			snprintf(err, errlen, "AZURITE_ACCOUNTS: expected name:key1[:key2]");
			ok = false;
			break;
		}
		*k1++ = '\0';
		k2 = strchr(k1, ':');
		if (k2)
			*k2++ = '\0';
		a = add_account(c, name, strlen(name), err, errlen);
		ok = a && set_key(a, 0, k1, err, errlen) && (k2 == NULL || set_key(a, 1, k2, err, errlen));
		c->accounts_configured = true;
	}
	free(copy);
	return ok;
}

/* A setting by its config-file key (settings.c), or the config file's "accounts". */
bool
config_set(Config *c, const char *key, const char *v, char *err, size_t errlen)
{
	const Setting *s;

	if (strcmp(key, "accounts") == 0)
		return config_add_accounts(c, v, err, errlen);
	s = setting_by_key(key);
	if (s == NULL)
	{
		snprintf(err, errlen, "unknown setting \"%.40s\"", key);
		return false;
	}
	return setting_set(c, s, v, err, errlen);
}

static char *
trim(char *s)
{
	char	   *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

bool
config_load_file(Config *c, const char *path, char *err, size_t errlen)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];
	int			lineno = 0;
	Account    *section = NULL;
	char		e[200];

	if (f == NULL)
	{
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f))
	{
		char	   *s = trim(line),
				   *eq,
				   *k,
				   *v;

		lineno++;
		if (*s == '\0' || *s == '#' || *s == ';')
			continue;
		if (*s == '[')
		{
			char	   *close = strchr(s, ']');

			if (close == NULL || strncmp(s, "[account ", 9) != 0)
			{
				snprintf(err, errlen, "%s:%d: expected [account NAME]", path, lineno);
				fclose(f);
				return false;
			}
			*close = '\0';
			k = trim(s + 9);
			section = add_account(c, k, strlen(k), e, sizeof(e));
			c->accounts_configured = true;
			if (section == NULL)
			{
				snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
				fclose(f);
				return false;
			}
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL)
		{
			snprintf(err, errlen, "%s:%d: expected key = value", path, lineno);
			fclose(f);
			return false;
		}
		*eq = '\0';
		k = trim(s);
		v = trim(eq + 1);
		if (section)
		{
			bool		ok = true;

			if (strcmp(k, "key1") == 0)
				ok = set_key(section, 0, v, e, sizeof(e));
			else if (strcmp(k, "key2") == 0)
				ok = set_key(section, 1, v, e, sizeof(e));
			else if (strcmp(k, "dsn") == 0)
			{
				free(section->dsn);
				section->dsn = strdup(v);
			}
			else if (strcmp(k, "node") == 0)
				ok = setting_add_node(section->nodes, &section->nnodes, v, e, sizeof(e));
			else
			{
				snprintf(e, sizeof(e), "unknown account setting \"%.40s\" (key1, key2, dsn, node)", k);
				ok = false;
			}
			if (!ok)
			{
				snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
				fclose(f);
				return false;
			}
		}
		else if (!config_set(c, k, v, e, sizeof(e)))
		{
			snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
			fclose(f);
			return false;
		}
	}
	fclose(f);
	return true;
}

static bool
listen_is_loopback(const char *addr)
{
	return addr != NULL && (strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0);
}

/* A conninfo value, quoted for a key=value connection string. */
static void
append_conninfo_value(Buf *b, const char *v)
{
	buf_puts(b, "'");
	for (; *v; v++)
	{
		if (*v == '\'' || *v == '\\')
			buf_puts(b, "\\");
		buf_append(b, v, 1);
	}
	buf_puts(b, "'");
}

char *
config_account_dsn(const char *base_dsn, const char *account, char *err, size_t errlen)
{
	char	   *perr = NULL;
	PQconninfoOption *opts = PQconninfoParse(base_dsn, &perr);
	const char *dbname = NULL;
	Buf			b;
	char	   *out = NULL;

	if (opts == NULL)
	{
		snprintf(err, errlen, "--dsn does not parse: %s", perr ? perr : "out of memory");
		PQfreemem(perr);
		return NULL;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, "dbname") == 0)
			dbname = o->val;
	if (dbname == NULL || *dbname == '\0' || strlen(dbname) + strlen(account) + 2 > 63)
	{
		snprintf(err, errlen, "account %s has no dsn of its own, and --dsn names no database (dbname) to derive "
				 "its database <dbname>_%s from, or the name would be over 63 bytes", account, account);
		PQconninfoFree(opts);
		return NULL;
	}
	buf_init(&b);
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || strcmp(o->keyword, "dbname") == 0)
			continue;
		buf_printf(&b, "%s=", o->keyword);
		append_conninfo_value(&b, o->val);
		buf_puts(&b, " ");
	}
	buf_puts(&b, "dbname=");
	{
		char		name[128];

		snprintf(name, sizeof(name), "%s_%s", dbname, account);
		for (char *p = name + strlen(dbname) + 1; *p; p++)
			*p = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p == '-' ? '_' : *p;
		append_conninfo_value(&b, name);
	}
	if (!b.failed)
		out = strdup(b.data);
	buf_free(&b);
	PQconninfoFree(opts);
	if (out == NULL)
		snprintf(err, errlen, "out of memory");
	return out;
}

/* Does the account hold the public development key? */
static bool
has_dev_key(const Account *a)
{
	unsigned char dev[AUTH_MAX_KEY];
	size_t		len = 0;

	if (!auth_decode_key(DEV_KEY, dev, &len))
		return false;
	for (int k = 0; k < 2; k++)
		if (a->keys.key_len[k] == len && memcmp(a->keys.key[k], dev, len) == 0)
			return true;
	return false;
}

/* The accounts: the development account when none is configured, and each one's database. */
static bool
finish_accounts(Config *c, char *err, size_t errlen)
{
	bool		default_taken = false;

	if (!c->accounts_configured)
	{
		Account    *dev = add_account(c, DEV_ACCOUNT, strlen(DEV_ACCOUNT), err, errlen);

		if (dev == NULL || !set_key(dev, 0, DEV_KEY, err, errlen))
			return false;
	}
	for (int i = 0; i < c->naccounts; i++)
	{
		Account    *a = &c->accounts[i];

		if (a->keys.key_len[0] == 0 && a->keys.key_len[1] == 0)
		{
			snprintf(err, errlen, "account %s has no key", a->name);
			return false;
		}
		a->dev_key = has_dev_key(a);
		if (a->dev_key && !c->allow_dev_account && (c->tls_cert || c->oauth || !listen_is_loopback(c->listen_addr)))
		{
			snprintf(err, errlen, "account %s has the public development key, which anyone can sign with: it is refused "
					 "with a non-loopback --listen, --cert or --oauth unless --allow-dev-account", a->name);
			return false;
		}
		if (a->dsn != NULL)
			continue;
		if (c->default_dsn == NULL)
		{
			snprintf(err, errlen, "account %s has no database: give --dsn or a dsn in the config file", a->name);
			return false;
		}
		if (!default_taken)
		{
			/* the first account without a dsn of its own has --dsn's database, and --node's nodes */
			a->dsn = strdup(c->default_dsn);
			memcpy(a->nodes, c->nodes, sizeof(c->nodes));
			a->nnodes = c->nnodes;
			default_taken = true;
		}
		else if ((a->dsn = config_account_dsn(c->default_dsn, a->name, err, errlen)) == NULL)
			return false;
		else
			a->dsn_derived = true;
	}
	if (c->nnodes > 0 && !default_taken)
	{
		snprintf(err, errlen, "--node names the nodes of the account that uses --dsn's database, and every account has a dsn of its own: give the nodes in the accounts' sections (node = NAME=CONNINFO)");
		return false;
	}
	return true;
}

bool
config_finish(Config *c, char *err, size_t errlen)
{
	if ((c->tls_cert == NULL) != (c->tls_key == NULL))
	{
		snprintf(err, errlen, "HTTPS needs both a certificate (--cert) and its key (--key)");
		return false;
	}
	if (c->oauth && c->tls_cert == NULL)
	{
		snprintf(err, errlen, "bearer tokens (--oauth basic) are accepted over HTTPS only: give --cert and --key");
		return false;
	}
	if ((c->oauth_keys || c->oauth_issuers) && !c->oauth)
	{
		snprintf(err, errlen, "--oauth-keys and --oauth-issuers need --oauth basic");
		return false;
	}
	if (c->oauth_keys && !c->oauth_issuers)
	{
		/* Entra ID signs every tenant's tokens with the same keys: the signature alone admits anyone */
		snprintf(err, errlen, "signed tokens (--oauth-keys) need the issuers to trust (--oauth-issuers https://sts.windows.net/<tenant id>/,...)");
		return false;
	}
	if (c->oauth && !c->oauth_keys && !listen_is_loopback(c->listen_addr))
	{
		snprintf(err, errlen, "unsigned bearer tokens (--oauth basic without --oauth-keys) are for development on a loopback address only");
		return false;
	}
	return finish_accounts(c, err, errlen);
}

Account *
config_find_account(const char *name, size_t len)
{
	for (int i = 0; i < gw_config.naccounts; i++)
		if (strlen(gw_config.accounts[i].name) == len && memcmp(gw_config.accounts[i].name, name, len) == 0)
			return &gw_config.accounts[i];
	return NULL;
}
