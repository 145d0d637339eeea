\set b random(1, 9000000000000000)
\set p :b % 1000
INSERT INTO raw_writes (pk, rk, ts, etag, doc)
SELECT 'b' || :p::int, :b::bigint || '_' || lpad(i::text, 3, '0'), t, cmp_etag(t), cmp_doc(:b::bigint + i)::jsonb
FROM generate_series(0, 99) i, clock_timestamp() t;
