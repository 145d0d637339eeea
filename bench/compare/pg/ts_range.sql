\set p random(0, :n / 1000 - 1)
\set r random(0, 899)
SELECT * FROM tablestore.query_entities('main', format('PartitionKey eq ''%s'' and RowKey ge ''%s'' and RowKey lt ''%s''',
	cmp_pk(:p * 1000), cmp_rk(:r), cmp_rk(:r + 100)));
