SELECT pk, rk, ts, etag, doc FROM raw_main WHERE (doc->>'Age')::int > 75 ORDER BY pk, rk;
