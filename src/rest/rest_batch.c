/*
 * rest_batch.c - the REST function of $batch (doc/gateway.md): one changeset, read by the gateway
 * into execute_batch's document with the sub-requests' keys, bodies and Prefer, run as one batch.
 */
#include "remote_call.h"
#include "rest.h"

#include "batch.h"
#include "key_scope.h"
#include "funcapi.h"
#include "ts_support.h"
#include "utils/builtins.h"

/*
 * tablestore.rest_batch(tbl, operations, metadata, base, account, key_scope)
 *   -> setof (etag, partition_key, row_key, body): one row per operation, in request order, with
 *   the keys it wrote (an insert's Location); body is the stored entity of an insert marked echo.
 *   The document may be twice the 4 MiB of a batch: the gateway measures the request itself and
 *   passes the sub-requests' bodies as strings (entity_json).
 */
PG_FUNCTION_INFO_V1(tablestore_rest_batch);
Datum
tablestore_rest_batch(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsTable		t;
	RestTarget	rt;
	text	   *doc;
	BatchOp    *ops;
	int			n;
	const char *table;
	KeyScope	ks;
	bool		scoped;
	Oid			remote;

	ts_require_arg(fcinfo, 0, "tbl");
	if (PG_ARGISNULL(1))
		ts_raisef(TSE_BATCH_MALFORMED, "operations must not be NULL");
	ts_require_utf8();
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	rest_target_from_args(fcinfo, 2, &rt);
	table = rest_table_name(fcinfo, 0);
	doc = PG_GETARG_TEXT_PP(1);
	scoped = key_scope_from_arg(fcinfo, 5, &ks);
	ops = batch_run(&t, VARDATA_ANY(doc), VARSIZE_ANY_EXHDR(doc), TS_REST_BATCH_MAX_BYTES, scoped ? &ks : NULL, &n, &remote);
	if (OidIsValid(remote))
		return ts_forward_call(fcinfo, remote, true);

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
	{
		BatchOp    *op = &ops[i];
		Datum		values[4];
		bool		nulls[4] = {op->result.etag == NULL, false, false, !op->echo};

		values[0] = PointerGetDatum(op->result.etag);
		values[1] = PointerGetDatum(op->pk);
		values[2] = PointerGetDatum(op->rk);
		values[3] = (Datum) 0;
		if (op->echo)
		{
			RowJson		r;
			EntityView	v;
			RestTarget	ort = rt;

			if (op->echo_at_level)
				ort.metadata = op->echo_level;	/* a sub-request's own Accept */

			rest_written_row(op->pk, op->rk, &op->result, op->props, &r, &v);
			values[3] = PointerGetDatum(rest_entity_body(&ort, table, &r, NULL));
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
