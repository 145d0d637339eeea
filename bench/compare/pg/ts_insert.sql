SELECT tablestore.insert_entity('writes', cmp_entity('q' || :client_id, 'n' || s, s)::tablestore.entity) FROM nextval('ts_ins_seq') s;
