INSERT INTO raw SELECT 'q' || :client_id, 'n' || s, doc_text(s)::jsonb FROM nextval('raw_seq') s;
