\set b random(1, 9000000000000000)
\set p :b % 1000
SELECT tablestore.execute_batch('writes', (SELECT '[' || string_agg(format('{"op":"insert","entity":{"PartitionKey":"b%s","RowKey":"%s_%s",%s}}',
	:p::int, :b::bigint, lpad(i::text, 3, '0'), cmp_doc_members(:b::bigint + i)), ',') || ']' FROM generate_series(0, 99) i));
