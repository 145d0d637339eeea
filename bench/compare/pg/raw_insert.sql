INSERT INTO raw_writes (pk, rk, doc) SELECT 'q' || :client_id, 'n' || s, cmp_doc(s)::jsonb FROM nextval('raw_ins_seq') s;
