SELECT count(*) FROM tablestore.query_entities(:t, 'Age gt 75');
