SELECT tablestore.query_page('main', 'Age eq 20', NULL, 1000);
