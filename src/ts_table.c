/*
 * ts_table.c - table-name rules and resolving a name to its relation.
 */
#include "ts_table.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/acl.h"
#include "miscadmin.h"
#include "utils/syscache.h"
#include "utils/inval.h"
#include "catalog/pg_type.h"

bool
ts_table_name_valid(const char *s, int len, const char **why)
{
	if (len < 3 || len > TS_TABLE_NAME_MAX)
	{
		*why = "a table name has 3 to 63 characters";
		return false;
	}
	for (int i = 0; i < len; i++)
	{
		char		c = s[i];
		bool		letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');

		if (!letter && (i == 0 || c < '0' || c > '9'))
		{
			*why = "a table name is a letter followed by letters and digits";
			return false;
		}
	}
	if (len == 6 && pg_strncasecmp(s, "tables", 6) == 0)
	{
		*why = "\"tables\" is a reserved table name";
		return false;
	}
	return true;
}

static void
check_name_or_raise(const char *s, int len)
{
	const char *why;
	char		ex[TS_EXCERPT_BUF];

	if (!ts_table_name_valid(s, len, &why))
	{
		TsError		err = {0};

		ts_fail(&err, TSE_RESOURCE_NAME, "\"%s\" is not a valid table name", ts_excerpt(ex, sizeof(ex), s, len));
		ts_fail_detail(&err, "%s.", why);
		ts_raise(&err);
	}
}

void
ts_table_resolve(text *name, TsTable *t)
{
	const char *s = VARDATA_ANY(name);
	int			len = VARSIZE_ANY_EXHDR(name);
	Oid			nsp;

	check_name_or_raise(s, len);
	for (int i = 0; i < len; i++)
		t->key[i] = pg_ascii_tolower(s[i]);
	t->key[len] = '\0';
	nsp = get_namespace_oid(TS_DATA_SCHEMA, true);
	t->relid = OidIsValid(nsp) ? get_relname_relid(t->key, nsp) : InvalidOid;
	if (!OidIsValid(t->relid))
		ts_raisef(TSE_TABLE_NOT_FOUND, "the table \"%.*s\" does not exist", len, s);
	snprintf(t->qualified, sizeof(t->qualified), "%s.%s", TS_DATA_SCHEMA, quote_identifier(t->key));
}

/* tablestore._check_table_name(name text): raises InvalidResourceName unless the name is valid. */
PG_FUNCTION_INFO_V1(tablestore_check_table_name);
Datum
tablestore_check_table_name(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);

	check_name_or_raise(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
	PG_RETURN_VOID();
}

bool
ts_table_is_primary_key(const TsTable *t, const char *index_name)
{
	Relation	rel;
	Oid			pk;

	if (index_name == NULL || (rel = try_relation_open(t->relid, AccessShareLock)) == NULL)
		return false;
	pk = RelationGetPrimaryKeyIndex(rel);
	relation_close(rel, AccessShareLock);
	return OidIsValid(pk) && pk == get_relname_relid(index_name, get_rel_namespace(t->relid));
}

/* tablestore.entity's OID, looked up once and forgotten on any change to pg_type. */
static Oid	entity_type_oid = InvalidOid;

static void
forget_entity_type_oid(Datum arg, int cacheid, uint32 hashvalue)
{
	entity_type_oid = InvalidOid;
}

Oid
ts_entity_type_oid(void)
{
	static bool callback_registered = false;

	if (!OidIsValid(entity_type_oid))
	{
		Oid			nsp = get_namespace_oid("tablestore", false);

		if (!callback_registered)
		{
			CacheRegisterSyscacheCallback(TYPEOID, forget_entity_type_oid, (Datum) 0);
			callback_registered = true;
		}
		entity_type_oid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("entity"),
										  ObjectIdGetDatum(nsp));
	}
	return entity_type_oid;
}

/*
 * att[0..4]: the attribute numbers of partition_key, row_key, timestamp, etag and properties.
 * Code that reads those columns as text, timestamptz and entity checks their types first: a
 * trigger or a table altered by hand must not make it read an int as a pointer.
 */
bool
ts_table_columns_ok(TupleDesc desc, const int *att)
{
	static const Oid fixed[4] = {TEXTOID, TEXTOID, TIMESTAMPTZOID, TEXTOID};

	for (int c = 0; c < 5; c++)
	{
		Form_pg_attribute a;

		if (att[c] <= 0 || att[c] > desc->natts)
			return false;
		a = TupleDescAttr(desc, att[c] - 1);
		if (a->attisdropped || a->atttypid != (c < 4 ? fixed[c] : ts_entity_type_oid()))
			return false;
	}
	return true;
}

void
ts_table_check_select(const TsTable *t)
{
	AclResult	r = pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT);

	if (r != ACLCHECK_OK)
		aclcheck_error(r, OBJECT_TABLE, get_rel_name(t->relid));
}
