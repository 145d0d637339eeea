SELECT * FROM tablestore.query_entities('main', 'Age gt 75');
