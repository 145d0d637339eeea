SELECT tablestore.delete_entity('SoakVictims', 'v' || (s % 100), lpad(s::text, 9, '0')) FROM nextval('soak_del') s;
