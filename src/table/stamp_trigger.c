/*
 * stamp_trigger.c - tablestore.stamp(): the BEFORE INSERT OR UPDATE row trigger of every table,
 * which applies the stamp policy (stamp.c) to writes from plain SQL and from the functions'
 * statements.
 *
 * Logical replication applies rows with session_replication_role = replica, where this trigger
 * does not fire, so a subscriber keeps the publisher's Timestamps and ETags.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "stamp.h"
#include "table_layout.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(tablestore_stamp);
Datum
tablestore_stamp(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	TupleDesc	desc;
	const char *problem;
	Datum		values[Natts_tablestore_table];
	bool		nulls[Natts_tablestore_table];
	Datum		old_values[Natts_tablestore_table];
	bool		old_nulls[Natts_tablestore_table];
	bool		is_update;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || TRIGGER_FIRED_BY_DELETE(td->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("tablestore.stamp() must run as a BEFORE INSERT OR UPDATE FOR EACH ROW trigger")));

	rel = td->tg_relation;
	desc = RelationGetDescr(rel);
	if ((problem = ts_layout_problem(rel)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("tablestore.stamp() fired on \"%s\", which is not a tablestore table",
						RelationGetRelationName(rel)),
				 errdetail("%s.", problem)));

	is_update = TRIGGER_FIRED_BY_UPDATE(td->tg_event);
	heap_deform_tuple(is_update ? td->tg_newtuple : td->tg_trigtuple, desc, values, nulls);
	if (is_update)
		heap_deform_tuple(td->tg_trigtuple, desc, old_values, old_nulls);
	stamp_row(rel, values, nulls, is_update ? old_values : NULL, is_update ? old_nulls : NULL, false, NULL);
	return PointerGetDatum(heap_form_tuple(desc, values, nulls));
}
