/*
 * ts_table.c - table-name rules and resolving a name to its relation.
 */
#include "ts_table.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "index_worker.h"
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
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "catalog/pg_class.h"
#include "foreign/foreign.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/partcache.h"
#include "utils/rls.h"

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

void
ts_table_check_name(const char *s, int len)
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
ts_table_key(text *name, char *key)
{
	const char *s = VARDATA_ANY(name);
	int			len = VARSIZE_ANY_EXHDR(name);

	ts_table_check_name(s, len);
	for (int i = 0; i < len; i++)
		key[i] = pg_ascii_tolower(s[i]);
	key[len] = '\0';
}

void
ts_table_resolve(text *name, TsTable *t)
{
	const char *s = VARDATA_ANY(name);
	int			len = VARSIZE_ANY_EXHDR(name);
	Relation	rel;

	ts_table_key(name, t->key);
	/* looked up again after the lock is granted: a table dropped meanwhile is not found */
	t->relid = RangeVarGetRelidExtended(makeRangeVar(TS_DATA_SCHEMA, t->key, -1), AccessShareLock,
										RVR_MISSING_OK, NULL, NULL);
	if (!OidIsValid(t->relid))
		ts_raisef(TSE_TABLE_NOT_FOUND, "the table \"%.*s\" does not exist", len, s);
	rel = relation_open(t->relid, NoLock);
	ts_layout_require(rel);
	t->partitioned = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;
	t->remote = InvalidOid;
	relation_close(rel, NoLock);
	snprintf(t->qualified, sizeof(t->qualified), "%s.%s", TS_DATA_SCHEMA, quote_identifier(t->key));
	/* index work a restart or a dead worker left gets a worker (a time compared, mostly) */
	ts_index_relaunch_check(t->relid);
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

void
ts_table_check_select(const TsTable *t)
{
	AclResult	r = pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT);

	if (r != ACLCHECK_OK)
		aclcheck_error(r, OBJECT_TABLE, get_rel_name(t->relid));
}
