SELECT jsonb_build_object('value', jsonb_agg(jsonb_build_object('odata.etag', etag, 'PartitionKey', pk, 'RowKey', rk, 'Timestamp', ts) || doc ORDER BY pk, rk),
	'NextPartitionKey', max(pk), 'NextRowKey', max(rk))
FROM (SELECT pk, rk, ts, etag, doc FROM raw_main WHERE (doc->>'Age')::int = 20 ORDER BY pk, rk LIMIT 1000) s;
