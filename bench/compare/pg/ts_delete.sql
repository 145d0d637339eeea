SELECT tablestore.delete_entity('victims', 'd' || (s % 100), lpad(s::text, 8, '0')) FROM nextval('ts_del_seq') s;
