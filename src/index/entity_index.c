/*
 * entity_index.c - a table's entity index and indexing policy (entity_index.h): the registered
 * policy and its per-relation cache, the index's definition and names, the index of a new table,
 * and the state of a table's indexes against its policy.
 *
 * The index is written with fastupdate and a bounded pending list (TS_INDEX_STORAGE): a write
 * adds its keys to the list, and the list is merged into the index when it fills (by the writer
 * that fills it, or by VACUUM). The merge is most of what the index costs a write (each new key
 * is a descent of the index), and a search reads the whole list: 1 MB merges hot keys' entries
 * in bulk and keeps a search's extra reading to a millisecond or two (bench/RESULTS.md,
 * "Automatic indexing", measured 256 kB to 16 MB).
 */
#include "entity_index.h"

#include "access/genam.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "registry.h"
#include "table_layout.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#define TS_INDEX_STORAGE "fastupdate = on, gin_pending_list_limit = 1024"

/* ---------- the registered policy ---------- */

void
ts_index_policy_parse(const char *json, size_t len, IndexPolicy *p)
{
	TsError		err = {0};

	if (!index_policy_parse(json, len, p, &err))
		ts_raise(&err);
}

/*
 * Has the installed extension the registry's policy column (0.3.0 and later)? The library serves
 * databases whose extension is not updated yet: those have no entity index, and get none.
 */
static bool
indexing_installed(void)
{
	Oid			registry = get_relname_relid("tables", get_namespace_oid("tablestore", false));

	return OidIsValid(registry) && get_attnum(registry, "indexing_policy") != InvalidAttrNumber;
}

bool
ts_index_policy_read(const char *key, IndexPolicy *p)
{
	const char *args[1] = {key};
	char	   *json;
	TsError		err = {0};

	if (!indexing_installed())
	{
		index_policy_default(p);
		p->consistent = false;
		return false;
	}
	ts_run_sql("SELECT r.indexing_policy::text FROM tablestore.tables r WHERE r.key OPERATOR(pg_catalog.=) $1",
			   1, args, SPI_OK_SELECT);
	if (SPI_processed == 0)
	{
		index_policy_default(p);
		return false;
	}
	json = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (json == NULL)
	{
		index_policy_default(p);
		p->consistent = false;
		return true;
	}
	if (!index_policy_parse(json, strlen(json), p, &err))
		ts_raise(&err);
	return true;
}

char *
ts_index_policy_json(const char *key)
{
	IndexPolicy p;
	StringInfoData json;

	(void) ts_index_policy_read(key, &p);
	initStringInfo(&json);
	index_policy_append_json(&json, &p);
	return json.data;
}

void
ts_index_policy_write(const char *key, const IndexPolicy *p)
{
	StringInfoData json;
	const char *args[2];

	initStringInfo(&json);
	index_policy_append_json(&json, p);
	args[0] = key;
	args[1] = json.data;
	ts_registry_write("UPDATE tablestore.tables SET indexing_policy = $2::jsonb WHERE key OPERATOR(pg_catalog.=) $1",
					  2, args, SPI_OK_UPDATE);
}

/* The cache: relation -> policy (NULL: nothing indexed), dropped with the relation's relcache entry. */
typedef struct PolicyEntry
{
	Oid			relid;
	IndexPolicy *policy;
} PolicyEntry;

static HTAB *policies = NULL;
static MemoryContext policy_cxt = NULL;

static void
forget_policy(Datum arg, Oid relid)
{
	if (policies == NULL)
		return;
	if (OidIsValid(relid))
	{
		PolicyEntry *e = hash_search(policies, &relid, HASH_FIND, NULL);

		if (e != NULL && e->policy != NULL)
			pfree(e->policy);
		(void) hash_search(policies, &relid, HASH_REMOVE, NULL);
	}
	else
	{
		hash_destroy(policies);
		policies = NULL;
		MemoryContextReset(policy_cxt);
	}
}

/* A deep copy of a policy into cxt, in one chunk (pfree frees it all). */
static IndexPolicy *
copy_policy(MemoryContext cxt, const IndexPolicy *p)
{
	Size		size = MAXALIGN(sizeof(IndexPolicy)) + MAXALIGN(sizeof(char *) * p->nnames) +
		MAXALIGN(sizeof(uint32) * p->nnames);
	char	   *mem;
	char	   *text;
	IndexPolicy *c;

	for (int i = 0; i < p->nnames; i++)
		size += p->lens[i] + 1;
	mem = MemoryContextAlloc(cxt, size);
	c = (IndexPolicy *) mem;
	*c = *p;
	c->names = (const char **) (mem + MAXALIGN(sizeof(IndexPolicy)));
	c->lens = (uint32 *) ((char *) c->names + MAXALIGN(sizeof(char *) * p->nnames));
	text = (char *) c->lens + MAXALIGN(sizeof(uint32) * p->nnames);
	for (int i = 0; i < p->nnames; i++)
	{
		memcpy(text, p->names[i], p->lens[i]);
		text[p->lens[i]] = '\0';
		c->names[i] = text;
		c->lens[i] = p->lens[i];
		text += p->lens[i] + 1;
	}
	return c;
}

