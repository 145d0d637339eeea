/*
 * registry.c - writing the registry tablestore.tables as its owner (registry.h).
 */
#include "registry.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "ts_support.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

Oid
ts_registry_owner(void)
{
	Oid			relid = get_relname_relid("tables", get_namespace_oid("tablestore", false));
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "tablestore: the registry tablestore.tables is missing");
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

void
ts_registry_write(const char *sql, int nargs, const char *const *args, int expect)
{
	Oid			save_user;
	int			save_sec;

	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(ts_registry_owner(), save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	ts_run_sql(sql, nargs, args, expect);
	SetUserIdAndSecContext(save_user, save_sec);
}
