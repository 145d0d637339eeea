\set i random(0, 9999)
\set b random(1, 9000000000000000)
SELECT tablestore.execute_batch('Soak', (SELECT jsonb_agg(op) FROM (
	SELECT jsonb_build_object('op', 'merge', 'entity', jsonb_build_object('PartitionKey', 'p' || lpad((:i % 100)::text, 2, '0'),
		'RowKey', lpad(((:i + 100 * k) % 10000)::text, 6, '0'), 'Batch', :b::bigint % 1000)) AS op FROM generate_series(0, 9) k
	UNION ALL
	SELECT jsonb_build_object('op', 'insert', 'entity', jsonb_build_object('PartitionKey', 'p' || lpad((:i % 100)::text, 2, '0'),
		'RowKey', 'b' || :b::bigint || '_' || k, 'k', k)) FROM generate_series(0, 9) k) s));
