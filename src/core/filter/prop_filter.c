/*
 * prop_filter.c - the compiled comparison of one custom property with a literal (prop_filter.h):
 * its stored form, built from a parsed comparison and read back with every field checked, and
 * its text form, the OData comparison. Backend-free.
 */
#include "prop_filter.h"

#include "entity_format.h"

#include <math.h>

static const char *const cmp_names[] = {
	[CMP_EQ] = "eq", [CMP_NE] = "ne", [CMP_GT] = "gt", [CMP_GE] = "ge", [CMP_LT] = "lt", [CMP_LE] = "le"
};

const char *
odata_cmp_name(OdCmp op)
{
	return cmp_names[op];
}

/* The literal's value as an entity stores a value of its type; returns its length. */
static uint32
literal_value_len(const OdLiteral *lit)
{
	switch (lit->type)
	{
		case EDM_STRING:
		case EDM_BINARY:
			return lit->len;
		default:
			return (uint32) edm_fixed_size(lit->type);
	}
}

static void
literal_value_write(const OdLiteral *lit, uint8 *out)
{
	uint64		bits;

	switch (lit->type)
	{
		case EDM_STRING:
			memcpy(out, lit->str, lit->len);
			break;
		case EDM_BINARY:
			memcpy(out, lit->bin, lit->len);
			break;
		case EDM_INT32:
			ts_wr32(out, (uint32) lit->i32);
			break;
		case EDM_INT64:
		case EDM_DATETIME:
			ts_wr64(out, (uint64) lit->i64);
			break;
		case EDM_DOUBLE:
			memcpy(&bits, &lit->dbl, 8);
			ts_wr64(out, bits);
			break;
		case EDM_BOOLEAN:
			out[0] = lit->b ? 1 : 0;
			break;
		case EDM_GUID:
			memcpy(out, lit->guid, 16);
			break;
		default:
			break;
	}
}

struct varlena *
prop_filter_build(const char *name, uint32 name_len, OdCmp op, const OdLiteral *lit)
{
	uint32		vlen = literal_value_len(lit);
	uint32		size = VARHDRSZ + PROP_FILTER_HEADER_SIZE + name_len + vlen;
	struct varlena *v = palloc(size);
	uint8	   *p = (uint8 *) VARDATA(v);

	SET_VARSIZE(v, size);
	p[0] = PROP_FILTER_VERSION;
	p[1] = (uint8) op;
	p[2] = (uint8) lit->type;
	p[3] = 0;
	ts_wr16(p + 4, (uint16) name_len);
	memcpy(p + PROP_FILTER_HEADER_SIZE, name, name_len);
	literal_value_write(lit, p + PROP_FILTER_HEADER_SIZE + name_len);
	return v;
}

/* A name the $filter language reads as a keyword: no filter can name such a property. */
static bool
is_keyword(const char *name, uint32 len)
{
	static const char *const words[] = {"and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le", "true", "false", "null"};

	for (int i = 0; i < (int) lengthof(words); i++)
		if (strlen(words[i]) == len && memcmp(words[i], name, len) == 0)
			return true;
	return false;
}

static bool
malformed(TsError *err, const char *what)
{
	return ts_fail(err, TSE_INVALID_BINARY, "invalid tablestore.property_filter data: %s", what);
}

