/*
 * sas.c - shared access signatures (see sas.h).
 *
 * The string to sign of a table's SAS and of an account SAS is core/protocol/sign.c's (sign_sas), over the
 * decoded query parameters as sent; sig is base64 of the HMAC-SHA256 with either of the
 * account's keys. st (optional) and se are UTC times; sip one IPv4 address or a range
 * a-b; spr "https" or "https,http". A table's SAS may name a stored access policy (si), which
 * then gives sp, st and se that the token leaves out.
 */
#include "sas.h"
#include "sign.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
param(const SasInput *in, const char *name)
{
	return query_get(in->query, name);
}

static const char *
field(void *arg, const char *name)
{
	return param((const SasInput *) arg, name);
}

char *
sas_string_to_sign(const SasInput *in, SasKind kind)
{
	Buf			b;

	buf_init(&b);
	if (!sign_sas(buf_put, &b, kind == SAS_SERVICE, in->account, field, (void *) in) || b.failed)
	{
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

bool
sas_parse_time(const char *s, time_t *out)
{
	int			y,
				mo,
				d,
				hh = 0,
				mi = 0,
				ss = 0;
	size_t		n = s ? strlen(s) : 0;
	const char *p;

	if (n < 10 || s[4] != '-' || s[7] != '-' || !edm_parse_digits(s, 4, &y) || !edm_parse_digits(s + 5, 2, &mo) || !edm_parse_digits(s + 8, 2, &d) ||
		mo < 1 || mo > 12 || d < 1 || d > edm_days_in_month(y, mo) || y < 1970)
		return false;
	p = s + 10;
	if (*p == 'T')
	{
		if (strlen(p) < 7 || p[3] != ':' || !edm_parse_digits(p + 1, 2, &hh) || !edm_parse_digits(p + 4, 2, &mi) || hh > 23 || mi > 59)
			return false;
		p += 6;
		if (*p == ':')
		{
			if (!edm_parse_digits(p + 1, 2, &ss) || ss > 59)
				return false;
			p += 3;
			if (*p == '.')
			{
				int			digits = 0;

				for (p++; *p >= '0' && *p <= '9'; p++)
					digits++;
				if (digits == 0 || digits > 7)
					return false;
			}
		}
		if (strcmp(p, "Z") != 0)
			return false;
	}
	else if (*p != '\0')
		return false;
	*out = (time_t) edm_unix_from_civil(y, mo, d, hh, mi, ss);
	return true;
}

/* Permission letters to bits; false on a letter the kind does not know or a repeated one. */
static bool
parse_letters(const char *s, const char *letters, unsigned *out)
{
	*out = 0;
	if (s == NULL || *s == '\0')
		return false;
	for (; *s; s++)
	{
		const char *at = strchr(letters, *s);

		if (at == NULL || *s == '\0' || (*out & (1u << (at - letters))))
			return false;
		*out |= 1u << (at - letters);
	}
	return true;
}

bool
sas_table_permissions(const char *letters, unsigned *out)
{
	return parse_letters(letters, "raud", out);
}

/* account permission letters in SAS_P_* bit order: r a u d w l c p; blob/file-only letters
 * (x y t f i) are accepted and grant nothing here */
static bool
account_perms(const char *s, unsigned *out)
{
	unsigned	bits;

	if (!parse_letters(s, "raudwlcpxytfi", &bits))
		return false;
	*out = bits & 0xffu;
	return true;
}

static bool
ipv4(const char *s, size_t n, unsigned long *out)
{
	unsigned long v = 0;
	int			parts = 0;
	size_t		i = 0;

	while (parts < 4)
	{
		int			octet = 0,
					digits = 0;

		while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 4)
		{
			octet = octet * 10 + (s[i++] - '0');
			digits++;
		}
		if (digits == 0 || digits > 3 || octet > 255)
			return false;
		v = (v << 8) | (unsigned long) octet;
		parts++;
		if (parts < 4)
		{
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
	}
	if (i != n)
		return false;
	*out = v;
	return true;
}

/* Is the client inside sip ("a" or "a-b")? A client that is not IPv4 is outside any range. */
static SasResult
check_ip(const char *sip, const char *client)
{
	const char *dash = strchr(sip, '-');
	unsigned long lo,
				hi,
				c;

	if (!ipv4(sip, dash ? (size_t) (dash - sip) : strlen(sip), &lo))
		return SAS_MALFORMED;
	hi = lo;
	if (dash && (!ipv4(dash + 1, strlen(dash + 1), &hi) || hi < lo))
		return SAS_MALFORMED;
	if (client && strncmp(client, "::ffff:", 7) == 0)
		client += 7;
	if (client == NULL || !ipv4(client, strlen(client), &c))
		return SAS_IP;
	return (c >= lo && c <= hi) ? SAS_OK : SAS_IP;
}

/* A field from the token, else from the stored policy; both is an error (the service's rule). */
static bool
effective(const char *token, const char *policy, const char **out)
{
	if (token != NULL && *token == '\0')
		token = NULL;
	if (token != NULL && policy != NULL)
		return false;
	*out = token ? token : policy;
	return true;
}

/*
 * Does a field of the token appear twice (…&sig=a&sig=b)? Which of the two counts is not the
 * token's to say: such a token is malformed, whatever its first values sign.
 */
static bool
field_repeated(const Query *q)
{
	static const char *const fields[] = {"sv", "ss", "srt", "sp", "st", "se", "sip", "spr", "sig", "si", "tn",
	"spk", "srk", "epk", "erk", "ses", NULL};

	for (int f = 0; fields[f]; f++)
	{
		int			seen = 0;

		for (int i = 0; i < q->n; i++)
			if (strcmp(q->items[i].name, fields[f]) == 0 && ++seen > 1)
				return true;
	}
	return false;
}

SasResult
sas_verify(const SasInput *in, const AccountKeys *keys, const SasPolicy *policy, Sas *out)
{
	const char *sig = param(in, "sig");
	const char *si = param(in, "si");
	const char *sip = param(in, "sip");
	const char *spr = param(in, "spr");
	const char *sp,
			   *st,
			   *se;
	unsigned char mac[48];
	time_t		t;
	char	   *sts;
	bool		ok = false;
	SasResult	res;

	memset(out, 0, sizeof(*out));
	out->kind = param(in, "tn") ? SAS_SERVICE : SAS_ACCOUNT;
	if (sig == NULL || param(in, "sv") == NULL)
		return SAS_MISSING;
	if (field_repeated(in->query))
		return SAS_MALFORMED;
	if (out->kind == SAS_ACCOUNT && (param(in, "ss") == NULL || param(in, "srt") == NULL))
		return SAS_MISSING;
	if (out->kind == SAS_ACCOUNT && si != NULL)
		return SAS_MALFORMED;	/* an account SAS has no stored policy */
	if (strlen(sig) != 44 || b64_decode(sig, 44, mac, sizeof(mac)) != 32)
		return SAS_MALFORMED;

	/* the signature first: nothing else of an unsigned token is worth an answer */
	sts = sas_string_to_sign(in, out->kind);
	if (sts == NULL)
		return SAS_MISSING;
	for (int k = 0; k < 2 && !ok; k++)
		if (keys->key_len[k] > 0)
			ok = auth_hmac_matches(keys->key[k], keys->key_len[k], sts, mac);
	free(sts);
	if (!ok)
		return SAS_BAD_SIGNATURE;

	if (si != NULL && policy == NULL)
		return SAS_POLICY_NEEDED;
	if (!effective(param(in, "sp"), policy ? policy->permission : NULL, &sp) ||
		!effective(param(in, "st"), policy ? policy->start : NULL, &st) ||
		!effective(param(in, "se"), policy ? policy->expiry : NULL, &se))
		return SAS_POLICY_CONFLICT;
	if (sp == NULL || se == NULL)
		return SAS_MISSING;
	if (!sas_parse_time(se, &t))
		return SAS_MALFORMED;
	if (in->now > t)
		return SAS_EXPIRED;
	if (st != NULL)
	{
		if (!sas_parse_time(st, &t))
			return SAS_MALFORMED;
		if (in->now < t)
			return SAS_NOT_YET_VALID;
	}
	if (sip != NULL && *sip != '\0' && (res = check_ip(sip, in->client_ip)) != SAS_OK)
		return res;
	if (spr != NULL && *spr != '\0')
	{
		if (strcmp(spr, "https") == 0)
		{
			if (!in->https)
				return SAS_PROTOCOL;
		}
		else if (strcmp(spr, "https,http") != 0 && strcmp(spr, "http,https") != 0)
			return SAS_MALFORMED;
	}

	if (out->kind == SAS_SERVICE)
	{
		if (!sas_table_permissions(sp, &out->perms))
			return SAS_MALFORMED;
		out->table = param(in, "tn");
		out->spk = param(in, "spk");
		out->srk = param(in, "srk");
		out->epk = param(in, "epk");
		out->erk = param(in, "erk");
		if ((out->srk && !out->spk) || (out->erk && !out->epk))
			return SAS_MALFORMED;
	}
	else
	{
		unsigned	services;

		if (!account_perms(sp, &out->perms) || !parse_letters(param(in, "srt"), "sco", &out->types) ||
			!parse_letters(param(in, "ss"), "bqtf", &services))
			return SAS_MALFORMED;
		if (!(services & (1u << 2)))
			return SAS_SERVICE_MISMATCH;
	}
	return SAS_OK;
}

const char *
sas_result_code(SasResult r)
{
	switch (r)
	{
		case SAS_IP:
			return "AuthorizationSourceIPMismatch";
		case SAS_PROTOCOL:
			return "AuthorizationProtocolMismatch";
		case SAS_SERVICE_MISMATCH:
			return "AuthorizationServiceMismatch";
		default:
			return "AuthenticationFailed";
	}
}

const char *
sas_result_text(SasResult r)
{
	switch (r)
	{
		case SAS_OK:
			return "authorized";
		case SAS_MISSING:
			return "a shared access signature needs sv, sp, se and sig (and tn for a table's, ss and srt for an account's)";
		case SAS_MALFORMED:
			return "a field of the shared access signature is malformed (sp, st, se, sip, spr, ss, srt, a key range or sig)";
		case SAS_NOT_YET_VALID:
		case SAS_EXPIRED:
			return "Signature not valid in the specified time frame";
		case SAS_BAD_SIGNATURE:
			return "Signature did not match. The string to sign is the service's for this kind of SAS";
		case SAS_POLICY_NEEDED:
			return "the stored access policy named by si is needed";
		case SAS_POLICY_NOT_FOUND:
			return "the table has no stored access policy of the identifier si names";
		case SAS_POLICY_CONFLICT:
			return "a field is given both by the shared access signature and by its stored access policy";
		case SAS_IP:
			return "This request is not authorized to perform this operation using this source IP";
		case SAS_PROTOCOL:
			return "This request is not authorized to perform this operation using this protocol";
		case SAS_SERVICE_MISMATCH:
			return "This request is not authorized to perform this operation using this service (ss has no t)";
	}
	return "authentication failed";
}

const char *
sas_allows(const Sas *sas, const SasNeed *n, const char *table, const char **why)
{
	if (n->types == 0 && !n->table_sas)
	{
		*why = "This operation is authorized with the account key only (a table's access policies among them).";
		return "AuthorizationPermissionMismatch";
	}
	if (sas->kind == SAS_SERVICE)
	{
		if (!n->table_sas)
		{
			*why = "A table's shared access signature authorizes operations on its entities only.";
			return "AuthorizationResourceTypeMismatch";
		}
		if (table != NULL && !ascii_ieq(table, sas->table))
		{
			*why = "The shared access signature is for another table.";
			return "AuthorizationFailure";
		}
	}
	else if (!(sas->types & n->types))
	{
		*why = n->types == SAS_T_SERVICE ? "This operation needs the service resource type (srt with s)." :
			n->types == SAS_T_CONTAINER ? "This operation needs the container resource type (srt with c)." :
			"This operation needs the object resource type (srt with o).";
		return "AuthorizationResourceTypeMismatch";
	}
	if ((n->any && !(sas->perms & n->any)) || (sas->perms & n->all) != n->all)
	{
		*why = "This request is not authorized to perform this operation using this permission.";
		return "AuthorizationPermissionMismatch";
	}
	return NULL;
}
