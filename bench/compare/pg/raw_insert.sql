INSERT INTO raw_writes (pk, rk, ts, etag, doc)
SELECT 'q' || :client_id, 'n' || s, t, cmp_etag(t), cmp_doc(s)::jsonb FROM nextval('raw_ins_seq') s, clock_timestamp() t;
