-- scripts/demo.sql - the main demo, run by scripts/demo.sh in a throwaway database.
\pset pager off
\set ECHO queries
CREATE EXTENSION tablestore;
SET search_path = tablestore, public;

-- An entity in the Azure JSON form: types come from JSON or from odata.type annotations.
SELECT '{"PartitionKey":"Sales","RowKey":"00010","Name":"Ken Kwok","Age":23,"Score":12.5,"Active":true,
  "Big":"9007199254740993","Big@odata.type":"Edm.Int64",
  "Hired":"2014-08-22T00:50:44.1234567Z","Hired@odata.type":"Edm.DateTime",
  "Id":"68260b3f-beab-45e2-b900-33e2b442e724","Id@odata.type":"Edm.Guid",
  "Photo":"AAEC","Photo@odata.type":"Edm.Binary","Ratio":"NaN","Ratio@odata.type":"Edm.Double"}' AS ken \gset

SELECT :'ken'::entity AS entity;

-- Typed accessors: NULL when absent or of another type.
SELECT prop_type(:'ken', 'Age') AS age_type, prop_int32(:'ken', 'Age') AS age,
       prop_int64(:'ken', 'Big') AS big, prop_datetime(:'ken', 'Hired') AS hired,
       prop_int64(:'ken', 'Age') AS age_as_int64;

-- Merge (right side wins) and remove.
SELECT (:'ken'::entity || '{"Age":24,"Team":"EMEA"}') - 'Photo' AS merged;

-- Limits are enforced with the service's error codes.
\set ON_ERROR_STOP 0
SELECT '{"RowKey":"a/b"}'::entity;
SELECT format('{"s":"%s"}', repeat('x', 32769))::entity;
\set ON_ERROR_STOP 1

-- Stored size against jsonb for the same document.
SELECT pg_column_size(:'ken'::entity) AS entity_bytes, pg_column_size(:'ken'::entity::jsonb) AS jsonb_bytes;

-- Tables: an ordinary PostgreSQL table per table, keyed (PartitionKey, RowKey).
SELECT create_table('Employees');
SELECT insert_entity('Employees', '{"PartitionKey":"Sales","RowKey":"00010","FirstName":"Ken","LastName":"Kwok","Age":23}') AS etag \gset
SELECT insert_entity('Employees', '{"PartitionKey":"Sales","RowKey":"00011","FirstName":"Jun","LastName":"Cao","Age":47}');
SELECT * FROM get_entity('Employees', 'Sales', '00010');

-- Optimistic concurrency: a write with the current ETag succeeds, a stale one fails.
SELECT merge_entity('Employees', '{"PartitionKey":"Sales","RowKey":"00010","Age":24}', :'etag') AS new_etag;
\set ON_ERROR_STOP 0
SELECT merge_entity('Employees', '{"PartitionKey":"Sales","RowKey":"00010","Age":25}', :'etag');
\set ON_ERROR_STOP 1

-- Plain SQL sees the same rows; the trigger stamps Timestamp and ETag on plain writes too.
UPDATE tablestore_data.employees SET properties = properties || '{"Team":"EMEA"}' WHERE row_key = '00011';
SELECT partition_key, row_key, "timestamp", etag, properties FROM tablestore_data.employees ORDER BY row_key;

-- Queries: OData $filter, $select and $top, in (PartitionKey, RowKey) order, with continuations.
SELECT row_key, properties FROM query_entities('Employees', 'PartitionKey eq ''Sales'' and Age gt 30', 'FirstName,Age');
SELECT odata_to_sql('PartitionKey eq ''Sales'' and (RowKey ge ''00010'' and RowKey lt ''00011'')') AS translated;
SELECT jsonb_pretty(query_page('Employees', NULL, 'FirstName', 1)) AS first_page;

-- An entity group transaction: one partition, up to 100 operations, all or nothing.
SELECT execute_batch('Employees', '[
  {"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"empid_000123","FirstName":"Don","Email":"donh@contoso.com"}},
  {"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"email_donh@contoso.com","EmployeeId":"000123"}},
  {"op":"upsert_merge","entity":{"PartitionKey":"Sales","RowKey":"00011","Team":"APAC"}},
  {"op":"delete","entity":{"PartitionKey":"Sales","RowKey":"00010"}}]') AS results;
-- A failing operation names its index, and nothing of the batch is applied.
\set ON_ERROR_STOP 0
SELECT execute_batch('Employees', '[
  {"op":"merge","entity":{"PartitionKey":"Sales","RowKey":"empid_000123","Email":"don@contoso.com"}},
  {"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"email_donh@contoso.com","EmployeeId":"000999"}}]');
SELECT execute_batch('Employees', '[
  {"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"a"}},
  {"op":"insert","entity":{"PartitionKey":"Marketing","RowKey":"b"}}]');
\set ON_ERROR_STOP 1
SELECT row_key, properties FROM query_entities('Employees', 'PartitionKey eq ''Sales''');
