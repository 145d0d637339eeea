-- property_order: properties come back in the order they were written (contract §1), as the
-- service and Azurite return them: insert and replace keep the request's order; a merge keeps the
-- existing properties in place and appends new ones in the request's order. Every output follows
-- it: the entity's text, the SQL rows, query_page_json and the REST bodies (query_page's jsonb keeps
-- jsonb's own key order). The stored form keeps its directory sorted by name and stores the order
-- (in the directory's spare bytes) only when it differs, so an entity written in name order has the
-- bytes 0.2.0 gave it. Order is presentation: entities that differ only in it are equal.
SET search_path = tablestore, public;

-- the text form, and what the operators make of it
SELECT '{"Zeta":1,"alpha":"a","Mid":true,"_x":2.5}'::entity AS as_written;
SELECT '{"PartitionKey":"p","c":1,"RowKey":"r","b":2,"a":3}'::entity AS keys_first_then_as_written;
SELECT '{"c":1,"b":2,"a":3}'::entity || '{"d":4,"b":20,"e0":null,"aa":5}'::entity AS merge_keeps_places_appends_new;
SELECT '{"c":1,"b":2,"a":3}'::entity || '{"a":30,"c":10}'::entity AS merge_overwrites_in_place;
SELECT ('{"c":1,"b":2,"a":3,"z":0}'::entity - 'b') - 'PartitionKey' AS minus_keeps_order;
SELECT '{"b":1,"a":2}'::entity::jsonb AS jsonb_has_its_own_order, '{"b":1,"a":2}'::entity::jsonb::entity AS back_from_jsonb;

-- the stored form: the directory stays sorted by name (lookups), the order in it only when needed
SELECT entity_to_binary('{"a":1,"b":2}') AS name_order_none, entity_to_binary('{"b":2,"a":1}') AS written_order_in_directory;
-- exactly the bytes 0.2.0 wrote for an entity in name order
SELECT entity_to_binary('{"PartitionKey":"p","RowKey":"r","a":1,"b":"x"}') =
	'\x01030200010001000200000001000200070000000100010070726101000000'::bytea || '\x6278'::bytea AS unchanged_from_0_2_0;
SELECT entity_from_binary(entity_to_binary('{"b":2,"a":1}'))::text AS binary_round_trip;
-- lookups and accessors read the directory, whatever the order written
SELECT prop_int32(e, 'a') AS a, prop_int32(e, 'b') AS b, e ? 'c' AS has_c, entity_size(e) = entity_size('{"a":1,"b":2,"c":3}') AS same_size
FROM (SELECT '{"c":3,"b":2,"a":1}'::entity AS e) s;
-- the same properties written in another order are the same entity (its text keeps each order)
SELECT '{"b":1,"a":2}'::entity = '{"b":1,"a":2}'::entity AS same_order_equal,
	'{"b":1,"a":2}'::entity = '{"a":2,"b":1}'::entity AS other_order_equal,
	entity_hash('{"b":1,"a":2}') = entity_hash('{"a":2,"b":1}') AS other_order_same_hash;

-- the operations
SELECT create_table('Ordered') IS NOT NULL AS created;
SELECT insert_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","Name":"Ken","Age":23,"City":"Berlin","Active":true}') IS NOT NULL AS inserted;
SELECT properties FROM get_entity('Ordered', 'p', '1');
-- a merge on the direct path, as SQL (fast_path off), by a batch and by the upsert statement
SELECT merge_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","Zip":"10115","Age":24}') IS NOT NULL AS merged;
SELECT properties FROM get_entity('Ordered', 'p', '1');
SET tablestore.fast_path = off;
SELECT merge_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","Email":"k@x","Name":"Kenneth"}') IS NOT NULL AS merged_as_sql;
RESET tablestore.fast_path;
SELECT properties FROM get_entity('Ordered', 'p', '1');
SELECT execute_batch('Ordered', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","B":1,"A":2,"City":"Bonn"}}]') IS NOT NULL AS batch_merged;
SELECT upsert_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","Y":1,"X":2}') IS NOT NULL AS upsert_merged;
SELECT properties FROM get_entity('Ordered', 'p', '1');
-- replace and insert-or-replace keep the request's order
SELECT update_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","z":1,"y":2,"x":3}') IS NOT NULL AS replaced;
SELECT properties FROM get_entity('Ordered', 'p', '1');
SELECT upsert_entity('Ordered', '{"PartitionKey":"p","RowKey":"1","k":1,"j":2}', 'replace') IS NOT NULL AS upsert_replaced;
SELECT properties FROM get_entity('Ordered', 'p', '1');
-- plain SQL
INSERT INTO tablestore_data.ordered (partition_key, row_key, properties) VALUES ('p', '2', '{"q":1,"RowKey":"2","p":2}');
UPDATE tablestore_data.ordered SET properties = properties || '{"o":3,"q":4}' WHERE row_key = '2';
SELECT row_key, properties FROM tablestore_data.ordered ORDER BY row_key;

-- every output: SQL rows, $select (the order listed), pages, the REST bodies
SELECT row_key, properties FROM query_entities('Ordered', 'PartitionKey eq ''p''');
SELECT row_key, properties FROM query_entities('Ordered', 'PartitionKey eq ''p''', 'q,k,j');
SELECT properties FROM get_entity('Ordered', 'p', '2', 'p,q');
SELECT regexp_replace(query_page_json('Ordered', 'PartitionKey eq ''p''', NULL)::text,
	'"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS page_json;
SELECT jsonb_object_keys(query_page('Ordered', 'RowKey eq ''2''', NULL)->'value'->0) AS page_jsonb_keys_in_jsonb_order;
SELECT regexp_replace(body, '"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS rest_get
FROM rest_get_entity('Ordered', 'p', '2', NULL, 'nometadata');
SELECT regexp_replace(body, '"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS rest_query
FROM rest_query_entities('Ordered', 'RowKey eq ''1''', NULL, NULL, NULL, NULL, 'fullmetadata', 'http://h/a', 'a');
SELECT regexp_replace(body, '"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS rest_insert
FROM rest_insert_entity('Ordered', '{"m":1,"PartitionKey":"p","l":"x","RowKey":"3","k":"2","k@odata.type":"Edm.Int64"}', true, 'minimalmetadata');
SELECT rest_write_entity('Ordered', 'p', '3', '{"n":1,"a":2,"m":3}', true) IS NOT NULL AS rest_merge;
SELECT properties FROM get_entity('Ordered', 'p', '3');
SELECT regexp_replace(body, '"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS rest_batch_echo
FROM rest_batch('Ordered', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"4","t":1,"s":2,"r":3},"echo":"nometadata"}]');

SELECT drop_table('Ordered');
