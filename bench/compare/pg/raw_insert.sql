INSERT INTO raw_writes SELECT 'q' || :client_id, 'n' || s, cmp_doc(s)::jsonb FROM nextval('raw_ins_seq') s;
