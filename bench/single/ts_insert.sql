SELECT tablestore.insert_entity('bench', entity_text('q' || :client_id, 'n' || s, s)::tablestore.entity) FROM nextval('ts_seq') s;
