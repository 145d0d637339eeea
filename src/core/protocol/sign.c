/*
 * sign.c - the strings to sign of Shared Key, Shared Key Lite and shared access signatures
 * (sign.h): laid out once for the gateway, which verifies them, and tablestore-copy, which signs.
 */
#include "sign.h"

#include <string.h>

static void
put_str(SignPut put, void *sink, const char *s)
{
	if (s != NULL)
		put(sink, s, strlen(s));
}

void
sign_shared_key(SignPut put, void *sink, SignScheme scheme, const SignRequest *r)
{
	if (scheme == SIGN_SHARED_KEY)
	{
		put_str(put, sink, r->method);
		put(sink, "\n", 1);
		put_str(put, sink, r->content_md5);
		put(sink, "\n", 1);
		put_str(put, sink, r->content_type);
		put(sink, "\n", 1);
	}
	put_str(put, sink, r->date);
	put(sink, "\n/", 2);
	put_str(put, sink, r->account);
	put_str(put, sink, r->raw_path);
	if (r->comp != NULL)
	{
		put(sink, "?comp=", 6);
		put_str(put, sink, r->comp);
	}
}

bool
sign_sas(SignPut put, void *sink, bool table_sas, const char *account, SignField field, void *arg)
{
	static const char *const service_fields[] = {"si", "sip", "spr", "sv", "spk", "srk", "epk", "erk"};
	static const char *const account_fields[] = {"sp", "ss", "srt", "st", "se", "sip", "spr", "sv"};
	const char *sv = field(arg, "sv");

	if (sv == NULL)
		return false;
	if (table_sas)
	{
		const char *tn = field(arg, "tn");

		if (tn == NULL)
			return false;
		put_str(put, sink, field(arg, "sp"));
		put(sink, "\n", 1);
		put_str(put, sink, field(arg, "st"));
		put(sink, "\n", 1);
		put_str(put, sink, field(arg, "se"));
		put(sink, "\n/table/", 8);
		put_str(put, sink, account);
		put(sink, "/", 1);
		/* the table name in lower case (ASCII: table names are) */
		for (const char *p = tn; *p; p++)
		{
			char		c = (*p >= 'A' && *p <= 'Z') ? (char) (*p - 'A' + 'a') : *p;

			put(sink, &c, 1);
		}
		for (size_t i = 0; i < lengthof(service_fields); i++)
		{
			put(sink, "\n", 1);
			put_str(put, sink, field(arg, service_fields[i]));
		}
	}
	else
	{
		put_str(put, sink, account);
		for (size_t i = 0; i < lengthof(account_fields); i++)
		{
			put(sink, "\n", 1);
			put_str(put, sink, field(arg, account_fields[i]));
		}
		put(sink, "\n", 1);
		if (strcmp(sv, "2020-12-06") >= 0)
		{
			put_str(put, sink, field(arg, "ses"));
			put(sink, "\n", 1);
		}
	}
	return true;
}
