SELECT pk, rk, doc FROM raw_main WHERE (doc->>'Age')::int > 75 ORDER BY pk, rk;
