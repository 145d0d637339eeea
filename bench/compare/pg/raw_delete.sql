DELETE FROM raw_victims r USING (SELECT 'd' || (s % 100) AS pk, lpad(s::text, 8, '0') AS rk FROM nextval('raw_del_seq') s) v
WHERE r.pk = v.pk AND r.rk = v.rk;