static void
ensure_cache(void)
{
	static bool callback_registered = false;
	HASHCTL		ctl;

	if (policies != NULL)
		return;
	if (policy_cxt == NULL)
		policy_cxt = AllocSetContextCreate(CacheMemoryContext, "tablestore indexing policies", ALLOCSET_SMALL_SIZES);
	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(forget_policy, (Datum) 0);
		callback_registered = true;
	}
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(PolicyEntry);
	ctl.hcxt = policy_cxt;
	policies = hash_create("tablestore indexing policies", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

const IndexPolicy *
ts_index_policy_cached(Oid relid, const char *key)
{
	PolicyEntry *e;
	bool		found;
	IndexPolicy p;
	IndexPolicy *copy;

	ensure_cache();
	e = hash_search(policies, &relid, HASH_FIND, &found);
	if (found)
		return e->policy;
	ts_spi_begin();
	if (!ts_index_policy_read(key, &p))
		p.consistent = false;	/* no registry row: nothing is known of an index */
	ts_spi_end();
	/* the read may have processed invalidations (and reset the cache): enter only now */
	ensure_cache();
	copy = p.consistent ? copy_policy(policy_cxt, &p) : NULL;
	e = hash_search(policies, &relid, HASH_ENTER, &found);
	e->policy = copy;
	return e->policy;
}

/* ---------- the index's DDL ---------- */

bool
ts_index_is_entity_index(Oid index)
{
	Relation	rel = index_open(index, AccessShareLock);
	bool		is = rel->rd_rel->relam == GIN_AM_OID && rel->rd_att->natts == 1 &&
		rel->rd_opcintype[0] == ts_type_oid(TS_TYPE_ENTITY);

	index_close(rel, AccessShareLock);
	return is;
}

void
ts_index_append_definition(StringInfo sql, const IndexPolicy *p)
{
	StringInfoData inc,
				exc;

	initStringInfo(&inc);
	initStringInfo(&exc);
	index_policy_options(p, &inc, &exc);
	/* the names are identifier characters and '*': the literals need no escapes */
	appendStringInfo(sql, " USING gin (properties tablestore.entity_gin_ops (included = %s, excluded = %s)) WITH (%s)",
					 quote_literal_cstr(inc.data), quote_literal_cstr(exc.data), TS_INDEX_STORAGE);
}

/* The name of generation gen of the entity index of a relation named relname. */
static const char *
index_name(const char *relname, int gen)
{
	size_t		len = strlen(relname);
	char		base[NAMEDATALEN];

	/* a long name is cut and told apart by its hash: "<name>_entities_<gen>" fits in 63 bytes */
	if (len <= 40)
		strlcpy(base, relname, sizeof(base));
	else
		snprintf(base, sizeof(base), "%.31s%08x", relname, (uint32) hash_bytes((const unsigned char *) relname, (int) len));
	return gen == 0 ? psprintf("%s_entities", base) : psprintf("%s_entities_%d", base, gen);
}

const char *
ts_index_free_name(Oid nsp, const char *relname)
{
	/* bounded: each generation taken is a relation of the schema */
	for (int gen = 0; gen < TS_INDEX_MAX_GENERATIONS; gen++)
	{
		const char *name = index_name(relname, gen);

		if (!OidIsValid(get_relname_relid(name, nsp)))
			return name;
	}
	ts_raisef(TSE_INDEX_WORKER, "no free name for the entity index of \"%s\" (%d generations taken)",
			  relname, TS_INDEX_MAX_GENERATIONS);
	return NULL;				/* not reached */
}

void
ts_index_build_new(const char *key)
{
	IndexPolicy p;
	TsIndexState st;
	Oid			nsp = get_namespace_oid(TS_DATA_SCHEMA, false);
	Oid			relid = get_relname_relid(key, nsp);
	StringInfoData sql;

	if (!indexing_installed())
		return;
	(void) ts_index_policy_read(key, &p);
	ts_index_state_read(relid, &st);
	initStringInfo(&sql);
	for (int i = 0; i < st.nindexes; i++)
		appendStringInfo(&sql, "DROP INDEX %s; ", quote_qualified_identifier(st.indexes[i].schema, st.indexes[i].name));
	if (sql.len > 0 && SPI_execute(sql.data, false, 0) < 0)
		elog(ERROR, "tablestore: dropping the entity index failed");
	if (p.consistent)
	{
		/* a free name: a relation of the schema may have taken "<key>_entities" */
		resetStringInfo(&sql);
		appendStringInfo(&sql, "CREATE INDEX %s ON " TS_DATA_SCHEMA ".%s", quote_identifier(ts_index_free_name(nsp, key)),
						 quote_identifier(key));
		ts_index_append_definition(&sql, &p);
		if (SPI_execute(sql.data, false, 0) < 0)
			elog(ERROR, "tablestore: creating the entity index failed");
	}
	CacheInvalidateRelcacheByRelid(relid);
}

/* ---------- what a table's indexes are ---------- */

/*
 * The entity indexes the query's rows list (columns: the index, its schema and name, valid,
 * partitioned, its options, its relation, the partitioned index it is a part of), in cxt of the
 * caller, matched against want.
 */
static int
read_indexes(const char *where, Oid relid, const IndexPolicy *want, TsEntityIndex **out)
{
	const char *args[1] = {psprintf("%u", relid)};
	TsEntityIndex *list;
	int			n;

	ts_run_sql(psprintf("SELECT i.indexrelid, n.nspname::text, c.relname::text, i.indisvalid, c.relkind = 'I', "
						"COALESCE(pg_catalog.array_to_string(a.attoptions, ';'), ''), i.indrelid, "
						"COALESCE((SELECT h.inhparent FROM pg_catalog.pg_inherits h WHERE h.inhrelid = i.indexrelid), 0) "
						"FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid "
						"JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
						"JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indexrelid AND a.attnum = 1 "
						"JOIN pg_catalog.pg_opclass o ON o.oid = i.indclass[0] "
						"JOIN pg_catalog.pg_namespace opn ON opn.oid = o.opcnamespace "
						"WHERE %s AND o.opcname = 'entity_gin_ops' AND opn.nspname = 'tablestore' "
						"ORDER BY i.indrelid, i.indexrelid", where), 1, args, SPI_OK_SELECT);
	n = (int) SPI_processed;
	list = palloc0(sizeof(TsEntityIndex) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		TsEntityIndex *x = &list[i];
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *opts = SPI_getvalue(row, desc, 6);
		char	   *inc = NULL,
				   *exc = NULL;
		char	   *save;
		IndexPolicy have;
		TsError		err = {0};

		x->oid = (Oid) strtoul(SPI_getvalue(row, desc, 1), NULL, 10);
		x->schema = SPI_getvalue(row, desc, 2);
		x->name = SPI_getvalue(row, desc, 3);
		x->valid = strcmp(SPI_getvalue(row, desc, 4), "t") == 0;
		x->partitioned = strcmp(SPI_getvalue(row, desc, 5), "t") == 0;
		x->heap = (Oid) strtoul(SPI_getvalue(row, desc, 7), NULL, 10);
		x->part_of = (Oid) strtoul(SPI_getvalue(row, desc, 8), NULL, 10);
		for (char *o = strtok_r(opts, ";", &save); o != NULL; o = strtok_r(NULL, ";", &save))
		{
			if (strncmp(o, "included=", 9) == 0)
				inc = o + 9;
			else if (strncmp(o, "excluded=", 9) == 0)
				exc = o + 9;
		}
		x->matches = want != NULL && want->consistent && index_policy_from_options(inc, exc, &have, &err) &&
			index_policy_equal(&have, want);
	}
	*out = list;
	return n;
}

int
ts_index_list(Oid relid, const IndexPolicy *want, TsEntityIndex **out)
{
	return read_indexes("i.indrelid = $1::oid", relid, want, out);
}

int
ts_index_partition_list(Oid relid, const IndexPolicy *want, TsEntityIndex **out)
{
	return read_indexes("i.indrelid IN (SELECT t.inhrelid FROM pg_catalog.pg_inherits t WHERE t.inhparent = $1::oid)",
						relid, want, out);
}

const TsEntityIndex *
ts_index_target(const TsIndexState *st)
{
	/* the partitioned index being assembled is invalid until its last partition is attached */
	for (int i = 0; i < st->nindexes; i++)
		if (st->indexes[i].matches && (st->indexes[i].valid || (st->indexes[i].partitioned && st->partitioned)))
			return &st->indexes[i];
	return NULL;
}

void
ts_index_state_read(Oid relid, TsIndexState *st)
{
	const char *args[1] = {psprintf("%u", relid)};
	int			nvalid_matching = 0;
	const TsEntityIndex *target;

	memset(st, 0, sizeof(*st));
	ts_run_sql("SELECT c.relname::text, n.nspname::text, c.relkind = 'p', c.reltablespace, c.relowner "
			   "FROM pg_catalog.pg_class c "
			   "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1::oid", 1, args, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ts_raisef(TSE_TABLE_NOT_FOUND, "the table (relation %u) does not exist", relid);
	st->relname = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	st->schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	st->partitioned = strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3), "t") == 0;
	st->tablespace = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4), NULL, 10);
	st->owner = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5), NULL, 10);
	st->key = st->relname;
	if (!ts_index_policy_read(st->key, &st->policy))
		st->policy.consistent = false;
	st->nindexes = ts_index_list(relid, &st->policy, &st->indexes);
	if (st->partitioned)
		st->nparts = ts_index_partition_list(relid, &st->policy, &st->parts);
	for (int i = 0; i < st->nindexes; i++)
		if (st->indexes[i].valid && st->indexes[i].matches)
			nvalid_matching++;
	st->applied = st->policy.consistent ? (nvalid_matching == 1 && st->nindexes == 1) : st->nindexes == 0;
	/* a node's table: and every partition has exactly the part of that index, nothing else */
	target = ts_index_target(st);
	for (int i = 0; i < st->nparts; i++)
		if (target == NULL || st->parts[i].part_of != target->oid)
			st->applied = false;
}
