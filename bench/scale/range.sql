\set p random(0, :n / 1000 - 1)
\set r random(0, 899)
SELECT * FROM tablestore.query_entities(:t, format('PartitionKey eq ''p%s'' and RowKey ge ''%s'' and RowKey lt ''%s''',
	lpad(:p::text, 5, '0'), lpad(:r::text, 6, '0'), lpad((:r + 100)::text, 6, '0')));