bool
prop_filter_read(const uint8 *body, uint32 len, PropFilter *out, TsError *err)
{
	const uint8 *v;
	uint32		vlen;
	OdLiteral  *lit = &out->lit;
	uint64		bits;

	memset(out, 0, sizeof(*out));
	if (len < PROP_FILTER_HEADER_SIZE || body[0] != PROP_FILTER_VERSION)
		return malformed(err, "unknown version");
	if (body[1] > CMP_LE || body[2] < EDM_STRING || body[2] > EDM_TYPE_MAX || body[3] != 0)
		return malformed(err, "unknown operator or type");
	out->op = (OdCmp) body[1];
	out->name_len = ts_rd16(body + 4);
	if (out->name_len > len - PROP_FILTER_HEADER_SIZE)
		return malformed(err, "the name runs past the end");
	out->name = (const char *) body + PROP_FILTER_HEADER_SIZE;
	if (edm_check_name(out->name, out->name_len) != EDM_CHECK_OK || is_keyword(out->name, out->name_len))
		return malformed(err, "the property name is not a custom property name a filter can name");
	v = body + PROP_FILTER_HEADER_SIZE + out->name_len;
	vlen = len - PROP_FILTER_HEADER_SIZE - out->name_len;
	lit->type = (EdmType) body[2];
	if (edm_fixed_size(lit->type) >= 0 && vlen != (uint32) edm_fixed_size(lit->type))
		return malformed(err, "the value has the wrong size for its type");
	switch (lit->type)
	{
		case EDM_STRING:
			if (!edm_utf8_valid((const char *) v, vlen) || memchr(v, '\0', vlen) != NULL)
				return malformed(err, "the String is not valid UTF-8 text without U+0000");
			lit->str = (const char *) v;
			lit->len = vlen;
			break;
		case EDM_BINARY:
			lit->bin = v;
			lit->len = vlen;
			break;
		case EDM_INT32:
			lit->i32 = (int32) ts_rd32(v);
			break;
		case EDM_INT64:
			lit->i64 = (int64) ts_rd64(v);
			break;
		case EDM_DATETIME:
			lit->i64 = (int64) ts_rd64(v);
			if (lit->i64 < EDM_TICKS_MIN || lit->i64 > EDM_TICKS_MAX)
				return malformed(err, "the DateTime is out of range");
			break;
		case EDM_DOUBLE:
			bits = ts_rd64(v);
			memcpy(&lit->dbl, &bits, 8);
			if (!isfinite(lit->dbl))
				return malformed(err, "a Double literal is finite");
			break;
		case EDM_BOOLEAN:
			if (v[0] > 1)
				return malformed(err, "a Boolean is 0 or 1");
			lit->b = v[0] == 1;
			break;
		case EDM_GUID:
			memcpy(lit->guid, v, 16);
			break;
		default:
			return malformed(err, "unknown type");
	}
	return true;
}

bool
prop_filter_parse(const char *text, size_t len, PropFilter *out, TsError *err)
{
	int			ncmp;
	OdNode	   *n = odata_parse(text, len, 1, &ncmp, err);

	memset(out, 0, sizeof(*out));
	if (err->code != TSE_NONE)
		return false;
	if (n == NULL || n->kind != N_CMP || n->prop != PROP_CUSTOM)
		return ts_fail(err, TSE_FILTER_SYNTAX, "a property filter is one comparison of a custom property with a "
					   "literal, such as Age gt 30 (not PartitionKey, RowKey or Timestamp, no and, or, not)");
	out->name = n->name;
	out->name_len = n->name_len;
	out->op = n->op;
	out->lit = n->lit;
	return true;
}

static void
append_quoted(StringInfo out, const char *prefix, const char *s, size_t len)
{
	appendStringInfoString(out, prefix);
	appendStringInfoChar(out, '\'');
	for (size_t i = 0; i < len; i++)
	{
		if (s[i] == '\'')
			appendStringInfoChar(out, '\'');
		appendStringInfoChar(out, s[i]);
	}
	appendStringInfoChar(out, '\'');
}

void
prop_filter_append_text(StringInfo out, const PropFilter *f)
{
	const OdLiteral *lit = &f->lit;
	char		buf[EDM_DOUBLE_TEXT_MAX + EDM_DATETIME_TEXT_LEN + 8];
	bool		is_string;
	static const char digits[] = "0123456789abcdef";

	appendBinaryStringInfo(out, f->name, f->name_len);
	appendStringInfo(out, " %s ", cmp_names[f->op]);
	switch (lit->type)
	{
		case EDM_STRING:
			append_quoted(out, "", lit->str, lit->len);
			break;
		case EDM_INT32:
			appendStringInfo(out, "%d", lit->i32);
			break;
		case EDM_INT64:
			edm_format_int64(lit->i64, buf);
			appendStringInfo(out, "%sL", buf);
			break;
		case EDM_DOUBLE:
			edm_format_double(lit->dbl, buf, &is_string);
			/* a Double literal needs a fraction or an exponent to read back as a Double */
			if (strpbrk(buf, ".eE") == NULL)
				strcat(buf, ".0");
			appendStringInfoString(out, buf);
			break;
		case EDM_BOOLEAN:
			appendStringInfoString(out, lit->b ? "true" : "false");
			break;
		case EDM_DATETIME:
			edm_format_datetime(lit->i64, buf);
			append_quoted(out, "datetime", buf, strlen(buf));
			break;
		case EDM_GUID:
			edm_format_guid(lit->guid, buf);
			append_quoted(out, "guid", buf, strlen(buf));
			break;
		case EDM_BINARY:
			appendStringInfoString(out, "X'");
			for (uint32 k = 0; k < lit->len; k++)
			{
				appendStringInfoChar(out, digits[lit->bin[k] >> 4]);
				appendStringInfoChar(out, digits[lit->bin[k] & 15]);
			}
			appendStringInfoChar(out, '\'');
			break;
		default:
			break;
	}
}
